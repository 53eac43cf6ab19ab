"""Anthropic Messages (used by Claude Code): what Mnemo reads from a request, where memory goes,
and how a streamed reply is reassembled (DESIGN §8, §9)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.errors import BadRequest
from extractors import Turn, clean_text
from proxy.wire.api import WireApi, anthropic_base, count_messages, earlier_user_turns, stream_flag
from proxy.wire.common import item_hashes, json_object
from proxy.wire.sse import SSEParser


def parse_request(raw: bytes) -> dict[str, Any]:
    body = json_object(raw)
    messages = body.get("messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise BadRequest("messages: must be a list of message objects", param="messages")
    system = body.get("system")
    if system is not None and not isinstance(system, str | list):
        raise BadRequest("system: must be a string or a list of blocks", param="system")
    return body


def _text_of(content: Any) -> str:
    """Text blocks only: tool results, tool calls, images and thinking are not the user's words."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            block["text"]
            for block in content
            if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
        )
    return ""


def system_text(body: dict[str, Any]) -> str:
    return _text_of(body.get("system"))


def latest_user_turns(body: dict[str, Any]) -> list[Turn]:
    messages: list[dict[str, Any]] = body["messages"]
    turns: list[Turn] = []
    for index in range(len(messages) - 1, -1, -1):
        role = messages[index].get("role")
        if role == "assistant":
            break
        if role == "user":
            text = _text_of(messages[index].get("content"))
            if text.strip():
                turns.append(Turn(role="user", text=text, index=index))
    return list(reversed(turns))


def previous_reply(body: dict[str, Any], first_new_index: int) -> Turn | None:
    if first_new_index > 0:
        message = body["messages"][first_new_index - 1]
        if message.get("role") == "assistant":
            return Turn(role="context", text=_text_of(message.get("content")), index=first_new_index - 1)
    return None


def earlier_turns(body: dict[str, Any], before: int) -> list[Turn]:
    messages = [(str(m.get("role")), _text_of(m.get("content"))) for m in body["messages"]]
    return earlier_user_turns(messages, before)


def recall_text(body: dict[str, Any], max_chars: int = 1000) -> str:
    text = " ".join(clean_text(turn.text) for turn in latest_user_turns(body)).strip()
    return text[-max_chars:]


def conversation_opening(body: dict[str, Any]) -> str:
    first_user: dict[str, Any] = next((m for m in body["messages"] if m.get("role") == "user"), {})
    return f"system:{system_text(body)}\nuser:{_text_of(first_user.get('content'))}"


def inject(body: dict[str, Any], block: str, placement: str = "after_system") -> dict[str, Any]:
    """Memory goes after the client's ``system``: appended as one more text block after the client's
    blocks (which reach the provider byte-identical and in place, ``cache_control`` and all), or
    after a string system; ``before_last_user`` puts it as a text block at the start of the last
    user message instead."""
    if placement == "before_last_user":
        messages = list(body["messages"])
        for index in range(len(messages) - 1, -1, -1):
            if messages[index].get("role") == "user":
                content = messages[index].get("content")
                blocks = (
                    [{"type": "text", "text": content}] if isinstance(content, str) else list(content or [])
                )
                messages[index] = {**messages[index], "content": [{"type": "text", "text": block}, *blocks]}
                return {**body, "messages": messages}
    system = body.get("system")
    if isinstance(system, list):
        return {**body, "system": [*system, {"type": "text", "text": block}]}
    if isinstance(system, str) and system:
        return {**body, "system": f"{system}\n\n{block}"}
    return {**body, "system": block}


def body_user(body: dict[str, Any]) -> str | None:
    """``metadata.user_id``: Claude Code sends a JSON string with the account and device."""
    metadata = body.get("metadata")
    raw = metadata.get("user_id") if isinstance(metadata, dict) else None
    if not isinstance(raw, str) or not raw:
        return None
    try:
        parsed = json.loads(raw)
    except json.JSONDecodeError:
        return raw
    if isinstance(parsed, dict):
        for name in ("account_uuid", "device_id"):
            if isinstance(parsed.get(name), str) and parsed[name]:
                return str(parsed[name])
    return raw


def client_session(headers: Mapping[str, str], body: dict[str, Any]) -> str | None:
    session = headers.get("x-claude-code-session-id")
    if session:
        return session
    metadata = body.get("metadata")
    raw = metadata.get("user_id") if isinstance(metadata, dict) else None
    try:
        parsed = json.loads(raw) if isinstance(raw, str) else None
    except json.JSONDecodeError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("session_id"), str):
        return str(parsed["session_id"])
    return None


def message_hashes(body: dict[str, Any], indexes: list[int]) -> dict[int, str]:
    return item_hashes(body["messages"], indexes)


def reply_of(raw: bytes) -> tuple[str, str | None]:
    try:
        payload = json.loads(raw)
        return _text_of(payload.get("content")), payload.get("model")
    except (ValueError, AttributeError):
        return "", None


@dataclass(slots=True)
class ContentBlock:
    type: str
    text: str = ""
    tool_id: str | None = None
    tool_name: str | None = None
    input_json: str = ""


@dataclass(slots=True)
class MessagesStreamAssembler:
    """Reassembles content blocks (text, tool_use input JSON, thinking) from the relayed events."""

    parser: SSEParser = field(default_factory=SSEParser)
    blocks: dict[int, ContentBlock] = field(default_factory=dict)
    finished: bool = False
    model: str | None = None

    def feed(self, chunk: bytes) -> None:
        for event in self.parser.feed(chunk):
            try:
                payload = json.loads(event.data) if event.data else {}
            except json.JSONDecodeError:
                continue
            if isinstance(payload, dict):
                self._apply(event.event or payload.get("type", ""), payload)

    def _apply(self, name: str, payload: dict[str, Any]) -> None:
        if name == "message_start":
            self.model = (payload.get("message") or {}).get("model", self.model)
        elif name == "content_block_start":
            start = payload.get("content_block") or {}
            self.blocks[int(payload.get("index", 0))] = ContentBlock(
                type=start.get("type", "text"),
                text=start.get("text", "") or "",
                tool_id=start.get("id"),
                tool_name=start.get("name"),
            )
        elif name == "content_block_delta":
            block = self.blocks.setdefault(int(payload.get("index", 0)), ContentBlock(type="text"))
            delta = payload.get("delta") or {}
            if delta.get("type") == "text_delta":
                block.text += delta.get("text", "")
            elif delta.get("type") == "input_json_delta":
                block.input_json += delta.get("partial_json", "")
            elif delta.get("type") == "thinking_delta":
                block.text += delta.get("thinking", "")
        elif name == "message_stop":
            self.finished = True

    @property
    def reply(self) -> str:
        return "".join(b.text for _, b in sorted(self.blocks.items()) if b.type == "text")


ANTHROPIC_MESSAGES = WireApi(
    name="anthropic.messages",
    shape="anthropic",
    base_url=anthropic_base,
    path="v1/messages",
    parse=parse_request,
    latest_user_turns=latest_user_turns,
    previous_reply=previous_reply,
    earlier_user_turns=earlier_turns,
    recall_text=recall_text,
    agent_prompt=system_text,
    conversation_opening=conversation_opening,
    body_user=body_user,
    client_session=client_session,
    inject=inject,
    is_streaming=stream_flag,
    assembler=MessagesStreamAssembler,
    reply_of=reply_of,
    message_count=count_messages,
    message_hashes=message_hashes,
)
