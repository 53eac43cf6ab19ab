"""OpenAI Chat Completions: what Mnemo reads from a request, where it puts memory, and how it
reassembles a streamed reply (DESIGN §8)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.errors import BadRequest
from extractors import Turn, clean_text
from proxy.wire.api import WireApi, count_messages, earlier_user_turns, openai_base
from proxy.wire.common import item_hashes, json_object
from proxy.wire.sse import SSEParser

_LEADING_ROLES = ("system", "developer")


def parse_request(raw: bytes) -> dict[str, Any]:
    body = json_object(raw)
    messages = body.get("messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise BadRequest("'messages' must be a list of message objects", param="messages")
    return body


def message_text(message: dict[str, Any]) -> str:
    """The text of a message: a string, or the text parts of a content list."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            p.get("text", "")
            for p in content
            if isinstance(p, dict) and p.get("type") in ("text", "input_text")
        ]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


def latest_user_turns(body: dict[str, Any]) -> list[Turn]:
    """The user messages after the last assistant message: what is new in this request.

    Earlier turns were learned from when they were new; system, developer and tool text is
    never learned from.
    """
    messages: list[dict[str, Any]] = body["messages"]
    turns: list[Turn] = []
    for index in range(len(messages) - 1, -1, -1):
        role = messages[index].get("role")
        if role == "assistant":
            break
        if role == "user":
            turns.append(Turn(role="user", text=message_text(messages[index]), index=index))
    return list(reversed(turns))


def previous_reply(body: dict[str, Any], first_new_index: int) -> Turn | None:
    """The assistant message the new user turns answer, as context (role ``context``)."""
    if first_new_index > 0:
        message = body["messages"][first_new_index - 1]
        if message.get("role") == "assistant":
            return Turn(role="context", text=message_text(message), index=first_new_index - 1)
    return None


def earlier_turns(body: dict[str, Any], before: int) -> list[Turn]:
    messages = [(str(m.get("role")), message_text(m)) for m in body["messages"]]
    return earlier_user_turns(messages, before)


def message_hashes(body: dict[str, Any], indexes: list[int]) -> dict[int, str]:
    return item_hashes(body["messages"], indexes)


def recall_text(body: dict[str, Any], max_chars: int = 1000) -> str:
    """The query for recall: the latest user turn(s), without any memory block they echo back."""
    text = " ".join(clean_text(turn.text) for turn in latest_user_turns(body)).strip()
    return text[-max_chars:]


def agent_prompt(body: dict[str, Any]) -> str:
    """The client's own leading system and developer text (where agents describe their workspace)."""
    parts: list[str] = []
    for message in body["messages"]:
        if message.get("role") not in _LEADING_ROLES:
            break
        parts.append(message_text(message))
    return "\n".join(parts)


def conversation_opening(body: dict[str, Any]) -> str:
    """System prompt plus first user message: the same on every turn of one conversation."""
    messages: list[dict[str, Any]] = body["messages"]
    parts: list[str] = []
    for message in messages:
        parts.append(f"{message.get('role')}:{message_text(message)}")
        if message.get("role") == "user":
            break
    return "\n".join(parts)


def inject(body: dict[str, Any], block: str, placement: str = "after_system") -> dict[str, Any]:
    """A new message with the block: after the client's leading system/developer messages (the
    default, which keeps the client's prefix and the provider's prompt cache intact), or right
    before the last user message (``before_last_user``, closest to the question).

    The client's own messages are not touched.
    """
    messages: list[dict[str, Any]] = body["messages"]
    leading = 0
    while leading < len(messages) and messages[leading].get("role") in _LEADING_ROLES:
        leading += 1
    position = leading
    if placement == "before_last_user":
        users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
        position = max(users[-1], leading) if users else leading
    role = messages[leading - 1]["role"] if leading else "system"
    memory_message = {"role": role, "content": block}
    return {**body, "messages": [*messages[:position], memory_message, *messages[position:]]}


def is_streaming(body: dict[str, Any]) -> bool:
    return body.get("stream") is True


@dataclass(slots=True)
class ToolCall:
    id: str | None = None
    name: str | None = None
    arguments: str = ""


@dataclass(slots=True)
class ChatStreamAssembler:
    """Reassembles a streamed chat completion from the relayed bytes, for learning."""

    parser: SSEParser = field(default_factory=SSEParser)
    text: list[str] = field(default_factory=list)
    tool_calls: dict[int, ToolCall] = field(default_factory=dict)
    finished: bool = False
    model: str | None = None

    def feed(self, chunk: bytes) -> None:
        for event in self.parser.feed(chunk):
            if event.data == "[DONE]":
                self.finished = True
                continue
            try:
                payload = json.loads(event.data)
            except json.JSONDecodeError:
                continue
            if isinstance(payload, dict):
                self._apply(payload)

    def _apply(self, payload: dict[str, Any]) -> None:
        self.model = payload.get("model", self.model)
        for choice in payload.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                self.text.append(delta["content"])
            for call in delta.get("tool_calls") or []:
                slot = self.tool_calls.setdefault(int(call.get("index", 0)), ToolCall())
                slot.id = slot.id or call.get("id")
                function = call.get("function") or {}
                slot.name = slot.name or function.get("name")
                slot.arguments += function.get("arguments") or ""

    @property
    def reply(self) -> str:
        return "".join(self.text)


def reply_from_completion(raw: bytes) -> tuple[str, str | None]:
    """Text and model of a non-streamed completion; empty if the body is not one."""
    try:
        payload = json.loads(raw)
        message = payload["choices"][0]["message"]
        return (message.get("content") or "", payload.get("model"))
    except (ValueError, KeyError, IndexError, TypeError):
        return "", None


def body_user(body: dict[str, Any]) -> str | None:
    user = body.get("user")
    return user if isinstance(user, str) else None


def no_client_session(headers: Mapping[str, str], body: dict[str, Any]) -> str | None:
    return None  # Chat Completions clients send none of their own


OPENAI_CHAT = WireApi(
    name="openai.chat",
    shape="openai",
    base_url=openai_base,
    path="chat/completions",
    parse=parse_request,
    latest_user_turns=latest_user_turns,
    previous_reply=previous_reply,
    earlier_user_turns=earlier_turns,
    recall_text=recall_text,
    agent_prompt=agent_prompt,
    conversation_opening=conversation_opening,
    body_user=body_user,
    client_session=no_client_session,
    inject=inject,
    is_streaming=is_streaming,
    assembler=ChatStreamAssembler,
    reply_of=reply_from_completion,
    message_count=count_messages,
    message_hashes=message_hashes,
)
