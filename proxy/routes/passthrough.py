"""Routes relayed untouched, bodies streamed both ways: Messages' count_tokens to the Anthropic
upstream, and every other /v1/* route (models, embeddings, files, ...) to the OpenAI one. The LLM
router authenticates first: in keys mode nothing is relayed without a known key."""

from __future__ import annotations

from collections.abc import AsyncIterator

from litestar import Request, post, route
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.enums import HttpMethod
from litestar.handlers import HTTPRouteHandler
from litestar.params import FromPath
from litestar.response import Stream

from proxy.lifespan import Services
from proxy.relay import UpstreamRequest, open_upstream, relay_body, response_headers, upstream_url
from proxy.routes.common import upstream_headers
from proxy.wire.errors import ApiShape

_METHODS = [HttpMethod.GET, HttpMethod.POST, HttpMethod.PUT, HttpMethod.PATCH, HttpMethod.DELETE]
_COUNT_TOKENS = "/v1/messages/count_tokens"


async def _relay_untouched(
    request: Request[object, object, State],
    services: Services,
    base_url: str,
    path: str,
    shape: ApiShape,
    content: AsyncIterator[bytes] | None,
) -> Stream:
    """The request to ``base_url``/``path`` as it came (headers as ``upstream_headers`` makes them),
    and the upstream's answer streamed back with its status."""
    upstream = await open_upstream(
        services.http,
        UpstreamRequest(
            method=request.method,
            url=upstream_url(base_url, path, request.url.query or ""),
            headers=upstream_headers(services.policy, request.headers),
            content=content,
        ),
        services.settings.upstream_first_byte_timeout_s,
    )
    return Stream(
        relay_body(upstream, shape, deadline=services.upstream_deadline()),
        status_code=upstream.status_code,
        headers=response_headers(upstream, {"x-mnemo-status": "ok"}),
        media_type=upstream.headers.get("content-type"),
    )


async def _count_tokens(
    request: Request[object, object, State], services: NamedDependency[Services]
) -> Stream:
    base = services.settings.anthropic_upstream_url
    return await _relay_untouched(
        request, services, base, "v1/messages/count_tokens", "anthropic", request.stream()
    )


async def _passthrough(
    request: Request[object, object, State], services: NamedDependency[Services], path: FromPath[str]
) -> Stream:
    has_body = request.method not in ("GET", "HEAD", "DELETE") or "content-length" in request.headers
    content = request.stream() if has_body else None
    return await _relay_untouched(request, services, services.settings.upstream_url, path, "openai", content)


_ANTHROPIC = {"api": "anthropic"}
count_tokens = post([_COUNT_TOKENS, "/messages/count_tokens"], opt=_ANTHROPIC, include_in_schema=False)(
    _count_tokens
)
project_count_tokens = post(_COUNT_TOKENS, opt=_ANTHROPIC, include_in_schema=False)(_count_tokens)


def _any_route(path: str) -> HTTPRouteHandler:
    return route(
        path, http_method=_METHODS, opt={"api": "openai"}, include_in_schema=False, request_max_body_size=None
    )


passthrough = _any_route("/v1/{path:path}")(_passthrough)
project_passthrough = _any_route("/v1/{path:path}")(_passthrough)
