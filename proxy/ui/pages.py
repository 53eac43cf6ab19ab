"""The inspector's router: its routes, the sign-in form of keys mode, the stylesheet and script, and
errors answered as pages (a missing key sends the browser to the sign-in form)."""

from __future__ import annotations

from importlib import resources

from litestar import Request, Response, Router, get, post
from litestar.datastructures import State
from litestar.di import Provide
from litestar.exceptions import HTTPException, NotFoundException
from litestar.params import FromPath
from litestar.response import Redirect

from core.errors import BadRequest, StoreError
from proxy.lifespan import Services
from proxy.ui import browse, change, requests, review, transfer
from proxy.ui.render import SECURITY_HEADERS, page, see_other
from proxy.ui.session import UI_PATH, SignInNeeded, UiRequest, check_form, key_cookie, key_principal
from proxy.ui.view import provide_view

STATIC = {"inspector.css": "text/css; charset=utf-8", "inspector.js": "text/javascript; charset=utf-8"}


@get("/login", name="ui-login")
async def login_form(request: UiRequest) -> Response[str]:
    return page(request, "login.html", error=None, keys_mode=True, who=None, waiting=0)


@post("/login", name="ui-login-post")
async def login(request: UiRequest) -> Response[str] | Redirect:
    form = await request.form()
    check_form(request, form)
    services: Services = request.app.state.services
    key = form.get("key")
    principal = key_principal(key, services.policy) if isinstance(key, str) and key.strip() else None
    if principal is None:
        error = "That key is not one this Mnemo knows."
        return page(request, "login.html", 401, error=error, keys_mode=True, who=None, waiting=0)
    redirect = see_other("/")
    redirect.cookies.append(key_cookie(request, key.strip() if isinstance(key, str) else ""))
    return redirect


@post("/logout", name="ui-logout")
async def logout(request: UiRequest) -> Redirect:
    check_form(request, await request.form())
    redirect = see_other("/login")
    redirect.cookies.append(key_cookie(request, None))
    return redirect


@get("/static/{name:str}", name="ui-static")
async def static(name: FromPath[str]) -> Response[bytes]:
    if name not in STATIC:
        raise NotFoundException(f"no file {name}")
    body = resources.files("proxy.ui").joinpath("static", name).read_bytes()
    headers = {**SECURITY_HEADERS, "cache-control": "public, max-age=3600"}
    return Response(content=body, media_type=STATIC[name], headers=headers)


def _sign_in(request: Request[object, object, State], _: SignInNeeded) -> Redirect:
    return Redirect(path=f"{UI_PATH}/login", status_code=303)


def _error_page(request: UiRequest, status: int, message: str) -> Response[str]:
    return page(
        request, "error.html", status, code=status, message=message, keys_mode=False, who=None, waiting=0
    )


def _bad_request(request: UiRequest, exc: BadRequest) -> Response[str]:
    return _error_page(request, exc.status_code, exc.message)


def _http_error(request: UiRequest, exc: HTTPException) -> Response[str]:
    return _error_page(request, exc.status_code, str(exc.detail))


def _store_error(request: UiRequest, exc: StoreError) -> Response[str]:
    return _error_page(request, 503, f"The memory store is unavailable: {exc}")


def router() -> Router:
    return Router(
        UI_PATH,
        route_handlers=[
            *browse.ROUTES,
            *change.ROUTES,
            *review.ROUTES,
            *transfer.ROUTES,
            *requests.ROUTES,
            login_form,
            login,
            logout,
            static,
        ],
        dependencies={"view": Provide(provide_view, sync_to_thread=False)},
        exception_handlers={
            SignInNeeded: _sign_in,
            BadRequest: _bad_request,
            HTTPException: _http_error,
            StoreError: _store_error,
        },
        include_in_schema=False,
    )
