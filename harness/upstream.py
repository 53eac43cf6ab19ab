"""A real HTTP upstream stand-in: an ASGI app served by uvicorn on a port, recording what it receives.

It answers chat completions (streamed and not) with canned replies and any other path with an
echo, so tests can check exactly what Mnemo sent upstream and what came back.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import socket
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

import uvicorn

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


@dataclass
class Recorded:
    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def chat_chunks(text: str, model: str = "stub-model") -> list[bytes]:
    """The SSE frames of a streamed chat completion saying ``text``, one word a chunk."""
    frames: list[bytes] = []
    base = {"id": "chatcmpl-stub", "object": "chat.completion.chunk", "created": 1, "model": model}
    first = {
        **base,
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}],
    }
    frames.append(f"data: {json.dumps(first)}\n\n".encode())
    for word in text.split(" "):
        chunk = {**base, "choices": [{"index": 0, "delta": {"content": word + " "}, "finish_reason": None}]}
        frames.append(f"data: {json.dumps(chunk)}\n\n".encode())
    last = {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    frames.append(f"data: {json.dumps(last)}\n\n".encode())
    frames.append(b"data: [DONE]\n\n")
    return frames


def tool_call_chunks() -> list[bytes]:
    """A chat stream with two parallel tool calls whose arguments arrive interleaved, then usage."""
    base = {"id": "chatcmpl-tools", "object": "chat.completion.chunk", "created": 1, "model": "tools-model"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        data = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        return f"data: {json.dumps(data)}\n\n".encode()

    def call(
        index: int, arguments: str, call_id: str | None = None, name: str | None = None
    ) -> dict[str, Any]:
        entry: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
        if call_id:
            entry.update(id=call_id, type="function")
            entry["function"]["name"] = name
        return entry

    usage = {**base, "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}}
    return [
        chunk({"role": "assistant", "content": None}),
        chunk({"tool_calls": [call(0, "", "call_a", "read_file")]}),
        chunk({"tool_calls": [call(1, "", "call_b", "run")]}),
        chunk({"tool_calls": [call(0, '{"path": ')]}),
        chunk({"tool_calls": [call(1, '{"cmd": "pnpm')]}),
        chunk({"tool_calls": [call(0, '"a.py"}')]}),
        chunk({"tool_calls": [call(1, ' test"}')]}),
        chunk({}, "tool_calls"),
        f"data: {json.dumps(usage)}\n\n".encode(),
        b"data: [DONE]\n\n",
    ]


def anthropic_events(text: str, model: str = "claude-stub") -> list[bytes]:
    """The SSE events of a streamed Anthropic message saying ``text``, one word a delta."""

    def event(name: str, data: dict[str, Any]) -> bytes:
        return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()

    frames = [
        event(
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_stub",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "usage": {"input_tokens": 1, "output_tokens": 0},
                },
            },
        ),
        event(
            "content_block_start",
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        ),
        event("ping", {"type": "ping"}),
    ]
    for word in text.split(" "):
        frames.append(
            event(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": word + " "},
                },
            )
        )
    frames += [
        event("content_block_stop", {"type": "content_block_stop", "index": 0}),
        event(
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}},
        ),
        event("message_stop", {"type": "message_stop"}),
    ]
    return frames


def response_object(text: str, model: str, status: str) -> dict[str, Any]:
    output = (
        []
        if status != "completed"
        else [
            {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        ]
    )
    return {
        "id": "resp_stub",
        "object": "response",
        "created_at": 1,
        "model": model,
        "status": status,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 1,
            "output_tokens": 1,
            "total_tokens": 2,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def responses_events(text: str, model: str = "gpt-stub") -> list[bytes]:
    """The named events of a streamed Responses reply, with sequence numbers, no [DONE]."""
    events: list[tuple[str, dict[str, Any]]] = [
        ("response.created", {"response": response_object("", model, "in_progress")}),
        (
            "response.output_item.added",
            {
                "output_index": 0,
                "item": {
                    "id": "msg_1",
                    "type": "message",
                    "role": "assistant",
                    "status": "in_progress",
                    "content": [],
                },
            },
        ),
        (
            "response.content_part.added",
            {
                "output_index": 0,
                "item_id": "msg_1",
                "content_index": 0,
                "part": {"type": "output_text", "text": "", "annotations": []},
            },
        ),
    ]
    for word in text.split(" "):
        events.append(
            (
                "response.output_text.delta",
                {"output_index": 0, "item_id": "msg_1", "content_index": 0, "delta": word + " "},
            )
        )
    events += [
        (
            "response.output_text.done",
            {"output_index": 0, "item_id": "msg_1", "content_index": 0, "text": text},
        ),
        ("response.completed", {"response": response_object(text, model, "completed")}),
    ]
    return [
        f"event: {name}\ndata: {json.dumps({'type': name, 'sequence_number': number, **data})}\n\n".encode()
        for number, (name, data) in enumerate(events)
    ]


@dataclass
class UpstreamStub:
    reply: str = "Sure, here is what I know."
    chunk_delay_s: float = 0.01
    first_chunk_delay_s: float = 0.0
    disconnected_at: float | None = None
    requests: list[Recorded] = field(default_factory=list)
    port: int = 0
    _server: uvicorn.Server | None = None
    _thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def responses_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.path.endswith("/v1/responses")]

    def messages_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.path.endswith("/v1/messages")]

    def chat_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        record = Recorded(scope["method"], scope["path"], scope["query_string"].decode(), headers, body)
        self.requests.append(record)
        if scope["path"].endswith("/chat/completions") and record.json().get("model") == "slow-model":
            await self._slow_stream(receive, send)
        elif scope["path"].endswith("/chat/completions"):
            await self._chat(record, send)
        elif scope["path"].endswith("/v1/messages"):
            await self._messages(record, send)
        elif scope["path"].endswith("/v1/responses"):
            await self._responses(record, send)
        elif scope["path"].endswith("/embeddings") and b'"stub-embedder"' in body:
            await self._embeddings(record, send)
        else:
            await self._echo(record, send)

    async def _slow_stream(self, receive: Receive, send: Send) -> None:
        """A stream that waits ``first_chunk_delay_s`` before its first frame and then trickles,
        noting when the proxy closes the connection (``disconnected_at``)."""

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            self.disconnected_at = time.monotonic()

        watcher = asyncio.create_task(watch())
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", b"text/event-stream")],
                }
            )
            await asyncio.sleep(self.first_chunk_delay_s)
            for frame in chat_chunks("I've upgraded the project to Python 3.12 and then" + " slowly" * 40):
                if watcher.done():
                    return
                await send({"type": "http.response.body", "body": frame, "more_body": True})
                await asyncio.sleep(0.2)
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            await asyncio.sleep(0.05)
            watcher.cancel()

    async def _chat(self, record: Recorded, send: Send) -> None:
        payload = record.json()
        if payload.get("model") == "stall-model":
            await asyncio.sleep(3)
        if payload.get("model") == "tools-model":
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", b"text/event-stream")],
                }
            )
            for frame in tool_call_chunks():
                await send({"type": "http.response.body", "body": frame, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        if payload.get("model") == "error-model":
            await respond(
                send,
                429,
                {
                    "error": {
                        "message": "slow down",
                        "type": "rate_limit_error",
                        "param": None,
                        "code": "rate_limited",
                    }
                },
            )
            return
        if payload.get("stream"):
            await send(
                {
                    "type": "http.response.start",
                    "status": 200,
                    "headers": [(b"content-type", b"text/event-stream; charset=utf-8")],
                }
            )
            for frame in chat_chunks(self.reply, payload.get("model", "stub-model")):
                await send({"type": "http.response.body", "body": frame, "more_body": True})
                await asyncio.sleep(self.chunk_delay_s)
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        completion = {
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": 1,
            "model": payload.get("model"),
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": self.reply}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        await respond(send, 200, completion)

    async def _messages(self, record: Recorded, send: Send) -> None:
        """Anthropic Messages: a canned reply, or its event stream (message_start ... message_stop)."""
        payload = record.json()
        if payload.get("model") == "error-model":
            await respond(
                send, 529, {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}
            )
            return
        model = payload.get("model", "claude-stub")
        if not payload.get("stream"):
            await respond(
                send,
                200,
                {
                    "id": "msg_stub",
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [{"type": "text", "text": self.reply}],
                    "stop_reason": "end_turn",
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                },
            )
            return
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream; charset=utf-8")],
            }
        )
        for frame in anthropic_events(self.reply, model):
            await send({"type": "http.response.body", "body": frame, "more_body": True})
            await asyncio.sleep(self.chunk_delay_s)
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _responses(self, record: Recorded, send: Send) -> None:
        """OpenAI Responses: a response object, or its named-event stream ending in response.completed."""
        payload = record.json()
        model = payload.get("model", "gpt-stub")
        if not payload.get("stream"):
            await respond(send, 200, response_object(self.reply, model, "completed"))
            return
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream; charset=utf-8")],
            }
        )
        for frame in responses_events(self.reply, model):
            await send({"type": "http.response.body", "body": frame, "more_body": True})
            await asyncio.sleep(self.chunk_delay_s)
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _embeddings(self, record: Recorded, send: Send) -> None:
        """Deterministic 8-d vectors from the text's bytes, in reverse order to check re-sorting."""
        texts = record.json()["input"]
        data = [
            {
                "object": "embedding",
                "index": i,
                "embedding": [float(b) for b in hashlib.sha256(t.encode()).digest()[:8]],
            }
            for i, t in enumerate(texts)
        ]
        await respond(send, 200, {"object": "list", "data": list(reversed(data)), "model": "stub-embedder"})

    async def _echo(self, record: Recorded, send: Send) -> None:
        await respond(
            send,
            200,
            {
                "object": "echo",
                "method": record.method,
                "path": record.path,
                "query": record.query,
                "body_bytes": len(record.body),
            },
        )

    def start(self) -> UpstreamStub:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        config = uvicorn.Config(self, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self._thread.start()
        _wait_for_port(self.port)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)


async def respond(send: Send, status: int, payload: Any) -> None:
    body = json.dumps(payload).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _wait_for_port(port: int, timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"nothing listening on port {port}")
