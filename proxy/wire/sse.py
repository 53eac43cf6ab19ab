"""An incremental Server-Sent Events parser: bytes in, complete events out."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# A line ends at CRLF, LF or a lone CR (the SSE spec allows all three).
_LINE_END = re.compile(rb"\r\n|\n|\r")


@dataclass(frozen=True, slots=True)
class SSEEvent:
    event: str | None
    data: str


@dataclass(slots=True)
class SSEParser:
    """Feed raw bytes as they arrive, split anywhere; get the events they complete.

    A CR that ends what has arrived ends its line at once (a stream may use lone CRs), and an LF
    that opens the next chunk is then the second half of that CRLF, not an empty line: read as one,
    it would end the event early, or two events would merge."""

    _buffer: bytes = b""
    _lines: list[bytes] = field(default_factory=list)
    _after_cr: bool = False

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        if self._after_cr and chunk:
            chunk = chunk.removeprefix(b"\n")
            self._after_cr = False
        self._buffer += chunk
        events: list[SSEEvent] = []
        start = 0
        for match in _LINE_END.finditer(self._buffer):
            line = self._buffer[start : match.start()]
            start = match.end()
            self._after_cr = match.group() == b"\r" and start == len(self._buffer)
            if line:
                self._lines.append(line)
                continue
            event = _parse_frame(self._lines)
            self._lines = []
            if event is not None:
                events.append(event)
        self._buffer = self._buffer[start:]
        return events


def _parse_frame(lines: list[bytes]) -> SSEEvent | None:
    name: str | None = None
    data: list[str] = []
    for raw in lines:
        line = raw.decode("utf-8", errors="replace")
        if line.startswith(":"):
            continue
        field_name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field_name == "event":
            name = value
        elif field_name == "data":
            data.append(value)
    if name is None and not data:
        return None
    return SSEEvent(event=name, data="\n".join(data))
