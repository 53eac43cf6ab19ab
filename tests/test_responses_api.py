"""OpenAI Responses through Mnemo (Codex's API) with the official openai SDK: memory after the
leading developer items, project from Codex's own context, learning from input and output."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import openai
import pytest

from harness.upstream import UpstreamStub, responses_events
from proxy.recall import BLOCK_OPEN
from tests.conftest import RunningMnemo

pytestmark = pytest.mark.integration


def codex_input(project: str, text: str) -> list[Any]:
    """What Codex sends: its prompt as developer items, its workspace as a user item, then the user."""
    return [
        {
            "type": "message",
            "role": "developer",
            "content": [{"type": "input_text", "text": "You are Codex."}],
        },
        {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "Sandbox: on."}]},
        {
            "type": "message",
            "role": "user",
            "content": [
                {
                    "type": "input_text",
                    "text": f"<environment_context><cwd>/work/{project}</cwd></environment_context>",
                }
            ],
        },
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
    ]


def test_codex_gets_project_memory_with_no_header(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("codex")
    api = openai.OpenAI(base_url=mnemo.openai_base, api_key="sk-codex", max_retries=0)
    api.responses.create(
        model="gpt-x",
        input=codex_input(project, "This repo uses pnpm, not npm."),
        extra_headers={"session-id": "codex-s1"},
    )
    (learned,) = mnemo.wait_for_memories(1, project=project)
    assert learned["value"] == "pnpm" and learned["source"]["message_index"] == 3
    fresh_upstream.requests.clear()
    api.responses.create(
        model="gpt-x",
        input=codex_input(project, "How do I install the deps?"),
        extra_headers={"session-id": "codex-s2"},
    )
    sent = fresh_upstream.responses_requests()[-1]
    items = sent.json()["input"]
    assert [i["role"] for i in items] == ["developer", "developer", "developer", "user", "user"]
    assert items[:2] == codex_input(project, "")[:2]  # the client's leading items unchanged, in place
    assert (
        items[2]["content"][0]["text"].startswith(BLOCK_OPEN)
        and "uses pnpm" in items[2]["content"][0]["text"]
    )
    assert sent.headers["authorization"] == "Bearer sk-codex"


def test_instructions_get_the_memory_and_a_streamed_reply_is_learned(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("resp")
    api = openai.OpenAI(
        base_url=mnemo.openai_base, api_key="k", max_retries=0, default_headers={"X-Mnemo-Project": project}
    )
    fresh_upstream.reply = "I've upgraded the project to Python 3.12."
    stream = api.responses.create(
        model="gpt-x", instructions="Be brief.", input="We use Sentry for error tracking.", stream=True
    )
    kinds = [event.type for event in stream]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    learned = mnemo.wait_for_memories(2, project=project)
    assert {(m["key"], m["evidence"]) for m in learned} == {
        ("error_tracking", "stated"),
        ("python_version", "inferred"),
    }
    fresh_upstream.requests.clear()
    fresh_upstream.reply = "ok"
    reply = api.responses.create(model="gpt-x", instructions="Be brief.", input="Where do errors go?")
    assert reply.output_text == "ok"
    sent = fresh_upstream.responses_requests()[-1].json()
    assert sent["instructions"].startswith("Be brief.\n\n" + BLOCK_OPEN) and "Sentry" in sent["instructions"]
    assert sent["input"] == "Where do errors go?"


def test_the_stream_is_relayed_byte_for_byte(mnemo: RunningMnemo, fresh_upstream: UpstreamStub) -> None:
    fresh_upstream.reply = "one two three"
    with httpx.stream(
        "POST",
        f"{mnemo.openai_base}/responses",
        timeout=30,
        json={"model": "m", "input": "hi", "stream": True},
    ) as response:
        raw = b"".join(response.iter_raw())
        assert response.headers["cache-control"] == "no-cache"
    assert raw == b"".join(responses_events("one two three", "m"))
    assert b"[DONE]" not in raw


def test_a_continued_conversation_keeps_its_previous_response_id(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("continued")
    api = openai.OpenAI(
        base_url=mnemo.openai_base, api_key="k", max_retries=0, default_headers={"X-Mnemo-Project": project}
    )
    api.responses.create(model="gpt-x", input="We use yarn.")
    mnemo.wait_for_memories(1, project=project)
    reply = api.responses.create(
        model="gpt-x", previous_response_id="resp_earlier", input="Install the deps."
    )
    assert reply.output_text == fresh_upstream.reply
    sent = fresh_upstream.responses_requests()[-1].json()
    assert sent["previous_response_id"] == "resp_earlier"
    assert sent["input"][-1] == {"type": "message", "role": "user", "content": "Install the deps."}
    assert "uses yarn" in sent["input"][0]["content"][0]["text"]
