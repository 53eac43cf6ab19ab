"""``remember``: what an agent asks Mnemo to keep goes the way learning goes, as an inferred record.

The text is one extraction job of the caller's scope, with the secrets cut before anything reads
it (as the proxy cuts them before queueing), learned at once by the worker's own ``Learner``
(extract -> policy decision -> write, with merging, supersession and retention). The agent is not
the user: its turn is an assistant turn, so the policy gives it the assistant's evidence
(``inferred``), its confidence factor, and quarantines instruction-like or dangerous text. Only the
reading is the user's: the extractor reads the text with every reader, as the agent reports what
the user said or what it verified, where an assistant reply is read only for reports of changes.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import timedelta
from typing import Any

from core.model import Evidence, Memory, new_id, utcnow
from core.scope import Principal, Scope
from extractors import Candidate, Extractor, Turn
from policies.secrets import REDACTED, redact, secret_matcher
from proxy.lifespan import Services
from proxy.mcp.views import summary
from proxy.memory.store import ListQuery
from proxy.worker.learner import Learner
from proxy.worker.queue import ExtractionJob

AGENT_ROLE = "assistant"  # the policy's roles give it its evidence (inferred by default)


class ReadAsSaid:
    """An extractor that reads the agent's turns with every reader, as user turns are read, and hands
    the candidates back on the agent's own turns, so the policy decides as for an assistant."""

    def __init__(self, inner: Extractor) -> None:
        self.inner = inner
        self.name = inner.name

    def extract(self, turns: list[Turn]) -> list[Candidate]:
        return self.extract_many([turns])[0]

    def extract_many(self, batches: list[list[Turn]]) -> list[list[Candidate]]:
        read = self.inner.extract_many([[replace(t, role="user") for t in batch] for batch in batches])
        out: list[list[Candidate]] = []
        for batch, found in zip(batches, read, strict=True):
            own = {turn.index: turn for turn in batch}
            out.append([replace(c, turn=own.get(c.turn.index, c.turn)) for c in found])
        return out


async def remember(
    services: Services, extractor: Extractor, principal: Principal, scope: Scope, text: str
) -> dict[str, Any]:
    """Learn ``text`` for ``scope`` now; what was stored (active or quarantined), merged, refused."""
    matcher = secret_matcher(services.policy.secret_patterns)
    cut = redact(text, matcher)
    secrets_cut = cut.count(REDACTED) - text.count(REDACTED)
    services.metrics.secrets_cut += secrets_cut
    job = ExtractionJob(
        request_id=f"mcp-{new_id()}",
        scope=scope,
        turns=[Turn(role=AGENT_ROLE, text=cut, index=0)],
        observed_at=utcnow(),
        api="mcp",
        client="mcp",
        message_hashes={0: hashlib.sha256(text.encode("utf-8")).hexdigest()},
        writable=tuple(sorted(principal.write)),
    )
    learner = Learner(ReadAsSaid(extractor), services.embeddings, services.store, services.policies)
    report = await learner.learn([job])
    stored = await _written_by(services, job)
    return {
        "stored": [summary(memory) for memory in stored],
        "merged": report.merged,
        "superseded": report.superseded,
        "refused": report.refused,
        "quarantined": report.quarantined,
        "secrets_cut": secrets_cut,
        "note": _note(stored, report.merged),
    }


async def _written_by(services: Services, job: ExtractionJob) -> list[Memory]:
    """The records this job wrote (new ones, and new versions of a slot), oldest first."""
    page = await services.store.list_memories(
        ListQuery(
            org=job.scope.org,
            visible_to=job.scope,
            evidence=(Evidence.INFERRED,),
            observed_after=job.observed_at - timedelta(seconds=1),  # the index's clock may round
            limit=200,
        )
    )
    return [m for m in reversed(page.memories) if m.source.request_id == job.request_id]


def _note(stored: list[Memory], merged: int) -> str:
    if stored:
        return "stored as inferred; quarantined records are kept for review and never recalled"
    if merged:
        return "already remembered: the existing record was seen again"
    return "nothing stored: no durable fact or rule was found, or the policy refused it"
