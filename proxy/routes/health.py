"""Liveness and readiness."""

from __future__ import annotations

from typing import Any

from litestar import get
from litestar.di import NamedDependency
from litestar.response import Response

from proxy.errors import StoreUnavailable
from proxy.lifespan import Services


@get("/healthz", tags=["health"])
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@get("/readyz", tags=["health"])
async def readyz(services: NamedDependency[Services]) -> Response[dict[str, Any]]:
    checks: dict[str, Any] = {
        "policy": services.policy.label,
        "embedding_model": services.embeddings.model_id,
    }
    if services.disk is not None:
        # deletions whose text the store's files still hold, until their rewrite finishes
        checks["pending_erasures"] = services.disk.pending
        checks["disk_erasure"] = "managed" if services.disk.managed else "not managed (external store)"
    if services.policies.error:
        # the server keeps serving under the last good policy; say that an edit was refused
        checks["policy_refused"] = services.policies.error
    try:
        await services.store.ping()
        ready = await services.ensure_store()
        checks["store"] = "ok" if ready else "index not open"
    except StoreUnavailable as exc:
        ready = False
        checks["store"] = str(exc)
    return Response({"ready": ready, "checks": checks}, status_code=200 if ready else 503)


@get("/metrics", tags=["health"], media_type="text/plain; version=0.0.4")
async def metrics(services: NamedDependency[Services]) -> str:
    """Prometheus text format: request counters of this process, store gauges read now."""
    gauges: list[tuple[str, str, float]] = []
    try:
        waiting, dead = await services.queue.lengths()
        stored = await services.store.record_count()
    except StoreUnavailable:
        gauges.append(("mnemo_store_up", "Whether the memory store answered this scrape.", 0))
    else:
        gauges += [
            ("mnemo_store_up", "Whether the memory store answered this scrape.", 1),
            ("mnemo_jobs_waiting", "Extraction jobs queued or being worked on.", waiting),
            ("mnemo_jobs_dead", "Extraction jobs that failed too often (dead letters).", dead),
            ("mnemo_memories_stored", "Records in the index, every version and status.", stored),
        ]
    return services.metrics.render(gauges)
