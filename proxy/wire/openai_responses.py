"""OpenAI Responses (used by Codex): what Mnemo reads from a request, where memory goes, and how a
streamed reply is reassembled (DESIGN §8, §9)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.errors import BadRequest
from extractors import Turn, clean_text
from proxy.wire.api import WireApi, earlier_user_turns, openai_base, stream_flag
from proxy.wire.common import item_hashes, json_object
from proxy.wire.sse import SSEParser

_LEADING_ROLES = ("system", "developer")
# Items an agent adds in the user's role that are not the user's words (Codex's workspace notes).
_AGENT_CONTEXT = ("<environment_context", "<user_instructions", "<permissions", "<turn_context")


def parse_request(raw: bytes) -> dict[str, Any]:
    body = json_object(raw)
    given = body.get("input")
    if given is not None and not isinstance(given, str | list):
        raise BadRequest("'input' must be a string or a list of items", param="input")
    if isinstance(given, list) and not all(isinstance(item, dict) for item in given):
        raise BadRequest("'input' items must be objects", param="input")
    return body


def items(body: dict[str, Any]) -> list[dict[str, Any]]:
    given = body.get("input")
    if isinstance(given, str):
        return [{"type": "message", "role": "user", "content": given}]
    return list(given or [])


def _text_of(item: dict[str, Any]) -> str:
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part["text"]
            for part in content
            if isinstance(part, dict)
            and part.get("type") in ("input_text", "output_text", "text")
            and isinstance(part.get("text"), str)
        )
    return ""


def _is_message(item: dict[str, Any], role: str) -> bool:
    return item.get("type", "message") == "message" and item.get("role") == role


def _is_agent_context(text: str) -> bool:
    return text.lstrip().startswith(_AGENT_CONTEXT)


def latest_user_turns(body: dict[str, Any]) -> list[Turn]:
    listed = items(body)
    turns: list[Turn] = []
    for index in range(len(listed) - 1, -1, -1):
        item = listed[index]
        if _is_message(item, "assistant"):
            break
        if _is_message(item, "user"):
            text = _text_of(item)
            if text.strip() and not _is_agent_context(text):
                turns.append(Turn(role="user", text=text, index=index))
    return list(reversed(turns))


def previous_reply(body: dict[str, Any], first_new_index: int) -> Turn | None:
    listed = items(body)
    if first_new_index > 0 and _is_message(listed[first_new_index - 1], "assistant"):
        return Turn(role="context", text=_text_of(listed[first_new_index - 1]), index=first_new_index - 1)
    return None


def earlier_turns(body: dict[str, Any], before: int) -> list[Turn]:
    messages = [
        ("user" if _is_message(i, "user") and not _is_agent_context(_text_of(i)) else "other", _text_of(i))
        for i in items(body)
    ]
    return earlier_user_turns(messages, before)


def recall_text(body: dict[str, Any], max_chars: int = 1000) -> str:
    text = " ".join(clean_text(turn.text) for turn in latest_user_turns(body)).strip()
    return text[-max_chars:]


def agent_prompt(body: dict[str, Any]) -> str:
    """Instructions, leading developer/system items and the agent's context items (cwd, remotes)."""
    parts = [body["instructions"]] if isinstance(body.get("instructions"), str) else []
    for item in items(body):
        text = _text_of(item)
        if item.get("role") in _LEADING_ROLES or (item.get("role") == "user" and _is_agent_context(text)):
            parts.append(text)
    metadata = body.get("client_metadata")
    if isinstance(metadata, dict):
        parts.append(json.dumps(metadata))
    return "\n".join(parts)


def conversation_opening(body: dict[str, Any]) -> str:
    first = next(
        (i for i in items(body) if _is_message(i, "user") and not _is_agent_context(_text_of(i))), {}
    )
    return f"instructions:{body.get('instructions') or ''}\nuser:{_text_of(first)}"


def inject(body: dict[str, Any], block: str, placement: str = "after_system") -> dict[str, Any]:
    """With ``instructions``, memory is appended to them; otherwise a developer item goes after the
    leading developer/system items (Codex sends its prompt that way), or before the last user item
    (``before_last_user``). The client's items are not changed."""
    given = body.get("input")
    if isinstance(body.get("instructions"), str) and body["instructions"] and placement != "before_last_user":
        return {**body, "instructions": f"{body['instructions']}\n\n{block}"}
    listed = items(body)
    memory = {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": block}]}
    position = 0
    while position < len(listed) and listed[position].get("role") in _LEADING_ROLES:
        position += 1
    if placement == "before_last_user":
        users = [i for i, item in enumerate(listed) if _is_message(item, "user")]
        position = max(users[-1], position) if users else position
    if isinstance(given, str):
        return {**body, "input": [memory, *listed]}
    return {**body, "input": [*listed[:position], memory, *listed[position:]]}


def body_user(body: dict[str, Any]) -> str | None:
    user = body.get("user") or body.get("safety_identifier")
    return user if isinstance(user, str) else None


def client_session(headers: Mapping[str, str], body: dict[str, Any]) -> str | None:
    return headers.get("session-id") or headers.get("session_id") or None


def message_hashes(body: dict[str, Any], indexes: list[int]) -> dict[int, str]:
    return item_hashes(items(body), indexes)


def _output_text(response: dict[str, Any]) -> str:
    texts = []
    for item in response.get("output") or []:
        if isinstance(item, dict) and item.get("type") == "message":
            texts.append(_text_of(item))
    return "".join(texts)


def reply_of(raw: bytes) -> tuple[str, str | None]:
    try:
        payload = json.loads(raw)
        return _output_text(payload), payload.get("model")
    except (ValueError, AttributeError):
        return "", None


@dataclass(slots=True)
class ResponsesStreamAssembler:
    """Output text from ``response.output_text.delta``; the final output items from ``response.completed``."""

    parser: SSEParser = field(default_factory=SSEParser)
    text: list[str] = field(default_factory=list)
    final_text: str | None = None
    finished: bool = False
    model: str | None = None

    def feed(self, chunk: bytes) -> None:
        for event in self.parser.feed(chunk):
            try:
                payload = json.loads(event.data) if event.data else {}
            except json.JSONDecodeError:
                continue
            if not isinstance(payload, dict):
                continue
            name = event.event or payload.get("type", "")
            if name == "response.output_text.delta" and isinstance(payload.get("delta"), str):
                self.text.append(payload["delta"])
            elif name in ("response.created", "response.completed"):
                response = payload.get("response") or {}
                self.model = response.get("model", self.model)
                if name == "response.completed":
                    self.finished = True
                    self.final_text = _output_text(response) or None

    @property
    def reply(self) -> str:
        return self.final_text if self.final_text is not None else "".join(self.text)


def message_count(body: dict[str, Any]) -> int:
    return len(items(body))


OPENAI_RESPONSES = WireApi(
    name="openai.responses",
    shape="openai",
    base_url=openai_base,
    path="responses",
    parse=parse_request,
    latest_user_turns=latest_user_turns,
    previous_reply=previous_reply,
    earlier_user_turns=earlier_turns,
    recall_text=recall_text,
    agent_prompt=agent_prompt,
    conversation_opening=conversation_opening,
    body_user=body_user,
    client_session=client_session,
    inject=inject,
    is_streaming=stream_flag,
    assembler=ResponsesStreamAssembler,
    reply_of=reply_of,
    message_count=message_count,
    message_hashes=message_hashes,
)
