"""What each request is given: needed memories recalled, unrelated ones left out.

Sets under tests/data/ (``recall_relevance*.jsonl``): profiles of one user in one project with
30-45 stored memories (standing rules and answer-style preferences, project facts, personal facts,
events) and 25-35 requests, each labeled with the memories it ``needs`` and those that would be
``ok`` to give. Memories are written to a real store with their embeddings; each request goes
through ``proxy.recall.recall`` with the default policy's budget, as the relay calls it.

Reported per set:
- needed recall: the share of needed memories injected;
- unrelated share: injected lines neither needed, ok nor standing, over all injected lines;
- topical unrelated share: the same over the injected lines that are not standing;
- lines per request, and for requests that need nothing, the topical lines they still got.
"""

from __future__ import annotations

import asyncio
import json
import re
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bench.common import ROOT, report, table
from core.model import Evidence, Kind, Memory, Source, new_id, utcnow
from core.scope import Scope
from extractors import Extractor, Turn, build_extractor
from extractors.vocabulary import Vocabulary, load_vocabulary
from policies import DEFAULT_POLICY
from proxy.memory.embedded import EmbeddedStore
from proxy.memory.embeddings import EmbeddingService, MiniLMOnnxEmbedder
from proxy.memory.redis_store import RedisMemoryStore
from proxy.recall import recall, relevant
from proxy.settings import RecallSettings

SETS = (
    "recall_relevance.jsonl",
    "recall_relevance_holdout.jsonl",
    "recall_relevance_dev3.jsonl",
    "recall_relevance_holdout3.jsonl",
)
_KINDS = {"rule": Kind.PROCEDURAL, "fact": Kind.SEMANTIC, "event": Kind.EPISODIC}


@dataclass(slots=True)
class Relevance:
    requests: int = 0
    needed: int = 0
    needed_given: int = 0
    lines: int = 0
    unrelated: int = 0
    topical_lines: int = 0
    empty_requests: int = 0
    topical_on_empty: int = 0
    misses: list[tuple[str, str]] = field(default_factory=list)
    extras: list[tuple[str, str]] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.needed_given / self.needed if self.needed else 1.0

    @property
    def unrelated_share(self) -> float:
        return self.unrelated / self.lines if self.lines else 0.0

    @property
    def topical_unrelated_share(self) -> float:
        return self.unrelated / self.topical_lines if self.topical_lines else 0.0


def _first_person(text: str, project: str) -> str:
    """A stored sentence as its user would have said it, to learn which slot it fills."""
    text = re.sub(rf"^(?:In\s+)?[Pp]roject {re.escape(project)}'s\b", "Our", text)
    text = re.sub(rf"[Pp]roject {re.escape(project)}", "our project", text)
    text = re.sub(r"^The user's\b", "My", text)
    text = re.sub(r"\bthe user's\b", "my", text)
    text = re.sub(r"^The user\b", "I", text)
    text = re.sub(r"\bthe user\b", "me", text)
    return re.sub(r"\bI is\b", "I am", re.sub(r"\bI has\b", "I have", text))


def _slots(extractor: Extractor, texts: list[str]) -> list[tuple[str | None, str | None]]:
    """The slot (key, value) the extractor gives each sentence, as a learned record would carry."""
    found = extractor.extract_many([[Turn("user", text, 0)] for text in texts])
    slots: list[tuple[str | None, str | None]] = []
    for candidates in found:
        keyed = [c for c in candidates if c.key]
        slots.append((keyed[0].key, keyed[0].value) if keyed else (None, None))
    return slots


def _memory(raw: dict[str, Any], org: str, project: str, user: str, model: str) -> Memory:
    scope = Scope(org, project=project) if raw["scope"] == "project" else Scope(org, user=user)
    kind = Kind.PROCEDURAL if raw.get("standing") else _KINDS[raw["kind"]]
    now = utcnow()
    return Memory(
        id=new_id(),
        kind=kind,
        text=raw["text"],
        scope=scope,
        evidence=Evidence.STATED,
        confidence=0.9,
        source=Source(role="user", request_id="bench", message_index=0, message_sha256="", span=raw["text"]),
        observed_at=now,
        valid_from=now,
        embedding_model=model,
        extra={"bench_id": raw["id"]},
    )


