"""Liveness, readiness and metrics (the health router)."""

from __future__ import annotations

from litestar import Router, get
from litestar.di import NamedDependency
from litestar.response import Response
from msgspec import UNSET, UnsetType

from core.errors import StoreUnavailable
from proxy.lifespan import Services
from proxy.routes.schemas import Health, Readiness, ReadyChecks, json_response

NO_KEY: list[dict[str, list[str]]] = [{}]  # the health routes answer without a Mnemo key


@get("/healthz", tags=["health"], operation_id="healthz", summary="The process is up", security=NO_KEY)
async def healthz() -> Health:
    return Health(status="ok")


@get(
    "/readyz",
    tags=["health"],
    operation_id="readyz",
    summary="The store answers and its index is open (503 with the same body when not)",
    security=NO_KEY,
    responses={503: json_response(Readiness, "Not ready: checks.store says why")},
)
async def readyz(services: NamedDependency[Services]) -> Response[Readiness]:
    policy, model = services.policy.label, services.embeddings.model_id
    pending: int | UnsetType = UNSET
    disk_erasure: str | UnsetType = UNSET
    if services.disk is not None:
        # deletions whose text the store's files still hold, until their rewrite finishes
        pending = services.disk.pending
        disk_erasure = "managed" if services.disk.managed else "not managed (external store)"
    try:
        await services.store.ping()
        ready = await services.ensure_store()
        store = "ok" if ready else "index not open"
    except StoreUnavailable as exc:
        ready = False
        store = str(exc)
    checks = ReadyChecks(
        policy=policy,
        embedding_model=model,
        pending_erasures=pending,
        disk_erasure=disk_erasure,
        # the server keeps serving under the last good policy; say that an edit was refused
        policy_refused=services.policies.error or UNSET,
        store=store,
        embedded_store=services.embedded.health().describe() if services.embedded is not None else UNSET,
        held_jobs=len(services.held) or UNSET,
    )
    return Response(Readiness(ready=ready, checks=checks), status_code=200 if ready else 503)


@get(
    "/metrics",
    tags=["health"],
    media_type="text/plain; version=0.0.4",
    operation_id="metrics",
    summary="Prometheus text format",
    security=NO_KEY,
)
async def metrics(services: NamedDependency[Services]) -> str:
    """Prometheus text format: counters of this process, and what the store holds, read now (the
    learning counters live in the store, so they add up every worker's)."""
    gauges, counters = await _store_metrics(services)
    held_gauges, held_counters = _held_metrics(services)
    gauges += held_gauges
    counters += held_counters
    if services.embedded is not None:
        health = services.embedded.health()
        counters.append(
            (
                "mnemo_store_restarts_total",
                "Times the embedded store was restarted after it died.",
                health.restarts,
            )
        )
        gauges.append(
            (
                "mnemo_store_last_restart_seconds",
                "How long the last restart of the embedded store took.",
                health.last_restart_s or 0.0,
            )
        )
    return services.metrics.render(gauges, counters)


Samples = list[tuple[str, str, float]]  # name, help, value


async def _store_metrics(services: Services) -> tuple[Samples, Samples]:
    """Gauges and counters read from the store now: the queue, the records, every worker's learning."""
    try:
        waiting, dead = await services.queue.lengths()
        stored = await services.store.record_count()
        learned, oldest_waiting_s = await services.queue.learning_stats()
    except StoreUnavailable:
        return [("mnemo_store_up", "Whether the memory store answered this scrape.", 0)], []
    gauges: Samples = [
        ("mnemo_store_up", "Whether the memory store answered this scrape.", 1),
        ("mnemo_jobs_waiting", "Extraction jobs queued or being worked on.", waiting),
        ("mnemo_jobs_dead", "Extraction jobs that failed too often (dead letters).", dead),
        ("mnemo_memories_stored", "Records in the index, every version and status.", stored),
        (
            "mnemo_extraction_oldest_waiting_seconds",
            "Age of the oldest job not yet learned.",
            oldest_waiting_s or 0,
        ),
    ]
    counters: Samples = [
        (f"mnemo_facts_{metric}_total", help_text, learned.get(field, 0))
        for field, (metric, help_text) in _LEARNED.items()
    ]
    counters += [
        (
            "mnemo_jobs_learned_total",
            "Extraction jobs learned from, by every worker.",
            learned.get("jobs", 0),
        ),
        (
            "mnemo_extraction_lag_seconds_sum",
            "Seconds from each exchange to its learning, summed (divide by mnemo_jobs_learned_total).",
            learned.get("lag_ms_sum", 0) / 1000,
        ),
    ]
    return gauges, counters


def _held_metrics(services: Services) -> tuple[Samples, Samples]:
    """This process's learning jobs held in memory while the store is away."""
    held = services.held
    gauges: Samples = [
        ("mnemo_jobs_held", "Learning jobs held in memory while the store is away.", len(held)),
        ("mnemo_jobs_held_bytes", "Bytes of the learning jobs held in memory.", held.held_bytes),
    ]
    counters: Samples = [
        (
            "mnemo_jobs_held_dropped_total",
            "Learning jobs dropped: the held-jobs bounds were reached.",
            held.dropped,
        ),
        (
            "mnemo_jobs_held_written_total",
            "Held learning jobs written once the store was back.",
            held.written,
        ),
    ]
    return gauges, counters


def router() -> Router:
    """Liveness, readiness and metrics: answered without a Mnemo key."""
    return Router("/", route_handlers=[healthz, readyz, metrics])


# the worker's WriteReport field -> the metric's name and help, for every worker's facts
_LEARNED = {
    "written": ("learned", "Facts learned as new records or new versions."),
    "merged": ("merged", "Facts that matched a record already kept (its evidence grows)."),
    "superseded": ("superseded", "Older versions that a learned fact replaced."),
    "refused": ("refused", "Facts the policy refused (secrets, rules from model output, out of scope)."),
    "quarantined": ("quarantined", "Facts held for review instead of recall (dangerous rules)."),
}
