"""A minimal keep-alive HTTP/1.1 client for load: one connection per worker, nothing pooled.

httpx's connection pool costs the client more CPU than the proxy under test at high concurrency on
two cores, which would measure the client. This reads Content-Length and chunked bodies, and
timestamps each chunk for streaming figures.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit


@dataclass
class Result:
    status: int
    headers: dict[str, str]
    body: bytes
    started: float
    chunk_times: list[float] = field(default_factory=list)  # perf_counter at each body chunk

    @property
    def elapsed_ms(self) -> float:
        return ((self.chunk_times[-1] if self.chunk_times else self.started) - self.started) * 1000


class Connection:
    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.path = parts.path or "/"
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None or self._writer.is_closing():
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        return self._reader, self._writer

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()

    async def post(self, body: bytes, headers: dict[str, str]) -> Result:
        reused = self._writer is not None and not self._writer.is_closing()
        try:
            return await self._post(body, headers)
        except (ConnectionError, asyncio.IncompleteReadError):
            if not reused:
                raise
            # The server closed an idle keep-alive connection (uvicorn does after 5 s): reconnect
            # once, as any HTTP client does.
            self._reader = self._writer = None
            return await self._post(body, headers)

    async def _post(self, body: bytes, headers: dict[str, str]) -> Result:
        reader, writer = await self._connect()
        lines = [
            f"POST {self.path} HTTP/1.1",
            f"host: {self.host}:{self.port}",
            "content-type: application/json",
            f"content-length: {len(body)}",
            *(f"{k}: {v}" for k, v in headers.items()),
            "",
            "",
        ]
        started = time.perf_counter()
        writer.write("\r\n".join(lines).encode() + body)
        status_line = await reader.readline()
        if not status_line:
            self._reader = self._writer = None
            raise ConnectionError("server closed the connection")
        status = int(status_line.split()[1])
        response_headers: dict[str, str] = {}
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            response_headers[name.strip().lower()] = value.strip()
        result = Result(status, response_headers, b"", started)
        chunks: list[bytes] = []
        if "content-length" in response_headers:
            chunks.append(await reader.readexactly(int(response_headers["content-length"])))
            result.chunk_times.append(time.perf_counter())
        else:
            while True:
                size = int((await reader.readline()).strip(), 16)
                if size == 0:
                    await reader.readline()
                    break
                chunks.append(await reader.readexactly(size))
                await reader.readexactly(2)
                result.chunk_times.append(time.perf_counter())
        result.body = b"".join(chunks)
        if response_headers.get("connection", "").lower() == "close":
            writer.close()
            self._reader = self._writer = None
        return result
