"""`mnemo mcp` over stdio: the same tools, each call forwarded to a running server's ``/mcp``.

The server decides everything (who the key is, the scope, the policy, the store); this process
holds no store and no model, so it starts fast and any MCP client can spawn it. One connection per
call: the server is stateless, and a server restarted between two calls is simply reached again.
"""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent

from proxy.mcp.tools import PATH, Backend, build_server

TIMEOUT_S = 60.0  # remember reads the text with the extractor on the server


class RemoteBackend:
    """The tools of the server at ``url``, called with ``headers`` (key and scope)."""

    def __init__(self, url: str, headers: dict[str, str]) -> None:
        self.endpoint = url.rstrip("/") + PATH
        self.headers = headers

    async def search(self, query: str, limit: int) -> dict[str, Any]:
        return await self._call("search_memories", {"query": query, "limit": limit})

    async def show(self, memory_id: str) -> dict[str, Any]:
        return await self._call("show_memory", {"memory_id": memory_id})

    async def remember(self, text: str) -> dict[str, Any]:
        return await self._call("remember", {"text": text})

    async def forget(self, memory_id: str | None, about: str | None) -> dict[str, Any]:
        arguments = {"memory_id": memory_id} if memory_id is not None else {"about": about}
        return await self._call("forget", arguments)

    async def _call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        http = httpx2.AsyncClient(headers=self.headers, timeout=httpx2.Timeout(TIMEOUT_S, connect=5.0))
        try:
            async with http, Client(streamable_http_client(self.endpoint, http_client=http)) as client:
                result = await client.call_tool(tool, arguments)
        except Exception as exc:  # the SDK's transport and protocol errors have no common base
            raise ToolError(f"Mnemo at {self.endpoint}: {_reason(exc)}") from exc
        return _answer(result)


def _answer(result: CallToolResult) -> dict[str, Any]:
    text = "\n".join(block.text for block in result.content if isinstance(block, TextContent))
    if result.is_error:
        raise ToolError(text.removeprefix("Error executing tool ").partition(": ")[2] or text)
    if isinstance(result.structured_content, dict):
        return result.structured_content
    answer: dict[str, Any] = json.loads(text)
    return answer


def _reason(exc: BaseException) -> str:
    """The first cause worth reading, out of the task groups the SDK raises through."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, httpx2.HTTPStatusError):
        try:
            message = exc.response.json()["error"]["message"]
        except Exception:
            message = exc.response.text[:200]
        return f"{exc.response.status_code} {message}"
    return str(exc) or type(exc).__name__


def serve_stdio(url: str, headers: dict[str, str]) -> None:
    """Serve the tools on stdin/stdout until the client closes them."""
    remote = RemoteBackend(url, headers)

    def backend_for(_: Context) -> Backend:
        return remote

    server = build_server(backend_for)
    anyio.run(server.run_stdio_async)
