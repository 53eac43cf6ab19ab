"""POST /v1/responses (OpenAI Responses, used by Codex), streamed and not, through the memory relay."""

from __future__ import annotations

from litestar import Request, post
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.params import FromPath
from litestar.response import Response, Stream

from proxy.lifespan import Services
from proxy.routes.memory_relay import relay_with_memory
from proxy.wire.openai_responses import OPENAI_RESPONSES

PATHS = ["/v1/responses", "/responses"]
PROJECT_PATHS = ["/p/{project:str}/v1/responses", "/p/{project:str}/responses"]
_OPT = {"api": "openai"}


@post(PATHS, opt=_OPT, include_in_schema=False)
async def responses(
    request: Request[object, object, State], services: NamedDependency[Services]
) -> Response[bytes] | Stream:
    return await relay_with_memory(request, services, None, OPENAI_RESPONSES)


@post(PROJECT_PATHS, opt=_OPT, include_in_schema=False)
async def project_responses(
    request: Request[object, object, State], services: NamedDependency[Services], project: FromPath[str]
) -> Response[bytes] | Stream:
    return await relay_with_memory(request, services, project, OPENAI_RESPONSES)
