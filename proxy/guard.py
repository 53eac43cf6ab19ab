"""The door before any route: which hosts and browser origins may talk to Mnemo at all.

A local Mnemo holds a user's memory and relays their provider key, so a web page the user happens to
visit must not reach it: not by a cross-site request (a browser sends ``Origin``), not through DNS
rebinding (a foreign ``Host``), not with a form post (management writes need a JSON content type,
which a page cannot send without a CORS preflight, and Mnemo answers none). SDKs and agent CLIs send
no ``Origin`` and a loopback ``Host``, so they pass.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from litestar.types import ASGIApp, HTTPResponseBodyEvent, HTTPResponseStartEvent, Receive, Scope, Send

from proxy.wire.errors import ApiShape, error_bytes

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]", "localhost.localdomain"})
_ANY_ADDRESS = frozenset({"0.0.0.0", "::", "[::]", ""})
# a management write must say it is JSON: a cross-site form cannot, without a preflight
WRITE_TYPES = frozenset(
    {
        "application/json",
        "application/x-ndjson",
        "application/ndjson",
        "application/jsonl",
        "application/x-jsonl",
        "text/markdown",  # an instructions file for /mnemo/v1/import?from=...; no form sends it either
    }
)
# DELETE is not here: no page can send one across sites without a preflight, which Mnemo never grants
_WRITES = frozenset({"POST", "PUT", "PATCH"})
MANAGEMENT_PREFIX = "/mnemo/"
# the inspector page (proxy/ui) posts HTML forms; each carries a CSRF token checked there instead
FORMS_PREFIX = "/mnemo/ui/"


def host_name(value: str) -> str:
    """``example.com:8080`` -> ``example.com``; ``[::1]:8080`` -> ``::1``."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class HostGuard:
    """ASGI middleware: refuses foreign hosts and origins, and management writes that are not JSON.

    ``allowed_hosts``: names besides the loopback ones and the bound address (``MNEMO_ALLOWED_HOSTS``,
    for a Mnemo reached by a name on a network). ``check_hosts``: off where there is no loopback trust
    to protect (keys mode bound to every interface without a list of names).
    """

    def __init__(
        self, app: ASGIApp, bound_host: str, allowed_hosts: frozenset[str], check_hosts: bool
    ) -> None:
        self.app = app
        self.check_hosts = check_hosts
        names = {host_name(h) for h in allowed_hosts} | {host_name(n) for n in LOOPBACK_NAMES}
        if bound_host not in _ANY_ADDRESS:
            names.add(host_name(bound_host))
        self.hosts = frozenset(names)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        method = str(scope.get("method", "GET"))
        refusal = self.refusal(method, scope["path"], headers)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, message = refusal
        start: HTTPResponseStartEvent = {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"x-mnemo-status", b"ok")],
        }
        body: HTTPResponseBodyEvent = {
            "type": "http.response.body",
            "body": error_bytes(_shape(scope["path"]), status, message),
            "more_body": False,
        }
        await send(start)
        await send(body)

    def refusal(self, method: str, path: str, headers: dict[str, str]) -> tuple[int, str] | None:
        """Why a request is refused (status, message), or None. Pure, for the tests."""
        host = headers.get("host", "")
        if self.check_hosts and host_name(host) not in self.hosts:
            return 403, f"Mnemo does not answer for host {host!r}"
        origin = headers.get("origin")
        if origin is not None:
            parts = urlsplit(origin)
            same = parts.scheme in ("http", "https") and parts.netloc.lower() == host.strip().lower()
            if not same:
                return 403, "cross-origin requests are refused: Mnemo is not a web service for other sites"
        if method in _WRITES and path.startswith(MANAGEMENT_PREFIX) and not path.startswith(FORMS_PREFIX):
            kind = headers.get("content-type", "").split(";", 1)[0].strip().lower()
            if kind not in WRITE_TYPES:
                return 415, "management writes take Content-Type: application/json (or NDJSON for imports)"
        return None


def _shape(path: str) -> ApiShape:
    return "anthropic" if path.rstrip("/").endswith(("/messages", "/count_tokens")) else "openai"
