"""create_app(settings): the one place the app is assembled: the LLM APIs, the management API and
the health routes, each a router with its prefix; the services and the caller's principal are
dependencies, permissions are the routers' guards."""

from __future__ import annotations

import logging

from litestar import Litestar, MediaType, Request, Response
from litestar.datastructures import State
from litestar.di import Provide
from litestar.exceptions import HTTPException
from litestar.middleware import DefineMiddleware

from core.errors import BadRequest, StoreError
from proxy.guard import HostGuard
from proxy.lifespan import Models, services_lifespan
from proxy.mcp.http import mcp_endpoint, mcp_lifespan
from proxy.memory.supervisor import StoreSupervisor
from proxy.relay import UpstreamError
from proxy.routes import health, llm, management
from proxy.routes.access import provide_principal
from proxy.routes.common import provide_services
from proxy.routes.schema_page import openapi_config
from proxy.settings import Settings
from proxy.ui import router as inspector_router
from proxy.wire.errors import ApiShape, error_bytes

log = logging.getLogger("mnemo")


def _shape(request: Request[object, object, State]) -> ApiShape:
    try:
        api = request.route_handler.opt.get("api")
    except Exception:  # no route matched: answer in the OpenAI shape, the default client
        api = None
    return "anthropic" if api == "anthropic" else "openai"


def _error(
    request: Request[object, object, State], status: int, message: str, param: str | None = None
) -> Response[bytes]:
    return Response(
        content=error_bytes(_shape(request), status, message, param=param),
        status_code=status,
        media_type=MediaType.JSON,
        headers={"x-mnemo-status": "ok"},
    )


def _bad_request(request: Request[object, object, State], exc: BadRequest) -> Response[bytes]:
    return _error(request, exc.status_code, exc.message, exc.param)


def _upstream_error(request: Request[object, object, State], exc: UpstreamError) -> Response[bytes]:
    return _error(request, exc.status_code, exc.message)


def _http_error(request: Request[object, object, State], exc: HTTPException) -> Response[bytes]:
    return _error(request, exc.status_code, str(exc.detail))


def _store_error(request: Request[object, object, State], exc: StoreError) -> Response[bytes]:
    # the proxy routes fail open on their own; only the management API gets here
    return _error(request, 503, f"memory store unavailable: {exc}")


def _unexpected(request: Request[object, object, State], exc: Exception) -> Response[bytes]:
    log.exception("unexpected error on %s %s", request.method, request.url.path)
    return _error(request, 500, f"internal error in Mnemo: {type(exc).__name__}")


def create_app(
    settings: Settings, models: Models | None = None, embedded: StoreSupervisor | None = None
) -> Litestar:
    """The app. ``models`` may come preloaded (the CLI loads them while the store starts);
    ``embedded`` keeps the store `mnemo serve` started, when it did."""
    return Litestar(
        route_handlers=[llm.router(), management.router(), health.router(), inspector_router(), mcp_endpoint],
        dependencies={
            "services": Provide(provide_services, sync_to_thread=False),
            "principal": Provide(provide_principal, sync_to_thread=False),
        },
        state=State({"settings": settings, "models": models, "embedded": embedded}),
        lifespan=[services_lifespan, mcp_lifespan],
        exception_handlers={
            BadRequest: _bad_request,
            UpstreamError: _upstream_error,
            HTTPException: _http_error,
            StoreError: _store_error,
            Exception: _unexpected,
        },
        middleware=[
            DefineMiddleware(
                HostGuard,
                bound_host=settings.host,
                allowed_hosts=settings.allowed_hosts,
                # bound to every interface with no names given, there is no loopback trust to guard
                check_hosts=bool(settings.allowed_hosts) or settings.host not in ("0.0.0.0", "::", ""),
            )
        ],
        request_max_body_size=settings.max_body_bytes,
        openapi_config=openapi_config(),
        logging_config=None,
    )
