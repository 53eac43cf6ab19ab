"""Scoring learning against sets of natural chat turns (``tests/data/natural_phrasing.jsonl``).

A case is one message as people type it, labeled with the durable facts a careful note-taker
would keep. Facts name a *value* copied from the message and the scope it belongs to; they do not
name Mnemo's slot keys, so the labels do not depend on how the extractor works:

- a record *matches* a fact when the fact's value (or one of ``also``) occurs, as whole words,
  in the record's text or value, and the record is written to the fact's scope level;
- a ``changes`` fact also names what it ``replaces`` (said in ``before``, an earlier session, or in
  ``context``, earlier in the same conversation): it counts as superseding when the new record
  fills the same slot as the record the old statement gave;
- an ``exceptions`` fact names the general value it ``keeps``: the exception must not take the
  general record's slot;
- a case with no facts should store nothing: any record from it is junk; a case with a
  ``secret`` must never store that string in any record.

Everything here is pure; the caller runs extraction and policy and hands over what would be stored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CATEGORIES = (
    "stack",
    "commands",
    "rules",
    "personal",
    "changes",
    "exceptions",
    "agent_reports",
    "nothing",
    "multi",
)
_WORD = re.compile(r"[\w.+#/@:'-]+", re.UNICODE)
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class ExpectedFact:
    value: str
    scope: str
    also: tuple[str, ...] = ()
    replaces: str | None = None
    keeps: str | None = None
    optional: bool = False

    @property
    def values(self) -> tuple[str, ...]:
        return (self.value, *self.also)


@dataclass(frozen=True, slots=True)
class NaturalCase:
    id: str
    category: str
    role: str
    text: str
    facts: tuple[ExpectedFact, ...]
    before: tuple[str, ...] = ()
    context: tuple[tuple[str, str], ...] = ()  # (role, text) earlier in the same conversation
    secret: str | None = None
    probe: str | None = None


@dataclass(frozen=True, slots=True)
class StoredRecord:
    """What learning would write for a case: enough to score it."""

    text: str
    value: str
    scope_level: str
    key: str | None
    qualifier: str | None = None
    span: str = ""


@dataclass(slots=True)
class CategoryScore:
    cases: int = 0
    expected: int = 0
    found: int = 0
    records: int = 0
    correct_records: int = 0
    junk_records: int = 0
    empty_cases: int = 0
    junk_cases: int = 0
    secrets_stored: int = 0
    slot_checks: int = 0
    slot_ok: int = 0
    misses: list[tuple[str, str]] = field(default_factory=list)
    wrong: list[tuple[str, str]] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.found / self.expected if self.expected else 1.0

    @property
    def precision(self) -> float:
        return self.correct_records / self.records if self.records else 1.0

    @property
    def junk(self) -> float:
        """Share of records that came from a message that should have stored nothing."""
        return self.junk_records / self.records if self.records else 0.0

    def add(self, other: CategoryScore) -> None:
        for name in (
            "cases",
            "expected",
            "found",
            "records",
            "correct_records",
            "junk_records",
            "empty_cases",
            "junk_cases",
            "secrets_stored",
            "slot_checks",
            "slot_ok",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.misses += other.misses
        self.wrong += other.wrong


def load_natural(path: Path) -> list[NaturalCase]:
    cases = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        raw: dict[str, Any] = json.loads(line)
        try:
            cases.append(_case(raw))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path.name}:{number}: {exc}") from exc
    return cases


def _case(raw: dict[str, Any]) -> NaturalCase:
    if raw["category"] not in CATEGORIES:
        raise ValueError(f"unknown category {raw['category']!r}")
    facts = tuple(
        ExpectedFact(
            value=f["value"],
            scope=f.get("scope", "project"),
            also=tuple(f.get("also", ())),
            replaces=f.get("replaces"),
            keeps=f.get("keeps"),
            optional=bool(f.get("optional", False)),
        )
        for f in raw.get("facts", [])
    )
    return NaturalCase(
        id=raw["id"],
        category=raw["category"],
        role=raw.get("role", "user"),
        text=raw["text"],
        facts=facts,
        before=tuple(raw.get("before", ())),
        context=tuple((c["role"], c["text"]) for c in raw.get("context", ())),
        secret=raw.get("secret"),
        probe=raw.get("probe"),
    )


_POSSESSIVES = frozenset({"my", "their", "his", "her", "our", "its", "your"})


def _stem(word: str) -> str:
    word = word.strip(".:'-").lower()
    if word in _POSSESSIVES:
        return "<poss>"  # "brew my own beer" is said of the user as "brews their own beer"
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    # "https://app.tallyho.io" holds the host "app.tallyho.io" as a word of its own
    return [w for w in (_stem(_SCHEME.sub("", w)) for w in _WORD.findall(text)) if w]


def contains(haystack: str, needle: str) -> bool:
    """``needle``'s words occur in ``haystack`` in order, as whole (lightly stemmed) words."""
    hay, pin = words(haystack), words(needle)
    if not pin:
        return False
    return any(hay[i : i + len(pin)] == pin for i in range(len(hay) - len(pin) + 1))