async def _score_profile(
    store: RedisMemoryStore,
    embeddings: EmbeddingService,
    extractor: Extractor,
    vocabulary: Vocabulary,
    profile: dict[str, Any],
    settings: RecallSettings,
    floors: tuple[float, ...] = (),
) -> dict[float, Relevance]:
    org = f"bench-{profile['id']}-{new_id()[-6:]}"
    memories = [
        _memory(m, org, profile["project"], profile["user"], embeddings.model_id) for m in profile["memories"]
    ]
    slots = _slots(extractor, [_first_person(m["text"], profile["project"]) for m in profile["memories"]])
    memories = [m.with_changes(key=key, value=value) for m, (key, value) in zip(memories, slots, strict=True)]
    vectors = await embeddings.embed_many([m.text for m in memories])
    for memory, vector in zip(memories, vectors, strict=True):
        await store.put(memory, vector)
    standing = {m["id"] for m in profile["memories"] if m.get("standing")}
    scope = Scope(org, project=profile["project"], user=profile["user"], session="bench")
    results = {floor: Relevance() for floor in (settings.min_similarity, *floors)}
    open_floor = replace(settings, min_similarity=0.0, keyword_min_similarity=0.0, keyword_max_rank=10_000)
    for request in profile["requests"]:
        asked = vocabulary.categories_asked(request["text"])
        outcome = await recall(store, embeddings, scope, request["text"], open_floor, asked=asked)
        for floor, result in results.items():
            at_floor = replace(settings, min_similarity=floor)
            kept = [
                item
                for item in outcome.memories
                if item.memory.extra.get("bench_id", "") in standing or relevant(item, at_floor, asked)
            ]
            _count(result, request, [item.memory.extra.get("bench_id", "") for item in kept], standing)
    return results


def _count(result: Relevance, request: dict[str, Any], given: list[str], standing: set[str]) -> None:
    needs, ok = set(request["needs"]), set(request.get("ok", []))
    result.requests += 1
    result.needed += len(needs)
    result.needed_given += len(needs & set(given))
    result.lines += len(given)
    topical = [g for g in given if g not in standing]
    result.topical_lines += len(topical)
    unrelated = [g for g in topical if g not in needs | ok]
    result.unrelated += len(unrelated)
    if not needs:
        result.empty_requests += 1
        result.topical_on_empty += len(topical)
    result.misses += [(request["id"], m) for m in sorted(needs - set(given))]
    result.extras += [(request["id"], u) for u in unrelated]


FLOORS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)


async def _run(profiles: list[dict[str, Any]], data_dir: Path) -> dict[float, Relevance]:
    embedder = MiniLMOnnxEmbedder()
    embeddings = EmbeddingService(embedder)
    budget = DEFAULT_POLICY.recall
    settings = RecallSettings(
        max_memories=budget.max_memories,
        max_tokens=budget.max_tokens,
        min_score=budget.min_score,
        min_similarity=budget.min_similarity,
        standing_max_memories=budget.standing_max_memories,
        standing_max_tokens=budget.standing_max_tokens,
        timeout_s=30,
    )
    totals: dict[float, Relevance] = {}
    extractor = build_extractor()
    vocabulary = load_vocabulary()
    with EmbeddedStore(data_dir) as embedded:
        store = RedisMemoryStore(embedded.url, embedder.model_id, embedder.dims, timeout_s=30)
        await store.open()
        for profile in profiles:
            parts = await _score_profile(store, embeddings, extractor, vocabulary, profile, settings, FLOORS)
            for floor, part in parts.items():
                total = totals.setdefault(floor, Relevance())
                for name in Relevance.__dataclass_fields__:
                    setattr(total, name, getattr(total, name) + getattr(part, name))
        await store.close()
    return totals


def main(quick: bool, record: bool) -> None:
    sections = []
    figures: dict[str, Any] = {}
    for name in SETS:
        path = ROOT / "tests" / "data" / name
        if not path.exists():
            continue
        with tempfile.TemporaryDirectory() as tmp:
            profiles = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
            results = asyncio.run(_run(profiles, Path(tmp) / "store"))
        result = results[DEFAULT_POLICY.recall.min_similarity]
        figures[name] = {
            "requests": result.requests,
            "needed_recall": round(result.recall, 3),
            "unrelated_share": round(result.unrelated_share, 3),
            "topical_unrelated_share": round(result.topical_unrelated_share, 3),
            "lines_per_request": round(result.lines / max(1, result.requests), 2),
            "topical_lines_on_requests_needing_none": round(
                result.topical_on_empty / max(1, result.empty_requests), 2
            ),
        }
        sections.append(
            (
                f"tests/data/{name}: what each request is given (default policy budget)",
                table(
                    [
                        "requests",
                        "needed recall",
                        "unrelated share",
                        "topical unrelated share",
                        "lines / request",
                        "topical lines when none needed",
                    ],
                    [list(figures[name].values())],
                ),
            )
        )
        sweep = [
            [floor, round(r.recall, 3), round(r.unrelated_share, 3), round(r.topical_unrelated_share, 3)]
            for floor, r in sorted(results.items())
        ]
        figures[name]["sweep"] = sweep
        sections.append(
            (
                f"tests/data/{name}: the similarity floor for topical records, swept (the policy's is "
                f"{DEFAULT_POLICY.recall.min_similarity})",
                table(["floor", "needed recall", "unrelated share", "topical unrelated share"], sweep),
            )
        )
        if not quick:
            for request_id, memory_id in result.misses:
                print(f"  missed {request_id}: {memory_id}")
    report("relevance", quick, sections, figures, record)
