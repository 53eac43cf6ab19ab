"""The HTTP server Mnemo runs on: uvicorn with its h11 protocol, plus read deadlines.

uvicorn waits for a request's headers and body as long as a client cares to trickle them, so one
slow client holds a connection, and many hold the server. Here the headers must arrive within
``HEADER_TIMEOUT_S`` of their first byte, and a body may not pause longer than ``BODY_IDLE_S``
between two chunks; a client past either is disconnected.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

HEADER_TIMEOUT_S = 10.0
BODY_IDLE_S = 30.0


class DeadlineH11Protocol(H11Protocol):
    header_timeout_s = HEADER_TIMEOUT_S
    body_idle_s = BODY_IDLE_S

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._read_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm(self.header_timeout_s)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        state = self.conn.their_state
        if state is h11.SEND_BODY:
            self._arm(self.body_idle_s)  # each chunk buys the body another pause
        elif state is h11.IDLE and self.conn.trailing_data[0]:
            if self._read_deadline is None:
                self._arm(self.header_timeout_s)  # a request begun on a kept-alive connection
        else:
            self._disarm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._read_deadline = self.loop.call_later(seconds, self._too_slow)

    def _disarm(self) -> None:
        if self._read_deadline is not None:
            self._read_deadline.cancel()
            self._read_deadline = None

    def _too_slow(self) -> None:
        self._read_deadline = None
        if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing():
            self.transport.close()


def server_config(app: Any, host: str, port: int, log_level: str = "info") -> uvicorn.Config:
    """How Mnemo is served, the same for ``mnemo serve`` and the tests."""
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        log_config=None,  # uvicorn's lines go through Mnemo's handler: one format, text or JSON
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=5,
        http=DeadlineH11Protocol,
    )
