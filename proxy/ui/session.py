"""Who is looking at the inspector page, and whether a form really came from it.

The page authenticates like the management API (``proxy.auth.authenticate``): in local mode the one
local principal, reached only from loopback and same-origin pages (``proxy.guard.HostGuard`` checks
Host and Origin before any route). In keys mode the key is typed once into a form and kept in a
session cookie (HttpOnly, SameSite=Strict, path ``/mnemo/ui``, no expiry: gone when the browser
closes); every request presents it again to ``authenticate``, so a key removed from the policy stops
working at once. A key never appears in a URL.

Forms are protected from cross-site posts by a token: a random cookie per browser, and in each form
the HMAC of that cookie under a secret this process drew at start. A page of another site can
neither read the cookie nor compute the HMAC.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from litestar import Request
from litestar.datastructures import Cookie, State

from core.errors import BadRequest
from core.scope import Principal
from policies import Policy
from proxy.auth import Unauthorized, authenticate

UI_PATH = "/mnemo/ui"
CSRF_COOKIE = "mnemo_ui_csrf"
KEY_COOKIE = "mnemo_ui_key"
CSRF_FIELD = "csrf"
_SECRET = "mnemo_ui_secret"
_NEW_CSRF = "mnemo_ui_new_csrf"

UiRequest = Request[Any, Any, State]


class SignInNeeded(Exception):
    """Keys mode without a valid key in the session: the handler answers with the sign-in form."""


class BadForm(BadRequest):
    """A post without this page's token: refused (403) before anything is changed."""

    def __init__(self) -> None:
        super().__init__(
            "this form did not come from the inspector page (missing or stale token): reload and try again",
            status_code=403,
        )


def _secret(request: UiRequest) -> bytes:
    state = request.app.state
    if _SECRET not in state:
        state[_SECRET] = secrets.token_bytes(32)
    secret: bytes = state[_SECRET]
    return secret


def csrf_token(request: UiRequest) -> str:
    """The token this browser's forms carry (a new cookie is set with the response when it has none)."""
    seed = request.cookies.get(CSRF_COOKIE) or request.state.get(_NEW_CSRF)
    if not seed:
        seed = secrets.token_urlsafe(32)
        request.state[_NEW_CSRF] = seed
    return hmac.new(_secret(request), seed.encode("utf-8"), hashlib.sha256).hexdigest()


def new_cookies(request: UiRequest) -> list[Cookie]:
    """The cookie to set with this response: the CSRF seed drawn while rendering, if any."""
    seed = request.state.get(_NEW_CSRF)
    return [_cookie(request, CSRF_COOKIE, seed)] if seed else []


def check_form(request: UiRequest, form: Any) -> None:
    """Refuse a post whose token is not the HMAC of this browser's cookie."""
    seed = request.cookies.get(CSRF_COOKIE)
    sent = form.get(CSRF_FIELD) if form is not None else None
    if not seed or not isinstance(sent, str):
        raise BadForm()
    expected = hmac.new(_secret(request), seed.encode("utf-8"), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(sent, expected):
        raise BadForm()


def viewer(request: UiRequest, policy: Policy) -> Principal:
    """The principal looking at the page: the local one, or in keys mode the session key's."""
    if policy.mode != "keys":
        return authenticate({}, policy)
    key = request.cookies.get(KEY_COOKIE)
    if not key:
        raise SignInNeeded()
    try:
        return authenticate({"x-mnemo-key": key}, policy)
    except Unauthorized:
        raise SignInNeeded() from None


def key_principal(key: str, policy: Policy) -> Principal | None:
    """The principal a typed key belongs to, or None."""
    try:
        return authenticate({"x-mnemo-key": key.strip()}, policy)
    except Unauthorized:
        return None


def key_cookie(request: UiRequest, key: str | None) -> Cookie:
    """The session cookie holding the key (``None``: one that clears it)."""
    return _cookie(request, KEY_COOKIE, key or "", clear=key is None)


def _cookie(request: UiRequest, name: str, value: str, clear: bool = False) -> Cookie:
    return Cookie(
        key=name,
        value=value,
        path=UI_PATH,
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        max_age=0 if clear else None,
    )
