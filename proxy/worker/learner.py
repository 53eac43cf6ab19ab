"""The learner: extract -> decide -> write, for a batch of jobs the queue handed out."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

from core.model import Evidence, Kind, Memory, Status, new_id, slot_key, utcnow
from core.scope import Scope, level_of
from extractors import SUBJECT_MARK, Candidate, Extractor
from extractors.signals import detect_signals, load_signal_patterns
from policies import (
    Action,
    Decision,
    Policy,
    PolicyHolder,
    decide,
    fingerprint,
    reconcile,
    retention,
    subject_label,
    write_scope,
)
from proxy.memory.embeddings import EmbeddingService, Vectors
from proxy.memory.store import ListQuery, MemoryStore
from proxy.memory.traces import LearnedIds
from proxy.worker.queue import ExtractionJob

log = logging.getLogger("mnemo.jobs")


@dataclass(slots=True)
class WriteReport:
    """What a batch did: the counts, and per call (request id) the ids it wrote, merged, superseded
    and quarantined and why candidates were refused, for the call's trace."""

    written: int = 0
    merged: int = 0
    superseded: int = 0
    refused: int = 0
    quarantined: int = 0
    calls: dict[str, LearnedIds] = field(default_factory=dict)

    def of(self, job: ExtractionJob) -> LearnedIds:
        return self.calls.setdefault(job.request_id, LearnedIds(scope=job.scope))


