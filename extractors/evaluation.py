"""Scoring extraction against a labeled set of chat turns (tests/data/extraction_labeled.jsonl).

Each line: ``{"text": ..., "facts": [[key, value], ...]}``. A keyed fact matches a record with the
same key and value (case-insensitive); a fact with key ``null`` matches a free-form record whose
value contains the given text. ``facts: []`` marks a turn that should yield nothing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from extractors.base import Candidate


@dataclass(frozen=True, slots=True)
class LabeledTurn:
    text: str
    facts: tuple[tuple[str | None, str], ...]


@dataclass(slots=True)
class Score:
    turns: int = 0
    expected: int = 0
    extracted: int = 0
    matched_records: int = 0
    found_facts: int = 0
    empty_turns: int = 0
    junk_turns: int = 0
    misses: list[tuple[str, tuple[str | None, str]]] = field(default_factory=list)
    false_positives: list[tuple[str, str | None, str]] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.matched_records / self.extracted if self.extracted else 1.0

    @property
    def recall(self) -> float:
        return self.found_facts / self.expected if self.expected else 1.0

    @property
    def junk_rate(self) -> float:
        """Share of turns that should yield nothing but produced a record."""
        return self.junk_turns / self.empty_turns if self.empty_turns else 0.0


def load_labeled(path: Path) -> list[LabeledTurn]:
    turns = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            raw = json.loads(line)
            turns.append(LabeledTurn(raw["text"], tuple((k, v) for k, v in raw["facts"])))
    return turns


def _matches(candidate: Candidate, fact: tuple[str | None, str]) -> bool:
    key, value = fact
    if key is None:
        return candidate.key is None and value.lower() in candidate.value.lower()
    return candidate.key == key and candidate.value.lower() == value.lower()


def score(labeled: Iterable[LabeledTurn], extract: Callable[[list[str]], list[list[Candidate]]]) -> Score:
    """``extract`` maps texts to the candidates that would be stored for each (after policy)."""
    turns = list(labeled)
    result = Score(turns=len(turns))
    for turn, candidates in zip(turns, extract([t.text for t in turns]), strict=True):
        result.expected += len(turn.facts)
        result.extracted += len(candidates)
        if not turn.facts:
            result.empty_turns += 1
            result.junk_turns += bool(candidates)
        for candidate in candidates:
            if any(_matches(candidate, fact) for fact in turn.facts):
                result.matched_records += 1
            else:
                result.false_positives.append((turn.text, candidate.key, candidate.value))
        for fact in turn.facts:
            if any(_matches(candidate, fact) for candidate in candidates):
                result.found_facts += 1
            else:
                result.misses.append((turn.text, fact))
    return result
