"""Who is calling, for every route that needs to know: the ``principal`` dependency and the guards.

The principal is computed once per request (``proxy.auth.authenticate``: the one local principal,
or in keys mode the principal whose key hashes to a listed sha256) and kept on the request, so a
guard that runs before the handler's parameters are read and the ``principal`` dependency the
handler receives are the same object. Errors are ``BadRequest`` subclasses: the app's exception
handlers answer them in the route's own API shape (401 unknown key, 403 not allowed).
"""

from __future__ import annotations

from litestar.connection import ASGIConnection
from litestar.datastructures import State
from litestar.handlers.base import BaseRouteHandler

from core.scope import Principal
from proxy.auth import authenticate
from proxy.lifespan import Services

_PRINCIPAL = "mnemo_principal"

Connection = ASGIConnection[BaseRouteHandler, object, object, State]


def principal_of(connection: Connection) -> Principal:
    """The caller, authenticated on first use and kept on the request."""
    kept = connection.state.get(_PRINCIPAL)
    if isinstance(kept, Principal):
        return kept
    services: Services = connection.app.state.services
    principal = authenticate(connection.headers, services.policy)
    connection.state[_PRINCIPAL] = principal
    return principal


def provide_principal(request: Connection) -> Principal:
    """The ``principal`` dependency of every route that reads or relays."""
    return principal_of(request)


def authenticated(connection: Connection, _: BaseRouteHandler) -> None:
    """Guard: a known caller (401 otherwise) before any parameter or body is read."""
    principal_of(connection)
