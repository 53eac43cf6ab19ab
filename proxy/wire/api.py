"""What the memory relay needs to know of an API: one small adapter per wire format."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from extractors import Turn
from proxy.settings import Settings
from proxy.wire.errors import ApiShape


class StreamAssembler(Protocol):
    """Rebuilds the reply from the relayed stream's bytes, for learning."""

    finished: bool
    model: str | None

    def feed(self, chunk: bytes) -> None: ...

    @property
    def reply(self) -> str: ...


Body = dict[str, Any]


@dataclass(frozen=True, slots=True)
class WireApi:
    """One LLM API as the memory relay sees it: its name, its error shape, where the provider
    serves it, and the functions that read and change its bodies. One instance per API
    (``OPENAI_CHAT``, ``OPENAI_RESPONSES``, ``ANTHROPIC_MESSAGES``)."""

    name: str  # recorded on each job: "openai.chat", "anthropic.messages"
    shape: ApiShape  # errors go out in this API's own shape
    base_url: Callable[[Settings], str]  # the provider's base URL, from the settings
    path: str  # the endpoint under it
    parse: Callable[[bytes], Body]
    latest_user_turns: Callable[[Body], list[Turn]]
    previous_reply: Callable[[Body, int], Turn | None]
    # The user's own messages earlier in the conversation (role ``earlier``): read only to know what
    # a correction ("sorry, I meant Utrecht") corrects.
    earlier_user_turns: Callable[[Body, int], list[Turn]]
    recall_text: Callable[[Body], str]
    agent_prompt: Callable[[Body], str]
    conversation_opening: Callable[[Body], str]
    body_user: Callable[[Body], str | None]
    client_session: Callable[[Mapping[str, str], Body], str | None]  # a session id the client sends
    inject: Callable[[Body, str, str], Body]
    is_streaming: Callable[[Body], bool]
    assembler: Callable[[], StreamAssembler]
    reply_of: Callable[[bytes], tuple[str, str | None]]  # text and model of a non-streamed reply
    message_count: Callable[[Body], int]
    message_hashes: Callable[[Body, list[int]], dict[int, str]]

    def upstream(self, settings: Settings) -> tuple[str, str]:
        """(base URL, path) of the provider endpoint."""
        return self.base_url(settings), self.path


def openai_base(settings: Settings) -> str:
    return settings.upstream_url


def anthropic_base(settings: Settings) -> str:
    return settings.anthropic_upstream_url


def stream_flag(body: Body) -> bool:
    return body.get("stream") is True


def count_messages(body: Body) -> int:
    return len(body["messages"])


EARLIER_TURNS = 3


def earlier_user_turns(messages: list[tuple[str, str]], before: int) -> list[Turn]:
    """The last few user messages before index ``before``, from (role, text) pairs in order."""
    found = [
        Turn(role="earlier", text=text, index=index)
        for index, (role, text) in enumerate(messages[:before])
        if role == "user" and text.strip()
    ]
    return found[-EARLIER_TURNS:]
