"""The LLM APIs: OpenAI Chat Completions, OpenAI Responses (Codex) and Anthropic Messages (Claude
Code), each built from its wire adapter by one factory, through the memory relay; and the routes
relayed untouched (Messages' count_tokens, every other ``/v1/*``). Each is served at ``/v1/...``,
at ``/...`` (clients whose base URL has no ``/v1``) and under ``/p/{project}`` (the project from
the path). The router authenticates before anything is read; none of these is in the OpenAPI
document (they carry the providers' own bodies)."""

from __future__ import annotations

from litestar import Request, Router, post
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath
from litestar.response import Response, Stream

from core.scope import Principal
from proxy.lifespan import Services
from proxy.routes import passthrough
from proxy.routes.access import authenticated
from proxy.routes.memory_relay import relay_with_memory
from proxy.wire.anthropic_messages import ANTHROPIC_MESSAGES
from proxy.wire.api import WireApi
from proxy.wire.openai_chat import OPENAI_CHAT
from proxy.wire.openai_responses import OPENAI_RESPONSES

PROJECT_PREFIX = "/p/{project:str}"
MEMORY_APIS = (OPENAI_CHAT, OPENAI_RESPONSES, ANTHROPIC_MESSAGES)


def api_paths(api: WireApi) -> list[str]:
    """``chat/completions`` -> ``/v1/chat/completions`` and ``/chat/completions``."""
    endpoint = api.path.removeprefix("v1/")
    return [f"/v1/{endpoint}", f"/{endpoint}"]


def relay_routes(api: WireApi) -> tuple[HTTPRouteHandler, HTTPRouteHandler]:
    """The API's route, and its route under the project prefix (the path names the project)."""

    async def relay(
        request: Request[object, object, State],
        services: NamedDependency[Services],
        principal: NamedDependency[Principal],
    ) -> Response[bytes] | Stream:
        return await relay_with_memory(request, services, principal, None, api)

    async def relay_in_project(
        request: Request[object, object, State],
        services: NamedDependency[Services],
        principal: NamedDependency[Principal],
        project: FromPath[str],
    ) -> Response[bytes] | Stream:
        return await relay_with_memory(request, services, principal, project, api)

    opt = {"api": api.shape}
    paths = api_paths(api)
    return (
        post(paths, opt=opt, include_in_schema=False, name=api.name)(relay),
        post(paths, opt=opt, include_in_schema=False, name=f"{api.name}.project")(relay_in_project),
    )


def router() -> Router:
    """Every LLM API route; the ``/p/{project}`` ones in a router of their own under that prefix."""
    plain, in_project = zip(*(relay_routes(api) for api in MEMORY_APIS), strict=True)
    project = Router(
        PROJECT_PREFIX,
        route_handlers=[*in_project, passthrough.project_count_tokens, passthrough.project_passthrough],
    )
    return Router(
        "/",
        route_handlers=[*plain, passthrough.count_tokens, passthrough.passthrough, project],
        guards=[authenticated],
    )
