"""POST /v1/chat/completions (OpenAI), streamed and not, through the memory relay."""

from __future__ import annotations

from litestar import Request, post
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.params import FromPath
from litestar.response import Response, Stream

from proxy.lifespan import Services
from proxy.routes.memory_relay import relay_with_memory
from proxy.wire.openai_chat import OPENAI_CHAT

PATHS = ["/v1/chat/completions", "/chat/completions"]
PROJECT_PATHS = ["/p/{project:str}/v1/chat/completions", "/p/{project:str}/chat/completions"]
_OPT = {"api": "openai"}


@post(PATHS, opt=_OPT, include_in_schema=False)
async def chat_completions(
    request: Request[object, object, State], services: NamedDependency[Services]
) -> Response[bytes] | Stream:
    return await relay_with_memory(request, services, None, OPENAI_CHAT)


@post(PROJECT_PATHS, opt=_OPT, include_in_schema=False)
async def project_chat_completions(
    request: Request[object, object, State], services: NamedDependency[Services], project: FromPath[str]
) -> Response[bytes] | Stream:
    return await relay_with_memory(request, services, project, OPENAI_CHAT)