class Learner:
    """extract -> decide -> write, for a batch of jobs. Model work runs in a thread."""

    def __init__(
        self, extractor: Extractor, embeddings: EmbeddingService, store: MemoryStore, policies: PolicyHolder
    ) -> None:
        self.extractor = extractor
        self.embeddings = embeddings
        self.store = store
        self.policies = policies
        self.signal_patterns = load_signal_patterns()

    @property
    def policy(self) -> Policy:
        """The policy in force now: a reloaded file applies from the next batch on."""
        return self.policies.policy

    async def learn(self, jobs: list[ExtractionJob]) -> WriteReport:
        found = await asyncio.to_thread(self.extractor.extract_many, [job.turns for job in jobs])
        report = WriteReport()
        decided: list[tuple[ExtractionJob, Decision]] = []
        for job, candidates in zip(jobs, found, strict=True):
            report.of(job)  # every job's call hears back, whatever it yields
            kept, refused = decide(
                candidates, job.scope, self.policy, now=job.observed_at, writable=frozenset(job.writable)
            )
            for refusal in refused:
                log.info("not stored (%s): rule %s", refusal.reason, refusal.candidate.rule_id)
                report.of(job).refused.append((refusal.reason, refusal.candidate.rule_id))
            report.refused += len(refused)
            decided.extend((job, decision) for decision in kept)
        if decided:
            memories = [to_memory(job, decision, self.embeddings.model_id) for job, decision in decided]
            vectors = await self.embeddings.embed_many([m.text for m in memories])
            # One at a time, in order: a later fact of the batch may supersede an earlier one.
            for (job, decision), memory, vector in zip(decided, memories, vectors, strict=True):
                if decision.previous_text:
                    await self._record_replaced(job, decision, memory, report.of(job))
                await self._write(memory, vector, report, report.of(job))
        for job in jobs:
            await self._learn_behaviour(job, report)
        return report

    async def _learn_behaviour(self, job: ExtractionJob, report: WriteReport) -> None:
        """Count the tools the user's commands show, per project and session; infer after enough sessions.

        A pattern seen in one project stays in that project (the slot is the project's).
        """
        for signal in detect_signals(self.signal_patterns, job.turns):
            scope = write_scope("project", job.scope)
            if level_of(scope) not in job.writable:
                continue
            slot = slot_key(scope, signal.key, None)
            sessions = await self.store.observe(
                slot,
                signal.value,
                job.scope.session or job.request_id,
                self.policy.behaviour_window_days * 86400,
            )
            if sessions < self.policy.behaviour_sessions:
                continue
            text = (
                signal.text_template.replace(SUBJECT_MARK, subject_label(scope))
                .replace("{sessions}", str(sessions))
                .replace("{value}", signal.value)
            )
            memory = Memory(
                id=new_id(),
                kind=Kind.SEMANTIC,
                text=text,
                scope=scope,
                evidence=Evidence.INFERRED,
                confidence=round(min(0.8, 0.4 + 0.05 * sessions), 4),
                source=job.source(signal.turn, span=signal.value),
                observed_at=job.observed_at,
                key=signal.key,
                value=signal.value,
                valid_from=job.observed_at,
                policy=self.policy.label,
                extractor=f"{signal.pattern_id}.v1",
                fingerprint=fingerprint(scope, "semantic", signal.key, signal.value, text),
                last_seen_at=job.observed_at,
                embedding_model=self.embeddings.model_id,
                extra={"sessions": str(sessions)},
            )
            (vector,) = await self.embeddings.embed_many([memory.text])
            await self._write(memory, vector, report, report.of(job))

    async def _record_replaced(
        self, job: ExtractionJob, decision: Decision, memory: Memory, ids: LearnedIds
    ) -> None:
        """ "We switched from npm to pnpm": if the slot holds nothing yet, keep npm as the past
        version, so the history says what was replaced and when."""
        if memory.key is None or decision.candidate.previous_value is None or decision.previous_text is None:
            return
        if await self.store.current_in_slot(slot_key(memory.scope, memory.key, memory.qualifier)) is not None:
            return
        past = memory.with_changes(
            id=new_id(),
            text=decision.previous_text,
            value=decision.candidate.previous_value,
            valid_from=None,
            fingerprint=fingerprint(
                memory.scope,
                memory.kind.value,
                memory.key,
                decision.candidate.previous_value,
                "",
                memory.qualifier,
            ),
        )
        (vector,) = await self.embeddings.embed_many([past.text])
        await self.store.put(past, vector)
        ids.written.append(past.id)

    async def write(self, memory: Memory, vector: Vectors, report: WriteReport) -> None:
        """One decided record written as learning writes it; the importers of other tools' files
        (proxy.importers) write through it too."""
        await self._write(memory, vector, report)

    async def _write(
        self, memory: Memory, vector: Vectors, report: WriteReport, ids: LearnedIds | None = None
    ) -> None:
        """Merge, supersede or insert one record; ``ids`` (the call's) get what it became."""
        ids = ids if ids is not None else LearnedIds(scope=memory.scope)
        policy, now = self.policy, utcnow()
        memory = memory.with_changes(expires_at=retention.expires_at(memory, policy, now))
        if memory.status is Status.QUARANTINED:
            # kept for review only: it neither merges with nor supersedes what is in force
            await self.store.put(memory, vector)
            report.quarantined += 1
            ids.quarantined.append(memory.id)
            return
        exact = await self.store.find_by_fingerprint(memory.scope, memory.fingerprint)
        if exact is not None and memory.key is None:
            await self.store.mark_seen(exact, expires_at=retention.expires_at(exact, policy, now))
            report.merged += 1
            ids.merged.append(exact.id)
            return
        current = (
            await self.store.current_in_slot(slot_key(memory.scope, memory.key, memory.qualifier))
            if (memory.key)
            else None
        )
        nearest = (
            None if memory.key else await self.store.nearest_in_scope(memory.scope, memory.kind.value, vector)
        )
        outcome = reconcile(
            memory,
            current,
            nearest.memory if nearest else None,
            nearest.similarity if nearest else None,
            policy,
        )
        if outcome.action is Action.INSERT:
            await self.store.put(memory, vector)
            report.written += 1
            ids.written.append(memory.id)
            await self._enforce_limit(memory.scope, policy)
        elif outcome.action is Action.MERGE and outcome.existing is not None:
            renewed = retention.expires_at(outcome.existing, policy, now)
            await self.store.mark_seen(outcome.existing, outcome.confidence, renewed)
            report.merged += 1
            ids.merged.append(outcome.existing.id)
        elif outcome.action is Action.SUPERSEDE and outcome.existing is not None:
            written = await self.store.supersede(
                outcome.existing, memory, vector, retention.superseded_expiry(policy, now)
            )
            report.superseded += 1
            ids.superseded.append((written.id, outcome.existing.id))
            await self._trim_history(written, policy)
        else:
            log.info("not stored (%s): %s", outcome.reason, memory.extractor)
            report.refused += 1
            ids.refused.append((outcome.reason, memory.extractor))

    async def _enforce_limit(self, scope: Scope, policy: Policy) -> None:
        """Keep one exact scope within ``retention.max_per_scope``, evicting in the policy's order."""
        limit = policy.retention.max_per_scope
        page = await self.store.list_memories(
            ListQuery(
                org=scope.org,
                project=scope.project,
                user=scope.user,
                session=scope.session,
                limit=limit + 100,
            )
        )
        exact = [m for m in page.memories if m.scope == scope]
        for memory in retention.over_limit(exact, policy):
            await self.store.delete(memory, actor="retention", reason=f"over {limit} records in its scope")

    async def _trim_history(self, current: Memory, policy: Policy) -> None:
        """Keep at most ``retention.superseded_versions`` old versions of a fact."""
        history = await self.store.history(current)
        old = [m for m in history if m.id != current.id]
        for memory in old[: max(0, len(old) - policy.retention.superseded_versions)]:
            await self.store.delete(
                memory, actor="retention", reason="more old versions than the policy keeps"
            )


def to_memory(job: ExtractionJob, decision: Decision, embedding_model: str) -> Memory:
    candidate: Candidate = decision.candidate
    return Memory(
        id=new_id(),
        kind=Kind(candidate.kind),
        text=decision.text,
        scope=decision.scope,
        evidence=Evidence(decision.evidence),
        confidence=round(decision.confidence, 4),
        qualifier=candidate.qualifier,
        source=job.source(candidate.turn, span=candidate.span),
        observed_at=decision.observed_at,
        subject=decision.scope.label(),
        key=candidate.key,
        value=candidate.value,
        valid_from=decision.valid_from or decision.observed_at,
        policy=decision.policy,
        extractor=candidate.rule_id,
        fingerprint=decision.fingerprint,
        last_seen_at=decision.observed_at,
        embedding_model=embedding_model,
        status=Status(decision.status),
        extra={k: v for k, v in candidate.fields.items() if k in _EXTRA_FIELDS},
    )


# Structured parts of episodes and lessons, kept beside the sentence.
_EXTRA_FIELDS = frozenset({"event", "outcome", "cause", "corrects_message_index", "lesson_from"})
