"""The labeled set through extract -> decide: a regression guard on precision and junk."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from core.scope import Scope
from extractors import Candidate, ClauseExtractor, Turn
from extractors.evaluation import load_labeled, score
from policies import DEFAULT_POLICY, decide

LABELED = Path(__file__).parent / "data" / "extraction_labeled.jsonl"


def stored_candidates(extractor: ClauseExtractor, texts: list[str]) -> list[list[Candidate]]:
    found = extractor.extract_many([[Turn("user", text, 0)] for text in texts])
    request = Scope("local", project="p", user="u")
    now = datetime.now(UTC)
    return [[d.candidate for d in decide(c, request, DEFAULT_POLICY, now)[0]] for c in found]


def test_labeled_set_is_large_and_varied() -> None:
    labeled = load_labeled(LABELED)
    assert len(labeled) >= 200
    assert sum(1 for t in labeled if not t.facts) >= 80


def test_precision_recall_and_junk_on_the_labeled_set(extractor: ClauseExtractor) -> None:
    result = score(load_labeled(LABELED), lambda texts: stored_candidates(extractor, texts))
    report = f"P={result.precision:.3f} R={result.recall:.3f} junk={result.junk_rate:.3f}"
    assert result.precision >= 0.9, (report, result.false_positives)
    assert result.junk_rate <= 0.05, (report, result.false_positives)
    assert result.recall >= 0.8, (report, result.misses)


def test_secrets_in_the_labeled_set_are_never_stored(extractor: ClauseExtractor) -> None:
    texts = [t.text for t in load_labeled(LABELED) if "sk-" in t.text or "password" in t.text]
    assert texts
    assert all(c == [] for c in stored_candidates(extractor, texts))
