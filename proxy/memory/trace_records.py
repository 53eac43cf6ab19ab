"""A request trace's parts as written and as shown: the call (``CallTrace``), the memories it was
given (``InjectedMemory``), what its learning job did (``LearnedIds``), and the stored hash read back
as the API's body (``shown``). Store layout and access: ``proxy.memory.traces``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from core.scope import Scope, level_of

if TYPE_CHECKING:
    from proxy.memory.store import ScoredMemory


def text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@dataclass(frozen=True, slots=True)
class InjectedMemory:
    """One memory the call was given, at its place in the block (1 = first)."""

    id: str
    rank: int
    score: float
    similarity: float | None
    keyword_rank: int | None
    kind: str
    level: str

    @classmethod
    def ranked(cls, memories: list[ScoredMemory]) -> list[InjectedMemory]:
        return [
            cls(
                id=item.memory.id,
                rank=rank,
                score=round(item.score, 6),
                similarity=None if item.similarity is None else round(item.similarity, 6),
                keyword_rank=item.keyword_rank,
                kind=item.memory.kind.value,
                level=level_of(item.memory.scope),
            )
            for rank, item in enumerate(memories, start=1)
        ]


@dataclass(frozen=True, slots=True)
class CallTrace:
    """One relayed call, as kept: no prompt text."""

    id: str
    at: datetime
    api: str
    client: str | None
    model: str | None
    http_status: int
    status: str  # X-Mnemo-Status
    mode: str
    scope: Scope
    sources: dict[str, str | None]  # per level: principal, header, path, body, inferred, client, ...
    recall_status: str  # ok, off, degraded
    recall_reason: str | None
    injected: list[InjectedMemory]
    block_tokens: int
    forgotten: int
    overhead_ms: float
    queued: bool  # a learning job was queued
    not_queued_because: str | None
    turns: dict[str, int]  # turns queued for learning, by role

    def doc(self) -> str:
        return json.dumps(
            {
                "id": self.id,
                "at": self.at.isoformat(),
                "api": self.api,
                "client": self.client,
                "model": self.model,
                "http_status": self.http_status,
                "status": self.status,
                "mode": self.mode,
                "scope": self.scope.as_dict(),
                "scope_sources": self.sources,
                "recall": {"status": self.recall_status, "reason": self.recall_reason},
                "block_tokens": self.block_tokens,
                "forgotten": self.forgotten,
                "overhead_ms": round(self.overhead_ms, 2),
                "learning": {
                    "queued": self.queued,
                    "reason": self.not_queued_because,
                    "turns": self.turns,
                },
            },
            ensure_ascii=False,
        )


@dataclass(slots=True)
class LearnedIds:
    """What learning one call's job did, by record id (never text)."""

    scope: Scope
    written: list[str] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)
    superseded: list[tuple[str, str]] = field(default_factory=list)  # (new version, the one it replaced)
    quarantined: list[str] = field(default_factory=list)
    refused: list[tuple[str, str | None]] = field(default_factory=list)  # (reason, rule)

    def fields(self, at: datetime) -> list[tuple[str, str, str]]:
        """(hash field, value, the memory id it names or '') for the trace."""
        out = [("learned_at", at.isoformat(), "")]
        out += [(f"w:{i}", "", i) for i in self.written]
        out += [(f"m:{i}", "", i) for i in self.merged]
        out += [(f"s:{new}", old, new) for new, old in self.superseded]
        out += [(f"q:{i}", "", i) for i in self.quarantined]
        out += [
            (f"r:{n}", json.dumps({"reason": reason, "rule": rule}), "")
            for n, (reason, rule) in enumerate(self.refused)
        ]
        return out


def shown(row: dict[Any, Any]) -> dict[str, Any]:
    """A stored trace as the API shows it."""
    fields = {text(k): text(v) for k, v in row.items()}
    body: dict[str, Any] = json.loads(fields["doc"])
    injected = [{"id": k[4:], **json.loads(v)} for k, v in fields.items() if k.startswith("inj:")]
    body["injected"] = sorted(injected, key=lambda item: item["rank"])
    learning: dict[str, Any] = body["learning"]
    learning["learned_at"] = fields.get("learned_at")
    learning["written"] = sorted(k[2:] for k in fields if k.startswith("w:"))
    learning["merged"] = sorted(k[2:] for k in fields if k.startswith("m:"))
    learning["superseded"] = [
        {"id": k[2:], "supersedes": v or None} for k, v in sorted(fields.items()) if k.startswith("s:")
    ]
    learning["quarantined"] = sorted(k[2:] for k in fields if k.startswith("q:"))
    learning["refused"] = [
        json.loads(fields[k]) for k in sorted((k for k in fields if k.startswith("r:")), key=_refusal_no)
    ]
    return {"object": "request", **body}


def _refusal_no(name: str) -> int:
    return int(name[2:])
