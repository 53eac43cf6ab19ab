"""A failing memory path never fails the user's call: it goes through and says `degraded`."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest

from harness.helpers import injected_block
from harness.processes import Store
from harness.upstream import UpstreamStub
from proxy.settings import Settings
from tests.conftest import RunningMnemo, serve_mnemo, store_for_test

pytestmark = [pytest.mark.integration, pytest.mark.store_contract]


@pytest.fixture
def own_store(tmp_path: Path) -> Iterator[Store]:
    with store_for_test(tmp_path / "store") as store:
        yield store


@pytest.fixture
def own_mnemo(own_store: Store, upstream: UpstreamStub, tmp_path: Path) -> Iterator[RunningMnemo]:
    settings = Settings(
        redis_url=own_store.url,
        upstream_url=upstream.url,
        data_dir=tmp_path / "data",
        recall_timeout_s=0.3,
    )
    running = serve_mnemo(settings)
    yield running
    running.stop()


def _ask(mnemo: RunningMnemo, stream: bool = False) -> tuple[httpx.Response, bytes]:
    body = {
        "model": "m",
        "stream": stream,
        "messages": [{"role": "user", "content": "Which package manager does this repo use?"}],
    }
    with httpx.stream(
        "POST",
        f"{mnemo.openai_base}/chat/completions",
        json=body,
        headers={"x-mnemo-project": "down"},
        timeout=30,
    ) as response:
        content = response.read()
    return response, content


def test_with_the_store_stopped_chat_still_works_and_says_degraded(
    own_mnemo: RunningMnemo, own_store: Store, fresh_upstream: UpstreamStub
) -> None:
    api = openai.OpenAI(
        base_url=own_mnemo.openai_base,
        api_key="k",
        max_retries=0,
        default_headers={"X-Mnemo-Project": "down"},
    )
    api.chat.completions.create(model="m", messages=[{"role": "user", "content": "This repo uses bun."}])
    own_mnemo.wait_for_memories(1, project="down")
    response, _ = _ask(own_mnemo)
    assert response.headers["x-mnemo-status"] == "ok"
    assert response.headers["x-mnemo-recalled"] == "1"

    own_store.stop()
    fresh_upstream.requests.clear()
    for stream in (False, True):
        response, content = _ask(own_mnemo, stream=stream)
        assert response.status_code == 200
        assert response.headers["x-mnemo-status"] == "degraded"
        assert response.headers["x-mnemo-recalled"] == "0"
        assert b"Sure, here is what I know." in content or b"Sure," in content
    # the request went upstream unchanged: no memory block, the client's own body
    assert all(injected_block(r) is None for r in fresh_upstream.chat_requests())
    assert len(fresh_upstream.chat_requests()) == 2


def test_with_the_store_hung_chat_goes_through_within_the_recall_timeout(
    own_mnemo: RunningMnemo, own_store: Store, fresh_upstream: UpstreamStub
) -> None:
    assert own_store.pid is not None
    os.kill(own_store.pid, signal.SIGSTOP)  # the store stops answering but keeps its connections
    try:
        response, content = _ask(own_mnemo)
    finally:
        os.kill(own_store.pid, signal.SIGCONT)
    assert response.status_code == 200
    assert response.headers["x-mnemo-status"] == "degraded"
    assert float(response.headers["x-mnemo-overhead-ms"]) < 1500
    assert b"chat.completion" in content
