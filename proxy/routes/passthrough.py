"""Every other /v1/* route (models, embeddings, files, ...): relayed untouched, bodies streamed both ways."""

from __future__ import annotations

from litestar import Request, route
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.enums import HttpMethod
from litestar.params import FromPath
from litestar.response import Stream

from proxy.auth import authenticate
from proxy.lifespan import Services
from proxy.relay import (
    UpstreamRequest,
    open_upstream,
    relay_body,
    response_headers,
    upstream_url,
)
from proxy.routes.common import upstream_headers

_METHODS = [HttpMethod.GET, HttpMethod.POST, HttpMethod.PUT, HttpMethod.PATCH, HttpMethod.DELETE]


@route(
    ["/v1/{path:path}", "/p/{project:str}/v1/{path:path}"],
    http_method=_METHODS,
    opt={"api": "openai"},
    include_in_schema=False,
    request_max_body_size=None,
)
async def passthrough(
    request: Request[object, object, State], services: NamedDependency[Services], path: FromPath[str]
) -> Stream:
    authenticate(request.headers, services.policy)  # keys mode: nothing is relayed without a known key
    has_body = request.method not in ("GET", "HEAD", "DELETE") or "content-length" in request.headers
    upstream = await open_upstream(
        services.http,
        UpstreamRequest(
            method=request.method,
            url=upstream_url(services.settings.upstream_url, path, request.url.query or ""),
            headers=upstream_headers(services.policy, request.headers),
            content=request.stream() if has_body else None,
        ),
        services.settings.upstream_first_byte_timeout_s,
    )
    return Stream(
        relay_body(upstream, "openai", deadline=services.upstream_deadline()),
        status_code=upstream.status_code,
        headers=response_headers(upstream, {"x-mnemo-status": "ok"}),
        media_type=upstream.headers.get("content-type"),
    )
