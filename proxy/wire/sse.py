"""An incremental Server-Sent Events parser: bytes in, complete events out."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SSEEvent:
    event: str | None
    data: str


class SSEParser:
    """Feed raw bytes as they arrive; get the events they complete. Handles CRLF and split frames."""

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        self._buffer += chunk.replace(b"\r\n", b"\n")
        events: list[SSEEvent] = []
        while b"\n\n" in self._buffer:
            frame, self._buffer = self._buffer.split(b"\n\n", 1)
            event = _parse_frame(frame.decode("utf-8", errors="replace"))
            if event is not None:
                events.append(event)
        return events


def _parse_frame(frame: str) -> SSEEvent | None:
    name: str | None = None
    data: list[str] = []
    for line in frame.split("\n"):
        if not line or line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "event":
            name = value
        elif field == "data":
            data.append(value)
    if name is None and not data:
        return None
    return SSEEvent(event=name, data="\n".join(data))
