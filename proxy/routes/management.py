"""The management API's router: every route under one prefix, behind the authentication guard,
with the listing filters as a dependency (see docs/api.md; the OpenAPI document sits beside it
at ``/mnemo/v1/schema``)."""

from __future__ import annotations

from litestar import Router
from litestar.di import Provide

from proxy.routes import MANAGEMENT_PREFIX, admin, export_import, requests, scopes
from proxy.routes.access import authenticated


def router() -> Router:
    return Router(
        MANAGEMENT_PREFIX,
        route_handlers=[*admin.ROUTES, *scopes.ROUTES, *export_import.ROUTES, *requests.ROUTES],
        guards=[authenticated],
        dependencies={"filters": Provide(admin.provide_filters)},
    )
