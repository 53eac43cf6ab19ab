"""POST /v1/messages (Anthropic Messages, used by Claude Code) through the memory relay, and the
other Messages routes (count_tokens) passed through to the Anthropic upstream untouched."""

from __future__ import annotations

from litestar import Request, post
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.params import FromPath
from litestar.response import Response, Stream

from proxy.auth import authenticate
from proxy.lifespan import Services
from proxy.relay import UpstreamRequest, open_upstream, relay_body, response_headers, upstream_url
from proxy.routes.common import upstream_headers
from proxy.routes.memory_relay import relay_with_memory
from proxy.wire.anthropic_messages import ANTHROPIC_MESSAGES

PATHS = ["/v1/messages", "/messages"]
PROJECT_PATHS = ["/p/{project:str}/v1/messages", "/p/{project:str}/messages"]
_OPT = {"api": "anthropic"}


@post(PATHS, opt=_OPT, include_in_schema=False)
async def messages(
    request: Request[object, object, State], services: NamedDependency[Services]
) -> Response[bytes] | Stream:
    return await relay_with_memory(request, services, None, ANTHROPIC_MESSAGES)


@post(PROJECT_PATHS, opt=_OPT, include_in_schema=False)
async def project_messages(
    request: Request[object, object, State], services: NamedDependency[Services], project: FromPath[str]
) -> Response[bytes] | Stream:
    return await relay_with_memory(request, services, project, ANTHROPIC_MESSAGES)


@post(
    ["/v1/messages/count_tokens", "/messages/count_tokens", "/p/{project:str}/v1/messages/count_tokens"],
    opt=_OPT,
    include_in_schema=False,
)
async def count_tokens(
    request: Request[object, object, State], services: NamedDependency[Services]
) -> Stream:
    authenticate(request.headers, services.policy)
    upstream = await open_upstream(
        services.http,
        UpstreamRequest(
            method="POST",
            url=upstream_url(
                services.settings.anthropic_upstream_url, "v1/messages/count_tokens", request.url.query or ""
            ),
            headers=upstream_headers(services.policy, request.headers),
            content=request.stream(),
        ),
        services.settings.upstream_first_byte_timeout_s,
    )
    return Stream(
        relay_body(upstream, "anthropic", deadline=services.upstream_deadline()),
        status_code=upstream.status_code,
        headers=response_headers(upstream, {"x-mnemo-status": "ok"}),
        media_type=upstream.headers.get("content-type"),
    )
