"""Corrections and pinning: a person's change to one record (the management API's PATCH).

A correction is a new version through the store's ``supersede``, the same as learning: evidence
``admin``, confidence 1, source role ``api`` with the corrected text as the span, extractor
``mnemo.api.correction.v1``, the current policy's label and retention. The old version closes and
stays in the history. Only the current version can be corrected (409 otherwise), and a correction
holding a secret is refused. Pinning is metadata: it changes the record in place.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core.errors import BadRequest
from core.model import Evidence, Memory, Source, Status, new_id
from policies import Policy
from policies.retention import expires_at
from policies.secrets import contains_secret, secret_matcher
from proxy.memory.embeddings import EmbeddingService
from proxy.memory.store import MemoryStore
from proxy.portability import refingerprinted

CORRECTION_EXTRACTOR = "mnemo.api.correction.v1"


@dataclass(frozen=True, slots=True)
class Correction:
    """What a person changes: any of text, value, subject and valid time (``None``: keep), with an
    optional reason kept on the new version."""

    text: str | None = None
    value: str | None = None
    subject: str | None = None
    valid_from: datetime | None = None
    reason: str | None = None

    def changes_anything(self) -> bool:
        return any(v is not None for v in (self.text, self.value, self.subject, self.valid_from))


@dataclass(frozen=True, slots=True)
class Origin:
    """Who made the change and through which request (the new version's source)."""

    actor: str
    request_id: str
    client: str | None


def corrected_version(
    memory: Memory,
    change: Correction,
    extra: dict[str, object],
    origin: Origin,
    policy: Policy,
    embedding_model: str,
    now: datetime,
) -> Memory:
    """The new version that ``change`` makes of ``memory`` (pure): refused if ``memory`` is not the
    current version (409), if the text is empty, or if it holds a secret."""
    if memory.status is Status.SUPERSEDED or memory.valid_to is not None:
        current = memory.superseded_by or "the newest version"
        raise BadRequest(
            f"{memory.id} is an old version; correct the current one ({current})", status_code=409
        )
    text = (change.text if change.text is not None else memory.text).strip()
    if not text:
        raise BadRequest("text: empty", param="text")
    if contains_secret(text, secret_matcher(policy.secret_patterns)):
        raise BadRequest("text holds a secret (API key, token, password); it is never stored", param="text")
    reason = {"reason": change.reason} if change.reason else {}
    correction = memory.with_changes(
        id=new_id(),
        text=text,
        value=change.value if change.value is not None else memory.value,
        subject=change.subject if change.subject is not None else memory.subject,
        evidence=Evidence.ADMIN,
        confidence=1.0,
        source=Source(
            role="api",
            request_id=origin.request_id,
            message_index=0,
            message_sha256="",
            span=text,
            client=origin.client,
        ),
        observed_at=now,
        valid_from=change.valid_from or now,
        valid_to=None,
        status=Status.ACTIVE,
        superseded_by=None,
        policy=policy.label,
        extractor=CORRECTION_EXTRACTOR,
        seen_count=1,
        last_seen_at=None,
        embedding_model=embedding_model,
        extra={**extra, "corrected_by": origin.actor, **reason},
    )
    correction = refingerprinted(correction)
    return correction.with_changes(expires_at=expires_at(correction, policy, now))


async def correct(
    store: MemoryStore,
    embeddings: EmbeddingService,
    policy: Policy,
    memory: Memory,
    change: Correction,
    extra: dict[str, object],
    origin: Origin,
    now: datetime,
) -> Memory:
    """Write the corrected version: it supersedes ``memory``, and the audit stream says who did it."""
    correction = corrected_version(memory, change, extra, origin, policy, embeddings.model_id, now)
    (vector,) = await embeddings.embed_many([correction.text])
    written = await store.supersede(memory, correction, vector)
    await store.record_audit(
        memory.scope.org, origin.actor, "correct", memory_id=memory.id, new_id=written.id
    )
    return written


async def set_pinned(
    store: MemoryStore, policy: Policy, memory: Memory, extra: dict[str, object], actor: str, now: datetime
) -> Memory:
    """Pin or unpin in place (metadata, no new version); a pinned record never expires."""
    pinned = memory.with_changes(extra=extra)
    return await store.set_extra(memory, extra, expires_at(pinned, policy, now), actor=actor)
