"""The MCP tools over streamable HTTP, mounted on Mnemo's own app at ``/mcp``.

The SDK's session manager runs stateless (a fresh transport per request, JSON answers), so any
of several proxies behind a balancer can answer any call, as for the LLM routes. Before a request
reaches it, the caller is decided as for the proxy: the principal from the same key headers
(``X-Mnemo-Key``, or the bearer when the policy says so; a wrong key is a 401 with a JSON-RPC
error, and reaches nothing), the scope from ``X-Mnemo-Project``/``-User``/``-Session`` (a project
or user the key may not use is a 403), and ``X-Mnemo-Mode``. Host and Origin are checked by
Mnemo's ``HostGuard``, so the SDK's own DNS-rebinding check is off.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from litestar import Litestar, asgi
from litestar.datastructures import Headers
from litestar.types import HTTPResponseBodyEvent, HTTPResponseStartEvent, Receive, Scope, Send
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings

from core.errors import BadRequest
from core.scope import Mode
from proxy.auth import authenticate
from proxy.lifespan import Services
from proxy.mcp.local import Caller, Extractors, LocalBackend
from proxy.mcp.tools import PATH, Backend, BackendFor, build_server
from proxy.routes.common import scope_for, scope_inputs

REFUSED = -32001  # JSON-RPC server error: the caller is not let in
_CALLER = "mnemo_mcp_caller"  # where the mount leaves the caller, in the request's ASGI state


def caller_of(headers: Mapping[str, str], services: Services) -> Caller:
    """The proxy's principal and scope for these headers (401, 403 as ``BadRequest``s)."""
    principal = authenticate(headers, services.policy)
    scope = scope_for(principal, scope_inputs(headers, None, None, None))
    return Caller(principal=principal, scope=scope, mode=Mode.parse(headers.get("x-mnemo-mode")))


@asgi(PATH, is_mount=True, copy_scope=True)
async def mcp_endpoint(scope: Scope, receive: Receive, send: Send) -> None:
    """Streamable HTTP for MCP clients: the caller first, then the SDK's session manager."""
    app = scope["app"]
    services: Services = app.state.services
    try:
        caller = caller_of(Headers.from_scope(scope), services)
    except BadRequest as exc:
        await _refuse(send, exc)
        return
    state: dict[str, Any] = scope.setdefault("state", {})
    state[_CALLER] = caller
    await app.state.mcp_sessions.handle_request(scope, receive, send)


async def _refuse(send: Send, exc: BadRequest) -> None:
    """A refusal in the MCP client's own shape: a JSON-RPC error (the SDK shows its message), at
    the HTTP status the proxy gives (401 no or unknown key, 403 not this key's, 400 bad header)."""
    body = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": REFUSED,
            "message": exc.message,
            "data": {"status": exc.status_code, "param": exc.param},
        },
    }
    payload = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
    start: HTTPResponseStartEvent = {
        "type": "http.response.start",
        "status": exc.status_code,
        "headers": headers,
    }
    await send(start)
    done: HTTPResponseBodyEvent = {"type": "http.response.body", "body": payload, "more_body": False}
    await send(done)


def _backend(app: Litestar, extractors: Extractors) -> BackendFor:
    """Each call's backend: the app's services, for the caller the mount let in."""

    def backend_for(ctx: Context) -> Backend:
        request = ctx.request_context.request
        caller = getattr(request, "scope", {}).get("state", {}).get(_CALLER)
        if not isinstance(caller, Caller):
            raise ToolError("no caller: this server's tools are reached through Mnemo's /mcp only")
        return LocalBackend(app.state.services, caller, extractors)

    return backend_for


@asynccontextmanager
async def mcp_lifespan(app: Litestar) -> AsyncIterator[None]:
    """Run the SDK's session manager for the app's life (after ``services_lifespan``: it needs the
    services); a new server and manager each time, as a manager runs only once."""
    services: Services = app.state.services
    server = build_server(_backend(app, Extractors(services.extractor)), version=_version())
    server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        max_request_body_size=services.settings.max_body_bytes,
    )
    logging.getLogger("mcp").setLevel(logging.WARNING)  # one INFO line per request otherwise
    async with server.session_manager.run():
        app.state.mcp_sessions = server.session_manager
        yield


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mnemo-proxy")
    except PackageNotFoundError:
        return ""
