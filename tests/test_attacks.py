"""Attacks on a running Mnemo, one section per hole of issue 12: each must fail against main.

Every test here drives the real server (embedded store, upstream stand-in on a port); the pure
decisions behind them have their own unit tests beside.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import httpx
import pytest
from litestar.types import Receive, Scope, Send

from proxy.guard import HostGuard
from tests.conftest import RunningMnemo
from tests.upstream import UpstreamStub

pytestmark = pytest.mark.integration

CHAT = {"model": "m", "messages": [{"role": "user", "content": "This repo uses pnpm."}]}


# -- 2. a web page must not reach a local Mnemo ------------------------------------------------------


def _guard(host: str = "127.0.0.1", allowed: frozenset[str] = frozenset()) -> HostGuard:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:  # never reached by refusal()
        raise AssertionError

    return HostGuard(app, bound_host=host, allowed_hosts=allowed, check_hosts=True)


def _refused(guard: HostGuard, method: str, path: str, headers: dict[str, str]) -> int:
    refusal = guard.refusal(method, path, headers)
    return refusal[0] if refusal else 0


def test_the_guard_lets_sdks_and_clis_through_and_refuses_pages() -> None:
    guard = _guard()
    sdk = {"host": "127.0.0.1:8080", "content-type": "application/json"}
    assert guard.refusal("POST", "/v1/chat/completions", sdk) is None
    assert guard.refusal("POST", "/v1/chat/completions", {**sdk, "host": "localhost:8080"}) is None
    assert guard.refusal("GET", "/mnemo/v1/export", {"host": "[::1]:8080"}) is None
    # DNS rebinding: the page's own name, resolved to 127.0.0.1
    assert guard.refusal("GET", "/mnemo/v1/export", {"host": "evil.example:8080"}) == (
        403,
        "Mnemo does not answer for host 'evil.example:8080'",
    )
    # a cross-site request carries the page's origin
    assert _refused(guard, "POST", "/v1/chat/completions", {**sdk, "origin": "https://evil.example"}) == 403
    assert _refused(guard, "POST", "/v1/chat/completions", {**sdk, "origin": "null"}) == 403
    assert _refused(guard, "POST", "/v1/chat/completions", {**sdk, "origin": "http://127.0.0.1:8080"}) == 0
    # a form post cannot say it is JSON
    form = {"host": "127.0.0.1:8080", "content-type": "text/plain"}
    assert _refused(guard, "POST", "/mnemo/v1/import", form) == 415
    assert _refused(guard, "POST", "/mnemo/v1/scopes/project/x/pause", {"host": "127.0.0.1"}) == 415
    assert _refused(guard, "DELETE", "/mnemo/v1/memories/x", {"host": "127.0.0.1"}) == 0
    # a name given by the operator, for a Mnemo reached over a network
    named = _guard("0.0.0.0", frozenset({"mnemo.internal"}))
    assert _refused(named, "GET", "/healthz", {"host": "mnemo.internal:8080"}) == 0
    assert _refused(named, "GET", "/healthz", {"host": "evil.example"}) == 403


@pytest.mark.parametrize(
    ("method", "path", "body", "content_type"),
    [
        ("POST", "/v1/chat/completions", json.dumps(CHAT).encode(), "application/json"),
        ("POST", "/v1/chat/completions", json.dumps(CHAT).encode(), "text/plain"),
        ("GET", "/mnemo/v1/export", None, None),
        ("POST", "/mnemo/v1/import", b"{}", "text/plain"),
        ("POST", "/mnemo/v1/scopes/project/victim/pause", b"", "text/plain"),
    ],
)
def test_a_web_page_cannot_read_or_write_a_local_mnemo(
    mnemo: RunningMnemo,
    fresh_upstream: UpstreamStub,
    method: str,
    path: str,
    body: bytes | None,
    content_type: str | None,
) -> None:
    url = f"{mnemo.url}{path}"
    port = mnemo.url.rsplit(":", 1)[1]
    base = {"content-type": content_type} if content_type else {}

    def send(headers: dict[str, str]) -> httpx.Response:
        return httpx.request(method, url, content=body, headers={**base, **headers}, timeout=10)

    for response in (send({"origin": "https://evil.example"}), send({"host": f"evil.example:{port}"})):
        assert response.status_code in (403, 415), response.text
        assert "error" in response.json()
        assert not any(name.lower().startswith("access-control-") for name in response.headers)
    assert fresh_upstream.requests == []  # nothing was relayed
    if path.startswith("/mnemo/") and method == "POST":
        assert send({}).status_code == 415  # a form post with no page origin still cannot write


def test_sdks_still_work_and_no_cors_is_granted(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("sdk")
    reply = httpx.post(
        f"{mnemo.openai_base}/chat/completions", json=CHAT, headers={"x-mnemo-project": project}, timeout=30
    )
    assert reply.status_code == 200
    preflight = httpx.options(
        f"{mnemo.url}/mnemo/v1/import",
        headers={"origin": f"{mnemo.url}", "access-control-request-method": "POST"},
        timeout=10,
    )
    assert not any(name.lower().startswith("access-control-") for name in preflight.headers)
