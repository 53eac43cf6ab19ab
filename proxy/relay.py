"""Forwarding to the provider and streaming the answer back, byte for byte (DESIGN §7, §8).

The upstream response is opened with ``send(stream=True)`` and closed by the relaying
generator's ``finally``: a client that disconnects closes the upstream request too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass

import httpx

from core.errors import MnemoError
from proxy.wire.errors import ApiShape, stream_error_frame

log = logging.getLogger("mnemo.relay")

HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)
# The ASGI server writes its own; forwarding the upstream's would send them twice.
_SERVER_SET = frozenset({"date", "server"})
_MNEMO_PREFIX = "x-mnemo-"


class UpstreamError(MnemoError):
    """The provider could not be reached or did not answer in time."""

    def __init__(self, message: str, status_code: int) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = status_code


@dataclass(frozen=True, slots=True)
class UpstreamRequest:
    method: str
    url: str
    headers: dict[str, str]
    content: bytes | AsyncIterator[bytes] | None = None


def request_headers(incoming: Mapping[str, str], *, identity_encoding: bool = False) -> dict[str, str]:
    """The client's headers minus hop-by-hop ones and Mnemo's own (never sent upstream)."""
    headers = {
        name: value
        for name, value in incoming.items()
        if name.lower() not in HOP_BY_HOP and not name.lower().startswith(_MNEMO_PREFIX)
    }
    if identity_encoding:
        # Learning reads the reply, so ask for it uncompressed; the client still gets the same bytes.
        headers = {k: v for k, v in headers.items() if k.lower() != "accept-encoding"}
        headers["accept-encoding"] = "identity"
    return headers


def response_headers(upstream: httpx.Response, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Upstream headers to send back; content-type travels as the response's media type."""
    headers = {
        name: value
        for name, value in upstream.headers.items()
        if name.lower() not in HOP_BY_HOP
        and name.lower() not in _SERVER_SET
        and name.lower() != "content-type"
        and not name.lower().startswith("access-control-")  # no CORS grant ever leaves Mnemo
    }
    headers.update(extra or {})
    return headers


def upstream_url(base: str, path: str, query: str) -> str:
    url = f"{base.rstrip('/')}/{path.lstrip('/')}"
    return f"{url}?{query}" if query else url


async def open_upstream(
    client: httpx.AsyncClient, request: UpstreamRequest, first_byte_timeout_s: float | None = None
) -> httpx.Response:
    """Send and wait for the status line and headers (at most ``first_byte_timeout_s``); the body
    stays unread."""
    outgoing = client.build_request(
        request.method, request.url, headers=request.headers, content=request.content
    )
    try:
        async with asyncio.timeout(first_byte_timeout_s):
            return await client.send(outgoing, stream=True)
    except TimeoutError as exc:
        raise UpstreamError(
            f"upstream did not start answering within {first_byte_timeout_s:g} s", 504
        ) from exc
    except httpx.TimeoutException as exc:
        raise UpstreamError(f"upstream did not answer in time ({type(exc).__name__})", 504) from exc
    except httpx.HTTPError as exc:
        raise UpstreamError(f"upstream unreachable: {exc}", 502) from exc


async def read_body(upstream: httpx.Response, deadline: float | None) -> bytes:
    """The whole (non-streamed) body, by the ``deadline`` (event-loop time) or a 504."""
    try:
        async with asyncio.timeout_at(deadline):
            return await upstream.aread()
    except TimeoutError as exc:
        raise UpstreamError("upstream did not finish its answer in time", 504) from exc
    except httpx.TimeoutException as exc:
        raise UpstreamError(f"upstream stalled ({type(exc).__name__})", 504) from exc
    except httpx.HTTPError as exc:
        raise UpstreamError(f"upstream broke off: {exc}", 502) from exc
    finally:
        await upstream.aclose()


async def relay_body(
    upstream: httpx.Response,
    shape: ApiShape,
    tee: Callable[[bytes], None] | None = None,
    on_close: Callable[[bool], None] | None = None,
    deadline: float | None = None,
) -> AsyncIterator[bytes]:
    """Yield the upstream's bytes as they arrive, feeding a copy to ``tee``.

    ``on_close(exhausted)`` runs however the relay ends (a client that disconnects included);
    ``exhausted`` says whether the whole upstream body went through. Past ``deadline`` (event-loop
    time) the stream ends with an error event in the API's shape: headers went out long ago.
    """
    exhausted = False
    chunks = upstream.aiter_raw().__aiter__()
    loop = asyncio.get_running_loop()
    try:
        while True:
            try:
                if deadline is None:
                    chunk = await chunks.__anext__()
                else:
                    chunk = await asyncio.wait_for(chunks.__anext__(), max(0.0, deadline - loop.time()))
            except StopAsyncIteration:
                break
            except TimeoutError:
                yield stream_error_frame(shape, 504, "upstream did not finish its answer in time")
                return
            if tee is not None:
                tee(chunk)
            yield chunk
        exhausted = True
    except httpx.HTTPError as exc:
        log.warning("upstream stream broke: %s", exc)
        yield stream_error_frame(shape, 502, f"upstream stream broke: {exc}")
    finally:
        await upstream.aclose()
        if on_close is not None:
            on_close(exhausted)
