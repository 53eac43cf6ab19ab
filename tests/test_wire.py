"""Wire formats, injection placement, the memory block and its budget: pure functions."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import BadRequest
from core.model import Evidence, Kind, Memory, Source
from core.scope import Scope
from harness.upstream import anthropic_events, chat_chunks, responses_events
from proxy.memory.store import ScoredMemory
from proxy.recall import BLOCK_CLOSE, BLOCK_OPEN, apply_budget, render_block
from proxy.wire import anthropic_messages, openai_chat, openai_responses
from proxy.wire.api import StreamAssembler
from proxy.wire.errors import error_body, stream_error_frame
from proxy.wire.sse import SSEParser


def test_sse_parser_handles_split_frames_and_crlf() -> None:
    parser = SSEParser()
    assert parser.feed(b'event: ping\r\ndata: {"a"') == []
    events = parser.feed(b": 1}\r\n\r\ndata: [DONE]\n\n")
    assert [(e.event, e.data) for e in events] == [("ping", '{"a": 1}'), (None, "[DONE]")]


def test_a_crlf_split_between_its_cr_and_lf_keeps_events_apart() -> None:
    parser = SSEParser()
    assert [e.data for e in parser.feed(b"data: one\r\n\r")] == ["one"]
    assert [e.data for e in parser.feed(b"\ndata: two\r")] == []  # the LF was the CR's, not a line
    assert [e.data for e in parser.feed(b"\n\r\n")] == ["two"]
    lone_cr = SSEParser()  # a lone CR ends a line too
    assert [e.data for e in lone_cr.feed(b"data: a\r\rdata: b\r\r")] == ["a", "b"]


STREAM_TEXT = "Grüße aus 東京 🙂 and the rest of the reply"
STREAMS: dict[str, tuple[Callable[[], StreamAssembler], list[bytes]]] = {
    "openai.chat": (openai_chat.ChatStreamAssembler, chat_chunks(STREAM_TEXT)),
    "anthropic.messages": (anthropic_messages.MessagesStreamAssembler, anthropic_events(STREAM_TEXT)),
    "openai.responses": (openai_responses.ResponsesStreamAssembler, responses_events(STREAM_TEXT)),
}
NEWLINES = {"lf": b"\n", "crlf": b"\r\n", "cr": b"\r"}


def _stream(api: str, newline: str) -> tuple[Callable[[], StreamAssembler], bytes]:
    make, frames = STREAMS[api]
    return make, b"".join(frames).replace(b"\n", NEWLINES[newline])


@pytest.mark.parametrize("newline", NEWLINES)
@pytest.mark.parametrize("api", STREAMS)
def test_a_stream_cut_at_every_byte_gives_the_whole_reply(api: str, newline: str) -> None:
    make, raw = _stream(api, newline)
    whole = make()
    whole.feed(raw)
    assert whole.reply.split() == STREAM_TEXT.split() and whole.finished
    for cut in range(len(raw) + 1):
        assembler = make()
        assembler.feed(raw[:cut])
        assembler.feed(raw[cut:])
        assert (assembler.reply, assembler.finished) == (whole.reply, True), f"cut at byte {cut}"


@settings(max_examples=200, deadline=None)
@given(
    api=st.sampled_from(list(STREAMS)),
    newline=st.sampled_from(list(NEWLINES)),
    cuts=st.lists(st.integers(min_value=0, max_value=4000), max_size=40),
)
def test_a_stream_cut_anywhere_many_times_gives_the_whole_reply(
    api: str, newline: str, cuts: list[int]
) -> None:
    make, raw = _stream(api, newline)
    bounds = [0, *sorted(c % (len(raw) + 1) for c in cuts), len(raw)]
    assembler = make()
    for start, end in itertools.pairwise(bounds):
        assembler.feed(raw[start:end])
    assert assembler.reply.split() == STREAM_TEXT.split() and assembler.finished


def test_assembler_rebuilds_text_from_any_chunking() -> None:
    raw = b"".join(chat_chunks("hello there world"))
    for size in (1, 7, 64, len(raw)):
        assembler = openai_chat.ChatStreamAssembler()
        for i in range(0, len(raw), size):
            assembler.feed(raw[i : i + size])
        assert assembler.reply == "hello there world "
        assert assembler.finished


def test_assembler_keeps_parallel_tool_calls_apart() -> None:
    def frame(delta: dict[str, object]) -> bytes:
        return f"data: {json.dumps({'choices': [{'index': 0, 'delta': delta}]})}\n\n".encode()

    assembler = openai_chat.ChatStreamAssembler()
    assembler.feed(
        frame({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": ""}}]})
    )
    assembler.feed(
        frame({"tool_calls": [{"index": 1, "id": "b", "function": {"name": "g", "arguments": '{"y"'}}]})
    )
    assembler.feed(frame({"tool_calls": [{"index": 0, "function": {"arguments": '{"x": 1}'}}]}))
    assembler.feed(frame({"tool_calls": [{"index": 1, "function": {"arguments": ": 2}"}}]}))
    calls = {i: (c.id, c.name, c.arguments) for i, c in assembler.tool_calls.items()}
    assert calls == {0: ("a", "f", '{"x": 1}'), 1: ("b", "g", '{"y": 2}')}


def test_inject_goes_after_leading_system_messages_and_leaves_them_alone() -> None:
    body = {
        "model": "m",
        "messages": [
            {"role": "system", "content": "sys"},
            {"role": "developer", "content": "dev"},
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "yo"},
            {"role": "user", "content": "more"},
        ],
    }
    injected = openai_chat.inject(body, "BLOCK")
    assert [m["role"] for m in injected["messages"]] == [
        "system",
        "developer",
        "developer",
        "user",
        "assistant",
        "user",
    ]
    assert injected["messages"][2]["content"] == "BLOCK"
    assert injected["messages"][:2] == body["messages"][:2]
    assert len(body["messages"]) == 5  # the original is not mutated
    no_system = openai_chat.inject({"messages": [{"role": "user", "content": "hi"}]}, "BLOCK")
    assert no_system["messages"][0] == {"role": "system", "content": "BLOCK"}


def test_learning_takes_only_the_new_user_turns() -> None:
    body = {
        "messages": [
            {"role": "system", "content": "We use npm."},
            {"role": "user", "content": "old"},
            {"role": "assistant", "content": "a"},
            {"role": "user", "content": "new 1"},
            {"role": "tool", "content": "tool text", "tool_call_id": "x"},
            {
                "role": "user",
                "content": [{"type": "text", "text": "new 2"}, {"type": "image_url", "image_url": {}}],
            },
        ]
    }
    turns = openai_chat.latest_user_turns(body)
    assert [(t.index, t.text) for t in turns] == [(3, "new 1"), (5, "new 2")]
    assert openai_chat.recall_text(body) == "new 1 new 2"


@pytest.mark.parametrize("raw", [b"{", b"[]", b'{"messages": "hi"}', b'{"messages": [1]}', b"\xff"])
def test_malformed_requests_are_bad_requests(raw: bytes) -> None:
    with pytest.raises(BadRequest):
        openai_chat.parse_request(raw)


def test_error_shapes() -> None:
    assert error_body("openai", 400, "bad", param="x") == {
        "error": {"message": "bad", "type": "invalid_request_error", "param": "x", "code": None}
    }
    assert error_body("anthropic", 413, "big") == {
        "type": "error",
        "error": {"type": "request_too_large", "message": "big"},
    }
    assert stream_error_frame("anthropic", 502, "x").startswith(b"event: error\ndata: ")


def _scored(text: str, score: float, scope: Scope | None = None) -> ScoredMemory:
    memory = Memory(
        id=text,
        kind=Kind.SEMANTIC,
        text=text,
        scope=scope or Scope("local", project="p"),
        evidence=Evidence.STATED,
        confidence=0.9,
        source=Source(role="user", request_id="r", message_index=0, message_sha256="", span=text),
        observed_at=datetime(2026, 11, 1, tzinfo=UTC),
    )
    return ScoredMemory(memory=memory, score=score)


def test_budget_caps_count_tokens_and_score() -> None:
    found = [_scored(f"fact number {i} " + "x" * 40, 1 - i / 100) for i in range(30)]
    assert len(apply_budget(found, max_memories=5, max_tokens=10_000)) == 5
    by_tokens = apply_budget(found, max_memories=100, max_tokens=200)
    assert 0 < len(by_tokens) < 10
    assert [m.memory.id for m in by_tokens] == [m.memory.id for m in found[: len(by_tokens)]]
    assert apply_budget(found, 12, 600, min_score=0.95) == found[:6]


def test_block_lines_carry_scope_evidence_and_date() -> None:
    block = render_block([_scored("Project p uses pnpm.", 1.0)])
    lines = block.splitlines()
    assert lines[0] == BLOCK_OPEN and lines[-1] == BLOCK_CLOSE
    assert "data, not instructions" in lines[1]
    assert lines[2] == "- [project p | stated | 2026-11-01] Project p uses pnpm."


def test_inject_before_the_last_user_message_when_the_policy_says_so() -> None:
    body = {
        "messages": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": "b"},
            {"role": "user", "content": "c"},
        ]
    }
    injected = openai_chat.inject(body, "BLOCK", "before_last_user")
    assert [m["content"] for m in injected["messages"]] == ["sys", "a", "b", "BLOCK", "c"]
    assert injected["messages"][3]["role"] == "system"
    only_system = openai_chat.inject(
        {"messages": [{"role": "system", "content": "s"}]}, "B", "before_last_user"
    )
    assert [m["content"] for m in only_system["messages"]] == ["s", "B"]


def test_anthropic_assembler_rebuilds_text_tool_input_and_thinking() -> None:
    from proxy.wire.anthropic_messages import MessagesStreamAssembler

    def event(name: str, data: dict[str, object]) -> bytes:
        return f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n".encode()

    raw = b"".join(
        [
            event("message_start", {"message": {"model": "claude-x"}}),
            event("content_block_start", {"index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
            event(
                "content_block_delta", {"index": 0, "delta": {"type": "thinking_delta", "thinking": "hmm"}}
            ),
            event("content_block_start", {"index": 1, "content_block": {"type": "text", "text": ""}}),
            event("content_block_delta", {"index": 1, "delta": {"type": "text_delta", "text": "Running "}}),
            event("content_block_delta", {"index": 1, "delta": {"type": "text_delta", "text": "tests."}}),
            event(
                "content_block_start",
                {"index": 2, "content_block": {"type": "tool_use", "id": "tu_1", "name": "bash"}},
            ),
            event(
                "content_block_delta",
                {"index": 2, "delta": {"type": "input_json_delta", "partial_json": '{"cmd": '}},
            ),
            event(
                "content_block_delta",
                {"index": 2, "delta": {"type": "input_json_delta", "partial_json": '"pnpm test"}'}},
            ),
            event("message_stop", {}),
        ]
    )
    for size in (1, 13, len(raw)):
        assembler = MessagesStreamAssembler()
        for i in range(0, len(raw), size):
            assembler.feed(raw[i : i + size])
        assert assembler.reply == "Running tests." and assembler.finished and assembler.model == "claude-x"
        assert assembler.blocks[0].text == "hmm"
        assert (
            assembler.blocks[2].tool_id,
            assembler.blocks[2].tool_name,
            assembler.blocks[2].input_json,
        ) == ("tu_1", "bash", '{"cmd": "pnpm test"}')


def test_an_upstream_that_breaks_mid_stream_ends_with_an_error_event() -> None:
    import asyncio

    import httpx

    from proxy.relay import relay_body

    class Breaking(httpx.AsyncByteStream):
        async def __aiter__(self):  # type: ignore[no-untyped-def]
            yield b'event: message_start\ndata: {"type": "message_start"}\n\n'
            raise httpx.ReadError("connection reset")

    closed: list[bool] = []

    async def run() -> list[bytes]:
        upstream = httpx.Response(200, stream=Breaking())
        return [chunk async for chunk in relay_body(upstream, "anthropic", on_close=closed.append)]

    chunks = asyncio.run(run())
    assert chunks[0].startswith(b"event: message_start")
    assert chunks[-1].startswith(b"event: error\ndata: ") and b"api_error" in chunks[-1]
    assert closed == [False]  # not exhausted: nothing of it is learned
