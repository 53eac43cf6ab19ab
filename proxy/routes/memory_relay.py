"""The memory relay every LLM API shares; each handler reads top to bottom as the data flow:

resolve scope -> forget (if asked) -> recall -> inject -> relay (stream back, tee) -> enqueue learning.
The API's own wire format is behind a small adapter (``proxy.wire.api.WireApi``). After the reply,
off the hot path, each call leaves a trace (``proxy.memory.traces``) and then its learning job.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from litestar import Request
from litestar.background_tasks import BackgroundTask
from litestar.datastructures import State
from litestar.response import Response, Stream

from core.model import utcnow
from core.scope import Mode, Principal, Scope, derive_session_id, infer_project
from extractors import Turn
from extractors.commands import without_forget_requests
from policies import Policy
from policies.secrets import redact, secret_matcher
from proxy.lifespan import Services
from proxy.memory.traces import CallTrace, InjectedMemory
from proxy.observability import RequestTrace, scope_digests
from proxy.recall import RecallOutcome, Stopwatch, estimate_tokens, render_block
from proxy.relay import (
    UpstreamRequest,
    open_upstream,
    read_body,
    relay_body,
    response_headers,
    upstream_url,
)
from proxy.routes.common import (
    STREAM_HEADERS,
    forget_requested,
    mnemo_headers,
    mode_for,
    recall_for,
    request_id,
    scope_for,
    scope_inputs,
    scope_sources,
    upstream_headers,
)
from proxy.wire.api import WireApi
from proxy.worker.queue import ExtractionJob

request_log = logging.getLogger("mnemo.requests")


async def relay_with_memory(
    request: Request[object, object, State],
    services: Services,
    principal: Principal,
    path_project: str | None,
    api: WireApi,
) -> Response[bytes] | Stream:
    """resolve scope -> forget (if asked) -> recall -> inject -> relay (stream back, tee) -> enqueue.
    The caller is authenticated already (the router's guard: 401 before anything is read)."""
    clock = Stopwatch()
    req_id = request_id(request)
    raw = await request.body()
    body = api.parse(raw)
    mode = Mode.parse(request.headers.get("x-mnemo-mode"))
    trace = services.tracing.request(request.headers, api.name)

    # 1. resolve scope: from the principal and request metadata, never from message text
    with trace.step("mnemo.scope"):
        client_session = api.client_session(request.headers, body)
        session = client_session or derive_session_id(api.conversation_opening(body))
        inferred = (
            infer_project(api.agent_prompt(body)) if services.policy.infer_project_from_prompt else None
        )
        inputs = scope_inputs(request.headers, path_project, api.body_user(body), session, inferred)
        scope = scope_for(principal, inputs)
        sources = scope_sources(inputs, scope, bool(client_session))
        mode = await mode_for(services, scope, mode)  # a paused or disabled scope narrows what may happen

    # 2. forget what the user asks to forget, before anything is recalled
    latest = api.recall_text(body)
    forgotten = await forget_requested(services, principal, scope, latest, mode)

    # 3. recall, 4. inject: the client's own messages stay as they are; no memories, no change
    with trace.step("mnemo.recall"):
        outcome = await recall_for(services, principal, scope, latest, mode)
    outbound, block = raw, render_block(outcome.memories) if outcome.memories else ""
    if block:
        placement = services.policy.recall.placement
        outbound = json.dumps(api.inject(body, block, placement)).encode()

    # 5. relay
    base, path = api.upstream(services.settings)
    deadline = services.upstream_deadline()
    upstream = await open_upstream(
        services.http,
        UpstreamRequest(
            method="POST",
            url=upstream_url(base, path, request.url.query or ""),
            headers={
                **upstream_headers(services.policy, request.headers, identity_encoding=True),
                **trace.relay_started(),  # W3C traceparent of the relay span, when tracing
            },
            content=outbound,
        ),
        services.settings.upstream_first_byte_timeout_s,
    )
    overhead_ms = clock.ms()
    headers = mnemo_headers(mode, outcome, forgotten, overhead_ms, req_id)
    services.metrics.observe_request(
        api.name, headers["x-mnemo-status"], len(outcome.memories), len(forgotten.deleted), overhead_ms
    )
    learn = mode.learns and upstream.status_code < 400
    status = upstream.status_code
    call = _call_trace(request, api, body, mode, scope, sources, outcome, block, headers, status)
    finished = _Finished(services, trace, api.name, scope, headers, status, clock, latest, call)
    if not api.is_streaming(body):
        content = await read_body(upstream, deadline)
        reply, model = api.reply_of(content)
        job = (
            _job(api, services.policy, principal, request, body, scope, req_id, reply, model, trace)
            if learn
            else None
        )
        finished(streamed=False)
        return Response(
            content=content,
            status_code=upstream.status_code,
            headers=response_headers(upstream, headers),
            media_type=upstream.headers.get("content-type", "application/json"),
            background=BackgroundTask(_after_reply, services, finished.traced(job, model), job),
        )

    # 6. tee the relayed bytes; 7. enqueue when the relay ends
    assembler = api.assembler()

    def on_close(exhausted: bool) -> None:
        finished(streamed=True, complete=exhausted or assembler.finished)
        job = None
        if learn:
            # A reply cut short (either side closed early) is not learned from; what the user said is.
            reply = assembler.reply if exhausted or assembler.finished else ""
            job = _job(
                api, services.policy, principal, request, body, scope, req_id, reply, assembler.model, trace
            )
        services.spawn(_after_reply(services, finished.traced(job, assembler.model), job))

    return Stream(
        relay_body(upstream, api.shape, tee=assembler.feed, on_close=on_close, deadline=deadline),
        status_code=upstream.status_code,
        headers=response_headers(upstream, {**headers, **STREAM_HEADERS}),
        media_type=upstream.headers.get("content-type", "text/event-stream"),
    )


def _job(
    api: WireApi,
    policy: Policy,
    principal: Principal,
    request: Request[object, object, State],
    body: dict[str, Any],
    scope: Scope,
    req_id: str,
    reply: str,
    model: str | None,
    trace: RequestTrace,
) -> ExtractionJob | None:
    turns, hashes = learning_turns(api, body, reply, policy)
    if not turns:
        return None
    return ExtractionJob(
        request_id=req_id,
        scope=scope,
        turns=turns,
        observed_at=utcnow(),
        api=api.name,
        client=request.headers.get("user-agent"),
        model=model or _str_or_none(body.get("model")),
        message_hashes=hashes,
        writable=tuple(sorted(principal.write)),
        traceparent=trace.traceparent,
    )


async def _after_reply(services: Services, call: CallTrace, job: ExtractionJob | None) -> None:
    """Off the hot path, once the reply is out: the call's trace (which never fails), then its
    learning job, so the worker finds the trace to report what it wrote into."""
    await services.traces.keep(call, services.policy.traces)
    if job is not None:
        await services.enqueue(job)


def _call_trace(
    request: Request[object, object, State],
    api: WireApi,
    body: dict[str, Any],
    mode: Mode,
    scope: Scope,
    sources: dict[str, str | None],
    outcome: RecallOutcome,
    block: str,
    headers: dict[str, str],
    http_status: int,
) -> CallTrace:
    """The call's trace as far as the relay knows it: what the call was given, never its text."""
    return CallTrace(
        id=headers["x-mnemo-request-id"],
        at=utcnow(),
        api=api.name,
        client=request.headers.get("user-agent"),
        model=_str_or_none(body.get("model")),
        http_status=http_status,
        status=headers["x-mnemo-status"],
        mode=mode.value,
        scope=scope,
        sources=sources,
        recall_status=outcome.status if mode.recalls else "off",
        recall_reason=outcome.reason,
        injected=InjectedMemory.ranked(outcome.memories),
        block_tokens=estimate_tokens(block) if block else 0,
        forgotten=int(headers["x-mnemo-forgotten"]),
        overhead_ms=float(headers["x-mnemo-overhead-ms"]),
        queued=False,
        not_queued_because=None,
        turns={},
    )


@dataclass(slots=True)
class _Finished:
    """The end of a relayed call: its log line (never prompt text unless asked) and its trace."""

    services: Services
    trace: RequestTrace
    api: str
    scope: Scope
    headers: dict[str, str]
    http_status: int
    clock: Stopwatch
    latest: str
    call: CallTrace

    def traced(self, job: ExtractionJob | None, model: str | None) -> CallTrace:
        """The call's kept trace: the model that answered, and what was queued for learning."""
        why_not = (
            None
            if job is not None
            else "learning is off for this call"
            if not Mode(self.call.mode).learns
            else "the provider answered with an error"
            if self.http_status >= 400
            else "nothing new to learn from"
        )
        return replace(
            self.call,
            model=model or self.call.model,
            queued=job is not None,
            not_queued_because=why_not,
            turns=dict(Counter(turn.role for turn in job.turns)) if job else {},
        )

    def __call__(self, streamed: bool, complete: bool = True) -> None:
        fields: dict[str, Any] = {
            "request_id": self.headers["x-mnemo-request-id"],
            "api": self.api,
            "status": self.headers["x-mnemo-status"],
            "http_status": self.http_status,
            "recalled": int(self.headers["x-mnemo-recalled"]),
            "forgotten": int(self.headers["x-mnemo-forgotten"]),
            "overhead_ms": float(self.headers["x-mnemo-overhead-ms"]),
            "total_ms": round(self.clock.ms(), 2),
            "streamed": streamed,
            "complete": complete,
            **scope_digests(self.scope),
        }
        if self.services.settings.log_prompts:
            fields["prompt"] = self.latest[:2000]
        request_log.info("relayed %s", self.api, extra=fields)
        self.trace.end(fields)


def learning_turns(
    api: WireApi, body: dict[str, Any], reply: str, policy: Policy
) -> tuple[list[Turn], dict[int, str]]:
    """What of one exchange the worker reads, and the hashes of the messages it may learn from.

    Nothing when the request holds no new user turn. Secrets are cut here, before the job is
    queued: the queue is persisted, and must never hold one.
    """
    turns = api.latest_user_turns(body)
    if not turns:
        return [], {}
    hashes = api.message_hashes(body, [t.index for t in turns])
    answered = api.previous_reply(body, turns[0].index)
    if answered is not None:
        # Read only to recognise a correction of it ("No, use yarn"); never learned from again.
        turns = [answered, *turns]
    # Read only to know what a correction corrects ("sorry, I meant Utrecht"); learned when new.
    turns = [*api.earlier_user_turns(body, turns[0].index), *turns]
    if reply:
        # The reply is learned from too, as inferred; it sits right after the request's messages.
        reply_turn = Turn(role="assistant", text=reply, index=api.message_count(body))
        turns = [*turns, reply_turn]
        hashes[reply_turn.index] = hashlib.sha256(reply.encode()).hexdigest()
    matcher = secret_matcher(policy.secret_patterns)
    # a forget command is never queued: the words it names would sit in the persisted queue
    said = [
        replace(t, text=without_forget_requests(t.text) if t.role != "assistant" else t.text)
        for t in (replace(t, text=within_learning_limit(t.text)) for t in turns)
    ]
    kept = [replace(t, text=redact(t.text, matcher)) for t in said if t.text.strip()]
    if not any(t.role in ("user", "assistant") for t in kept):
        return [], {}
    return kept, hashes


# A message longer than this is read by its head and tail only: what a person says of themselves
# sits around a long paste, not inside it, and the parser's memory grows with the text.
LEARNING_HEAD_CHARS = 40_000
LEARNING_TAIL_CHARS = 10_000


def within_learning_limit(text: str) -> str:
    if len(text) <= LEARNING_HEAD_CHARS + LEARNING_TAIL_CHARS:
        return text
    # cut at whitespace, so no token (a key among them) is split into a part the scanner misses
    head_end = max(text.rfind(" ", 0, LEARNING_HEAD_CHARS), text.rfind("\n", 0, LEARNING_HEAD_CHARS), 0)
    tail_start = len(text) - LEARNING_TAIL_CHARS
    tail_start = min(
        i for i in (text.find(" ", tail_start), text.find("\n", tail_start), len(text)) if i >= 0
    )
    return f"{text[:head_end]}\n\n{text[tail_start:]}"


def _str_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None
