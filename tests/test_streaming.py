"""Streamed chat completions: chunk by chunk, byte-identical, learned from only when complete."""

from __future__ import annotations

import time
from collections.abc import Callable

import httpx
import openai
import pytest

from harness.helpers import jobs_added, wait_drained
from harness.processes import Store
from harness.upstream import UpstreamStub, chat_chunks
from tests.conftest import RunningMnemo

pytestmark = pytest.mark.integration


def test_stream_reaches_the_client_chunk_by_chunk_and_byte_identical(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    fresh_upstream.reply = "one two three four five"
    fresh_upstream.chunk_delay_s = 0.15
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "Count to five please."}]}
    arrivals: list[tuple[float, bytes]] = []
    started = time.perf_counter()
    with httpx.stream(
        "POST",
        f"{mnemo.openai_base}/chat/completions",
        json=body,
        headers={"x-mnemo-project": unique("stream")},
        timeout=30,
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        assert response.headers["cache-control"] == "no-cache"
        assert response.headers["x-accel-buffering"] == "no"
        assert response.headers["x-mnemo-status"] == "ok"
        for chunk in response.iter_raw():
            arrivals.append((time.perf_counter() - started, chunk))
    expected = b"".join(chat_chunks("one two three four five", "m"))
    assert b"".join(chunk for _, chunk in arrivals) == expected
    # Frames arrive as the upstream sends them, not buffered to the end: the first one well
    # before the last, spread over the upstream's own pacing.
    assert len(arrivals) >= 5
    first, last = arrivals[0][0], arrivals[-1][0]
    assert last - first >= 0.15 * 4


def test_openai_sdk_stream_works_through_the_proxy(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    fresh_upstream.reply = "Use pnpm install."
    project = unique("sdkstream")
    api = openai.OpenAI(
        base_url=mnemo.openai_base, api_key="k", max_retries=0, default_headers={"X-Mnemo-Project": project}
    )
    stream = api.chat.completions.create(
        model="m", stream=True, messages=[{"role": "user", "content": "We use Vitest for unit tests."}]
    )
    text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    assert text.strip() == "Use pnpm install."
    learned = mnemo.wait_for_memories(1, project=project)
    (vitest,) = [m for m in learned if m["value"] == "Vitest"]
    assert vitest["source"]["model"] == "m"
    # the reply's advice ("Use pnpm install.") is no observation of the project: nothing inferred
    assert [m["value"] for m in mnemo.memories(project=project)] == ["Vitest"]


def test_upstream_errors_keep_their_status_and_body(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub
) -> None:
    api = openai.OpenAI(base_url=mnemo.openai_base, api_key="k", max_retries=0)
    with pytest.raises(openai.RateLimitError) as caught:
        api.chat.completions.create(model="error-model", messages=[{"role": "user", "content": "hi"}])
    assert caught.value.status_code == 429
    assert "slow down" in str(caught.value)


def test_bad_json_gets_an_openai_shaped_400(mnemo: RunningMnemo, fresh_upstream: UpstreamStub) -> None:
    response = httpx.post(
        f"{mnemo.openai_base}/chat/completions",
        content=b"{not json",
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error" and "JSON" in error["message"]
    assert fresh_upstream.chat_requests() == []


def test_bad_mode_header_is_a_400_naming_the_header(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub
) -> None:
    response = httpx.post(
        f"{mnemo.openai_base}/chat/completions",
        headers={"x-mnemo-mode": "sometimes"},
        json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
    )
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "X-Mnemo-Mode"


def test_other_v1_routes_pass_through_untouched(mnemo: RunningMnemo, fresh_upstream: UpstreamStub) -> None:
    api = openai.OpenAI(base_url=mnemo.openai_base, api_key="sk-pass", max_retries=0)
    response = api.with_raw_response.models.list()
    echoed = response.http_response.json()
    assert echoed == {"object": "echo", "method": "GET", "path": "/v1/models", "query": "", "body_bytes": 0}
    recorded = fresh_upstream.requests[-1]
    assert recorded.headers["authorization"] == "Bearer sk-pass"
    payload = b'{"input": "abc", "model": "e"}'
    posted = httpx.post(
        f"{mnemo.openai_base}/embeddings?x=1", content=payload, headers={"content-type": "application/json"}
    )
    assert posted.json() == {
        "object": "echo",
        "method": "POST",
        "path": "/v1/embeddings",
        "query": "x=1",
        "body_bytes": len(payload),
    }
    assert fresh_upstream.requests[-1].body == payload


@pytest.mark.parametrize("before_first_token", [False, True])
def test_a_client_that_disconnects_closes_the_upstream_within_a_second(
    mnemo: RunningMnemo,
    store: Store,
    fresh_upstream: UpstreamStub,
    unique: Callable[[str], str],
    before_first_token: bool,
) -> None:
    fresh_upstream.first_chunk_delay_s = 5.0 if before_first_token else 0.0
    project = unique("disconnect")
    added = jobs_added(store.url)
    body = {
        "model": "slow-model",
        "stream": True,
        "messages": [{"role": "user", "content": "We use Vitest."}],
    }
    with httpx.stream(
        "POST",
        f"{mnemo.openai_base}/chat/completions",
        json=body,
        timeout=30,
        headers={"x-mnemo-project": project},
    ) as response:
        if not before_first_token:
            received = b""
            for chunk in response.iter_raw():  # until the reply has stated a fact, then hang up
                received += chunk
                if b"3.12" in received:
                    break
        else:
            time.sleep(0.3)
        closed_at = time.monotonic()
    deadline = closed_at + 1.0
    while fresh_upstream.disconnected_at is None and time.monotonic() < deadline + 1:
        time.sleep(0.02)
    assert fresh_upstream.disconnected_at is not None
    assert fresh_upstream.disconnected_at - closed_at < 1.0
    # what the user said is learned; the reply cut short is not, though its first words state a fact
    (learned,) = mnemo.wait_for_memories(1, project=project)
    assert learned["value"] == "Vitest" and learned["source"]["role"] == "user"
    wait_drained(store.url, added + 1)  # the call's one job is done: nothing more will come of it
    assert [m["value"] for m in mnemo.memories(project=project)] == ["Vitest"]
