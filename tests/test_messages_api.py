"""Anthropic Messages through Mnemo with the official anthropic SDK: memory after the client's
system blocks (kept byte-identical, cache_control and all), learning from the user's turn, exact
streams, errors in Anthropic's shape, count_tokens passed through."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anthropic
import httpx
import pytest

from harness.upstream import UpstreamStub, anthropic_events
from proxy.recall import BLOCK_OPEN
from tests.conftest import RunningMnemo

pytestmark = pytest.mark.integration

SYSTEM: list[Any] = [
    {"type": "text", "text": "x-billing-header: cc_version=2"},
    {"type": "text", "text": "You are Claude Code.", "cache_control": {"type": "ephemeral"}},
    {
        "type": "text",
        "text": "Primary working directory: /src/whatever",
        "cache_control": {"type": "ephemeral"},
    },
]


def client(mnemo: RunningMnemo, project: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        base_url=mnemo.url,
        api_key="sk-ant-client",
        max_retries=0,
        default_headers={"X-Mnemo-Project": project},
    )


def test_memory_goes_after_the_clients_system_blocks_which_stay_byte_identical(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("claude")
    api = client(mnemo, project)
    api.messages.create(
        model="claude-x",
        max_tokens=100,
        system=SYSTEM,
        messages=[{"role": "user", "content": "This repo uses pnpm, not npm."}],
    )
    (learned,) = mnemo.wait_for_memories(1, project=project)
    assert learned["source"]["client"].startswith("Anthropic/Python")
    fresh_upstream.requests.clear()
    reply = api.messages.create(
        model="claude-x",
        max_tokens=100,
        system=SYSTEM,
        messages=[{"role": "user", "content": [{"type": "text", "text": "How do I install?"}]}],
    )
    assert reply.content[0].type == "text"
    sent = fresh_upstream.messages_requests()[-1]
    body = sent.json()
    assert body["system"][:3] == SYSTEM  # the client's blocks, unchanged and in place
    raw = sent.body.decode()
    for block in SYSTEM:  # byte-identical as the client serialised them
        assert json.dumps(block, separators=(",", ":")) in raw or json.dumps(block) in raw
    assert body["system"][3]["text"].startswith(BLOCK_OPEN) and "uses pnpm" in body["system"][3]["text"]
    # the client's own credential goes upstream as it sent it (this SDK: a bearer; Claude Code: x-api-key)
    assert "sk-ant-client" in (sent.headers.get("x-api-key", "") + sent.headers.get("authorization", ""))
    assert sent.headers["anthropic-version"]
    assert sent.path == "/v1/messages"


def test_a_streamed_reply_arrives_unchanged_and_is_learned(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("claude-stream")
    fresh_upstream.reply = "I've upgraded the project to Python 3.12."
    with httpx.stream(
        "POST",
        f"{mnemo.url}/v1/messages?beta=true",
        timeout=30,
        headers={
            "x-api-key": "k",
            "anthropic-version": "2023-06-01",
            "x-mnemo-project": project,
            "anthropic-beta": "prompt-caching-2024-07-31,oauth-2025-04-20",
            "x-claude-code-session-id": "cc-session-1",
        },
        json={
            "model": "m",
            "max_tokens": 10,
            "stream": True,
            "messages": [{"role": "user", "content": "We use Vitest for unit tests."}],
        },
    ) as response:
        raw = b"".join(response.iter_raw())
    assert raw == b"".join(anthropic_events(fresh_upstream.reply, "m"))
    forwarded = fresh_upstream.messages_requests()[-1]
    assert forwarded.query == "beta=true"
    assert forwarded.headers["anthropic-beta"] == "prompt-caching-2024-07-31,oauth-2025-04-20"
    assert forwarded.headers["x-api-key"] == "k" and forwarded.headers["anthropic-version"] == "2023-06-01"
    learned = mnemo.wait_for_memories(2, project=project)
    by_key = {m["key"]: m for m in learned}
    assert by_key["test_framework"]["evidence"] == "stated"
    assert by_key["python_version"]["evidence"] == "inferred"
    assert by_key["test_framework"]["scope"]["session"] is None  # a project fact, not a session note


def test_sdk_stream_and_errors_in_anthropic_shape(mnemo: RunningMnemo, fresh_upstream: UpstreamStub) -> None:
    api = client(mnemo, "errors")
    with api.messages.stream(
        model="m", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        text = "".join(stream.text_stream)
    assert text.strip() == fresh_upstream.reply.strip()
    with pytest.raises(anthropic.APIStatusError) as caught:
        api.messages.create(model="error-model", max_tokens=10, messages=[{"role": "user", "content": "hi"}])
    assert caught.value.status_code == 529 and "busy" in str(caught.value)
    bad = httpx.post(
        f"{mnemo.url}/v1/messages", content=b"{nope", headers={"content-type": "application/json"}
    )
    assert bad.status_code == 400
    assert bad.json()["type"] == "error" and bad.json()["error"]["type"] == "invalid_request_error"


def test_count_tokens_passes_through(mnemo: RunningMnemo, fresh_upstream: UpstreamStub) -> None:
    response = httpx.post(
        f"{mnemo.url}/v1/messages/count_tokens",
        json={"model": "m", "messages": []},
        headers={"x-api-key": "k"},
    )
    assert response.json()["path"] == "/v1/messages/count_tokens"
    assert fresh_upstream.requests[-1].headers["x-api-key"] == "k"


def test_the_user_comes_from_claude_codes_metadata(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    account = unique("acct")
    user_id = json.dumps({"device_id": "dev-1", "account_uuid": account, "session_id": "s-1"})
    client(mnemo, unique("any")).messages.create(
        model="m",
        max_tokens=5,
        metadata={"user_id": user_id},
        messages=[{"role": "user", "content": "I prefer concise bullet points."}],
    )
    (learned,) = mnemo.wait_for_memories(1, user=account)
    assert learned["scope"]["user"] == account and learned["value"] == "concise bullet points"
