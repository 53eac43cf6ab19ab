"""What every inspector handler starts from: the request, the services, the principal looking, and
the filters of the browse form read from the query string (the same ``MemoryFilters`` the management
API builds, so ``admin.listing`` applies the principal's limits to them the same way)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from litestar import Response
from litestar.datastructures import FormMultiDict

from core.errors import BadRequest
from core.model import Evidence, Kind, Status
from core.scope import Principal
from proxy.lifespan import Services
from proxy.routes.admin import MemoryFilters, listing
from proxy.ui.render import page
from proxy.ui.session import UiRequest, check_form, viewer

FILTER_FIELDS = ("org", "project", "user", "session", "kind", "evidence", "status", "contains", "visible")
STATUS_CHOICES = ("active", "quarantined", "superseded", "any")


@dataclass(slots=True)
class View:
    request: UiRequest
    services: Services
    principal: Principal

    @property
    def keys_mode(self) -> bool:
        return self.services.policy.mode == "keys"

    async def page(self, template: str, status: int = 200, **context: Any) -> Response[str]:
        review = listing(self.principal, MemoryFilters(statuses=(Status.QUARANTINED,)), changing=False)
        waiting = await self.services.store.count(review)
        return page(
            self.request,
            template,
            status,
            who=self.principal.name,
            admin=self.principal.admin,
            keys_mode=self.keys_mode,
            waiting=waiting,
            **context,
        )

    async def form(self) -> FormMultiDict:
        """The posted form, refused unless it carries this page's token."""
        form = await self.request.form()
        check_form(self.request, form)
        return form


def provide_view(request: UiRequest) -> View:
    """The router's ``view`` dependency: raises ``SignInNeeded`` in keys mode without a valid key."""
    services: Services = request.app.state.services
    return View(request, services, viewer(request, services.policy))


def _value(params: Mapping[str, Any], name: str) -> str | None:
    raw = params.get(name)
    if not isinstance(raw, str):
        return None
    return raw.strip() or None


def _choice(params: Mapping[str, Any], name: str, enum: type[Kind] | type[Evidence]) -> tuple[Any, ...]:
    raw = _value(params, name)
    if raw is None or raw == "any":
        return ()
    try:
        return (enum(raw),)
    except ValueError:
        raise BadRequest(f"{name}: no such choice {raw!r}", param=name) from None


def filters_from(params: Mapping[str, Any]) -> MemoryFilters:
    """The browse form's filters; the status is ``active`` unless the form asks for another or any."""
    status = _value(params, "status") or "active"
    if status not in STATUS_CHOICES:
        raise BadRequest(f"status: no such choice {status!r}", param="status")
    return MemoryFilters(
        org=_value(params, "org"),  # an operator's choice; listing refuses it to anyone else
        project=_value(params, "project"),
        user=_value(params, "user"),
        session=_value(params, "session"),
        visible=_value(params, "visible") == "1",
        kinds=_choice(params, "kind", Kind),
        evidence=_choice(params, "evidence", Evidence),
        statuses=() if status == "any" else (Status(status),),
        contains=_value(params, "contains"),
    )


def filter_fields(params: Mapping[str, Any]) -> dict[str, str]:
    """The browse form's fields as given (to fill the form again and carry them into other forms)."""
    return {name: value for name in FILTER_FIELDS if (value := _value(params, name)) is not None}