def matches(record: StoredRecord, fact: ExpectedFact) -> bool:
    if record.scope_level != fact.scope:
        return False
    return any(contains(record.text, v) or contains(record.value, v) for v in fact.values)


def score_case(
    case: NaturalCase,
    records: Sequence[StoredRecord],
    earlier: Sequence[StoredRecord] = (),
) -> CategoryScore:
    """One case. ``earlier``: what the ``before``/``context`` statements stored, for slot checks."""
    result = CategoryScore(cases=1, records=len(records))
    required = [f for f in case.facts if not f.optional]
    result.expected = len(required)
    if not case.facts:
        result.empty_cases = 1
        result.junk_cases = int(bool(records))
        result.junk_records = len(records)
    for record in records:
        if any(matches(record, fact) for fact in case.facts):
            result.correct_records += 1
        else:
            result.wrong.append((case.id, f"[{record.scope_level}|{record.key}] {record.text}"))
    for fact in required:
        hits = [r for r in records if matches(r, fact)]
        if hits:
            result.found += 1
        else:
            result.misses.append((case.id, f"{fact.value} ({fact.scope})"))
        if fact.replaces or fact.keeps:
            result.slot_checks += 1
            if _slot_ok(fact, hits, earlier):
                result.slot_ok += 1
            elif hits:
                result.misses.append((case.id, f"slot: {fact.value} vs {fact.replaces or fact.keeps}"))
    if case.secret:
        secret = case.secret.lower()
        if any(secret in f"{r.text} {r.value} {r.span}".lower() for r in [*records, *earlier]):
            result.secrets_stored += 1
    return result


def _slot_ok(fact: ExpectedFact, hits: Sequence[StoredRecord], earlier: Sequence[StoredRecord]) -> bool:
    old_value = fact.replaces or fact.keeps or ""
    old = [r for r in earlier if contains(r.value, old_value) or contains(r.text, old_value)]
    if not hits or not old:
        return False
    same_slot = any(
        h.key is not None and h.key == o.key and (h.qualifier or "") == (o.qualifier or "")
        for h in hits
        for o in old
    )
    return same_slot if fact.replaces else not same_slot


def score_natural(
    cases: Iterable[NaturalCase],
    learn: Callable[[list[NaturalCase]], list[tuple[list[StoredRecord], list[StoredRecord]]]],
) -> dict[str, CategoryScore]:
    """Per category and ``all``. ``learn`` gives, per case, (records of ``text``, records of the
    earlier statements)."""
    cases = list(cases)
    by_category: dict[str, CategoryScore] = {c: CategoryScore() for c in CATEGORIES}
    for case, (records, earlier) in zip(cases, learn(cases), strict=True):
        by_category[case.category].add(score_case(case, records, earlier))
    total = CategoryScore()
    for score in by_category.values():
        total.add(score)
    by_category["all"] = total
    return by_category
