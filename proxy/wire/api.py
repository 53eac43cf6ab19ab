"""What the memory relay needs to know of an API: one small adapter per wire format."""

from __future__ import annotations

from collections.abc import Mapping
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


class WireApi(Protocol):
    name: str  # recorded on each job: "openai.chat", "anthropic.messages"
    shape: ApiShape  # errors go out in this API's own shape

    def upstream(self, settings: Settings) -> tuple[str, str]:
        """(base URL, path) of the provider endpoint."""
        ...

    def parse(self, raw: bytes) -> dict[str, Any]: ...

    def latest_user_turns(self, body: dict[str, Any]) -> list[Turn]: ...

    def previous_reply(self, body: dict[str, Any], first_new_index: int) -> Turn | None: ...

    def earlier_user_turns(self, body: dict[str, Any], before: int) -> list[Turn]:
        """The user's own messages earlier in the conversation (role ``earlier``): read only to know
        what a correction ("sorry, I meant Utrecht") corrects."""
        ...

    def recall_text(self, body: dict[str, Any]) -> str: ...

    def agent_prompt(self, body: dict[str, Any]) -> str: ...

    def conversation_opening(self, body: dict[str, Any]) -> str: ...

    def body_user(self, body: dict[str, Any]) -> str | None: ...

    def client_session(self, headers: Mapping[str, str], body: dict[str, Any]) -> str | None:
        """A session id the client itself sends (Claude Code, Codex), if any."""
        ...

    def inject(self, body: dict[str, Any], block: str, placement: str) -> dict[str, Any]: ...

    def is_streaming(self, body: dict[str, Any]) -> bool: ...

    def assembler(self) -> StreamAssembler: ...

    def reply_of(self, raw: bytes) -> tuple[str, str | None]:
        """Text and model of a non-streamed reply."""
        ...

    def message_count(self, body: dict[str, Any]) -> int: ...

    def message_hashes(self, body: dict[str, Any], indexes: list[int]) -> dict[int, str]: ...


EARLIER_TURNS = 3


def earlier_user_turns(messages: list[tuple[str, str]], before: int) -> list[Turn]:
    """The last few user messages before index ``before``, from (role, text) pairs in order."""
    found = [
        Turn(role="earlier", text=text, index=index)
        for index, (role, text) in enumerate(messages[:before])
        if role == "user" and text.strip()
    ]
    return found[-EARLIER_TURNS:]
