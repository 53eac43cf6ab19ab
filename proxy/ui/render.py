"""Pages as HTML: Jinja2 templates from this package, escaped by default, with the headers every page
carries (a strict content security policy: this origin's stylesheet and script only, no frames)."""

from __future__ import annotations

import functools
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from litestar import Response
from litestar.response import Redirect

from core.model import Memory
from core.scope import level_of
from proxy.ui.session import UI_PATH, UiRequest, csrf_token, new_cookies

SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",  # no-referrer would make a form post say Origin: null
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
}


def iso(moment: datetime | str | float | None) -> str:
    """A time in ISO 8601 (UTC, seconds); epoch seconds and ISO strings are read too."""
    if moment is None or moment == "":
        return ""
    if isinstance(moment, str):
        raw = moment
        try:
            moment = float(raw)
        except ValueError:
            moment = datetime.fromisoformat(raw)
    if isinstance(moment, float | int):
        moment = datetime.fromtimestamp(moment, UTC)
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def scope_parts(memory: Memory) -> list[tuple[str, str]]:
    """The levels a record is bound to, narrowest last: [("project", "acme"), ...]; org alone if none."""
    parts = [(level, value) for level, value in memory.scope.as_dict().items() if value and level != "org"]
    return parts or [("org", memory.scope.org)]


@functools.cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("proxy.ui", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["iso"] = iso
    env.globals.update(ui=UI_PATH, scope_parts=scope_parts, level_of=level_of, query=urlencode)
    return env


def page(request: UiRequest, template: str, status: int = 200, **context: Any) -> Response[str]:
    """A rendered page; its forms carry this browser's CSRF token."""
    html = environment().get_template(template).render(csrf=csrf_token(request), **context)
    return Response(
        content=html,
        status_code=status,
        media_type="text/html; charset=utf-8",
        headers=SECURITY_HEADERS,
        cookies=new_cookies(request),
    )


def see_other(path: str, **params: str) -> Redirect:
    """After a post: go to the page that shows the result (303, so a reload does not post again)."""
    target = f"{UI_PATH}{path}" + (f"?{urlencode(params)}" if params else "")
    return Redirect(path=target, status_code=303)
