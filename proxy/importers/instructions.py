"""Import of an instructions file as learning would take it from the user: each bullet or paragraph
is a user turn through the extractor (facts and rules with slots), the policy decides what is kept
and where, and the learner writes it (merge, supersede, insert, limits). The records say
``imported`` and point at the file, the line and the sha256 of the block.

Importing the same file again changes nothing: a record already held as it is (its fingerprint,
its slot's value, or a near-duplicate of a free-form one), or a line that already reads as a held
record (what ``render`` wrote), is left alone, not even counted as seen again. An edited line gives a new
value for its slot, which supersedes the old one. A line removed, or edited so that it no longer
gives a record it gave before, closes the record it gave: the file was its source, and the file no
longer says it (the record stays in the history, closed, as a superseded value does).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import hashlib
from dataclasses import dataclass

from core.errors import BadRequest
from core.model import Evidence, Memory, Status, slot_key, utcnow
from core.scope import Principal, Scope
from extractors import Candidate, Extractor, Turn, build_extractor
from policies import decide
from proxy.auth import Forbidden
from proxy.importers.markdown import Block, Document, read_document
from proxy.importers.render import rendered_line
from proxy.importers.report import FileImportResult, LineOutcome, LineRefusal
from proxy.lifespan import Services
from proxy.memory.embeddings import Vectors
from proxy.memory.store import ListQuery
from proxy.worker.learner import Learner, WriteReport, to_memory
from proxy.worker.queue import ExtractionJob

HELD_LIMIT = 5000


@dataclass(frozen=True, slots=True)
class FileRequest:
    format: str
    file: str  # as the records' source names it
    project: str | None
    dry_run: bool


@functools.cache
def shared_extractor() -> Extractor:
    """One extractor per process (loading spaCy takes seconds); it is pure, so sharing is safe."""
    return build_extractor()


async def import_instructions(
    body: bytes, request: FileRequest, services: Services, principal: Principal
) -> FileImportResult:
    if not principal.may_use_project(request.project):
        raise Forbidden(f"this key may not use project {request.project!r}", param="project")
    try:
        document = read_document(body.decode("utf-8"))
    except UnicodeDecodeError:
        raise BadRequest("the file is not UTF-8 text", param="body") from None
    scope = Scope(org=principal.org, project=request.project, user=principal.default_user)
    result = FileImportResult(
        format=request.format,
        file=request.file,
        file_sha256=hashlib.sha256(body).hexdigest(),
        project=request.project,
        dry_run=request.dry_run,
        blocks=len(document.blocks),
    )
    held = await services.store.visible_current(scope, HELD_LIMIT, readable=principal.read)
    run = _Run(services, principal, request, result, held)
    # held for review from an earlier import: the same line again must not add another copy
    review = ListQuery(
        org=principal.org,
        statuses=(Status.QUARANTINED,),
        evidence=(Evidence.IMPORTED,),
        readable=principal.read,
        limit=1000,
    )
    run.held_fingerprints.update(
        (m.fingerprint, m) for m in (await services.store.list_memories(review)).memories
    )
    memories = await run.decided(document, scope)
    await run.write(memories)
    await run.close_unstated()
    return result


class _Run:
    """One import: what the store held before, what the file states now."""

    def __init__(
        self,
        services: Services,
        principal: Principal,
        request: FileRequest,
        result: FileImportResult,
        held: list[Memory],
    ) -> None:
        self.services, self.principal, self.request, self.result = services, principal, request, result
        self.held = held
        self.held_texts = {rendered_line(m.text).lower(): m for m in held}
        self.held_fingerprints = {m.fingerprint: m for m in held}
        self.stated: set[str] = set()  # ids of held records the file still states

    async def decided(self, document: Document, scope: Scope) -> list[Memory]:
        """The records the file's blocks give, as the policy would keep them."""
        fresh: list[Block] = []
        for block in document.blocks:
            known = self.held_texts.get(rendered_line(block.text).lower())
            if known is not None:  # a line that reads as a record held (e.g. rendered by Mnemo)
                self.stated.add(known.id)
                self.result.add(_outcome(block.line, "unchanged", known))
            else:
                fresh.append(block)
        extractor = await asyncio.to_thread(shared_extractor)
        found = await asyncio.to_thread(
            extractor.extract_many, [[Turn(role="user", text=b.text, index=b.line)] for b in fresh]
        )
        job = self._job(scope, fresh)
        qualifier = ", ".join(document.globs) or None
        candidates = [_qualified(c, qualifier) for batch in found for c in batch]
        kept, refused = decide(
            candidates, scope, self.services.policy, now=job.observed_at, writable=self.principal.write
        )
        for refusal in refused:
            self.result.refusals.append(LineRefusal(line=refusal.candidate.turn.index, reason=refusal.reason))
            self.result.refused += 1
        model = self.services.embeddings.model_id
        return [self._imported(to_memory(job, decision, model)) for decision in kept]

    def _job(self, scope: Scope, blocks: list[Block]) -> ExtractionJob:
        """The file as the learner's job: its blocks the turns, the file the request."""
        return ExtractionJob(
            request_id=self.request.file,
            scope=scope,
            turns=[Turn(role="user", text=b.text, index=b.line) for b in blocks],
            observed_at=utcnow(),
            api="import",
            client=f"mnemo-import/{self.request.format}",
            message_hashes={b.line: hashlib.sha256(b.text.encode("utf-8")).hexdigest() for b in blocks},
        )

    def _imported(self, memory: Memory) -> Memory:
        source = dataclasses.replace(memory.source, role="import")
        extra = {**memory.extra, "file_sha256": self.result.file_sha256, "format": self.request.format}
        return memory.with_changes(evidence=Evidence.IMPORTED, source=source, extra=extra)

    async def write(self, memories: list[Memory]) -> None:
        store = self.services.store
        learner = Learner(shared_extractor(), self.services.embeddings, store, self.services.policies)
        vectors = await self.services.embeddings.embed_many([m.text for m in memories])  # one row each
        for memory, vector in zip(memories, vectors, strict=True):
            line = memory.source.message_index
            current = (
                await store.current_in_slot(slot_key(memory.scope, memory.key, memory.qualifier))
                if memory.key
                else None
            )
            held, action = await self._held_as(memory, current, vector)
            if held is not None:  # already stands in the store: nothing is written, nothing counted
                self.stated.add(held.id)
                self.result.add(_outcome(line, action, held))
                continue
            if memory.status.value == "quarantined":
                action = "quarantined"
            if self.request.dry_run:
                action = action or ("supersede" if current is not None else "insert")
            else:
                action = action or await self._written(learner, memory, vector)
            if current is not None:  # replaced by its new value, not closed
                self.stated.add(current.id)
            self.result.add(_outcome(line, action, memory))

    async def _held_as(
        self, memory: Memory, current: Memory | None, vector: Vectors
    ) -> tuple[Memory | None, str]:
        """The held record that already says what ``memory`` says, and how: the same fact
        ("unchanged": its fingerprint, or its slot's value), or a near-duplicate free-form one
        ("merge", as learning would merge it, but not counted again: a file read twice is no
        second sighting)."""
        same = self.held_fingerprints.get(memory.fingerprint)
        if same is None and current is not None and _same(current.value, memory.value):
            same = current
        if same is not None:
            return same, "unchanged"
        if memory.key is not None or memory.status.value == "quarantined":
            return None, ""
        nearest = await self.services.store.nearest_in_scope(memory.scope, memory.kind.value, vector)
        threshold = self.services.policy.near_duplicate_similarity
        if nearest is not None and nearest.similarity is not None and nearest.similarity >= threshold:
            return nearest.memory, "merge"
        return None, ""

    async def _written(self, learner: Learner, memory: Memory, vector: Vectors) -> str:
        report = WriteReport()
        await learner.write(memory, vector, report)
        for name, action in (("superseded", "supersede"), ("merged", "merge"), ("written", "insert")):
            if getattr(report, name):
                return action
        return "refused"

    async def close_unstated(self) -> None:
        """Records this file gave before and no longer states are closed (kept in the history)."""
        store, now = self.services.store, utcnow()
        for memory in self.held:
            if memory.id in self.stated or not _from_file(memory, self.request.file):
                continue
            self.result.add(_outcome(memory.source.message_index, "close", memory))
            still = await store.get(memory.id) if not self.request.dry_run else None
            if still is not None and still.valid_to is None:
                await store.close_version(still, superseded_by=None, valid_to=now)


def _qualified(candidate: Candidate, qualifier: str | None) -> Candidate:
    """A rule from a file that applies to some paths (Cursor ``globs``) holds only there."""
    if qualifier is None or candidate.qualifier is not None:
        return candidate
    return dataclasses.replace(
        candidate, qualifier=f"in {qualifier}", text_template=f"In {qualifier}: {candidate.text_template}"
    )


def _from_file(memory: Memory, file: str) -> bool:
    return (
        memory.evidence is Evidence.IMPORTED
        and memory.source.role == "import"
        and memory.source.request_id == file
        and (memory.source.client or "").startswith("mnemo-import/")
    )


def _same(a: str | None, b: str | None) -> bool:
    return (a or "").strip().lower() == (b or "").strip().lower()


def _outcome(line: int, action: str, memory: Memory) -> LineOutcome:
    return LineOutcome(
        line=line,
        action=action,
        kind=memory.kind.value,
        text=memory.text,
        scope=memory.scope.as_dict(),
        key=memory.key,
        value=memory.value,
        qualifier=memory.qualifier,
        id=memory.id,
    )
