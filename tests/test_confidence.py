"""The confidence model: features of a candidate, its fitting, its data file, and the cut the policy
makes with it. Fitting and loading are pure and fast; the extractor's use of it runs real spaCy."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from core.errors import ConfigError
from core.scope import Scope
from extractors import ClauseExtractor, Turn
from extractors.base import Candidate
from extractors.confidence import (
    BIAS,
    dump_confidence,
    features,
    fit,
    load_confidence,
)
from extractors.confidence import rated as is_rated
from policies import DEFAULT_POLICY, decide

SCOPE = Scope("local", project="p", user="u")


def _candidate(
    turn: Turn, key: str | None = "database", rule: str = "stack.named.v1", prior: float = 0.85
) -> Candidate:
    return Candidate(
        kind="semantic",
        scope_level="project",
        key=key,
        value="postgres 16",
        text_template="{subject} uses postgres 16 as its database.",
        span="we're on postgres 16",
        turn=turn,
        confidence=prior,
        rule_id=rule,
        extractor="test",
        sentence="we're on postgres 16 since march",
    )


def test_features_say_what_a_candidate_is_and_how_it_was_said() -> None:
    asked = _candidate(Turn("user", "we're on postgres 16 since march, why is vacuum slow?", 0))
    names = set(features(asked, siblings=3))
    assert {"rule=stack.named.v1", "family=database", "scope=project", "role=user"} <= names
    assert {"siblings=3", "prior=0.85", "digits", "turn_asks"} <= names
    assert "sentence_asks" not in names  # the question is in the turn, not in the fact's sentence
    note = _candidate(Turn("assistant", "noted", 0), key=None, rule="rules.note.v1")
    assert {"family=note", "role=assistant", "rule_scope=rules.note.v1|project"} <= set(features(note, 1))


def test_fitting_learns_which_features_go_with_wrong_records() -> None:
    kept, dropped = ["rule=good", "family=database"], ["rule=bad", "family=note"]
    samples = [(kept, True)] * 40 + [(kept, False)] * 4 + [(dropped, False)] * 30 + [(dropped, True)] * 6
    model = fit(samples, l2=1.0)
    assert model.weights["rule=bad"] < 0 < model.weights["rule=good"]
    # close to the shares the samples hold: 40/44 and 6/36
    assert model.probability(kept) > 0.8 and model.probability(dropped) < 0.3
    assert model.probability(["never-seen"]) == pytest.approx(model.probability([]))


def test_a_model_survives_its_file(tmp_path: Path) -> None:
    model = fit([(["a"], True), (["a"], True), (["b"], False), (["a", "b"], False)], l2=1.0)
    path = tmp_path / "confidence.jsonl"
    dump_confidence(model, path)
    again = load_confidence(path)
    for names in (["a"], ["b"], ["a", "b"], []):
        assert again.probability(names) == pytest.approx(model.probability(names), abs=1e-3)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"feature": "bias", "weight": 1.0}\n{"feature": "a", "weigth": 1.0}', "weigth"),
        ('{"feature": "bias", "weight": 1.0}\n{"feature": "a", "weight": "1"}', "Expected `float`"),
        ('{"feature": "bias", "weight": 1.0}\n{"feature": "bias", "weight": 2.0}', "weighted twice"),
        ('{"feature": "a", "weight": 1.0}', "no 'bias' weight"),
        ('{"feature": "bias", "weight": NaN}', "not valid JSON"),
    ],
)
def test_a_bad_model_file_is_refused_with_its_line(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "confidence.jsonl"
    path.write_text(text + "\n")
    with pytest.raises(ConfigError, match=problem):
        load_confidence(path)


def test_the_shipped_model_weighs_only_features_the_extractor_gives() -> None:
    model = load_confidence()
    prefixes = {name.split("=")[0] for name in features(_candidate(Turn("user", "x?", 0)), 1)}
    prefixes |= {"qualified", "dated", "replacing", "sentence_asks", "said_as_rule", "said_as_exception"}
    prefixes |= {"subordinate_opener", BIAS}
    unknown = [name for name in model.weights if name.split("=")[0] not in prefixes]
    assert not unknown
    assert len(model.weights) > 50  # fitted, not a placeholder


def test_the_extractor_rates_each_candidate_and_the_policy_cuts_below_its_floor(
    extractor: ClauseExtractor,
) -> None:
    turn = Turn("user", "we're on postgres 16 and deploy with fly.io. i'm Dana, based in Leeds", 0)
    rated = extractor.extract([turn])
    raw = ClauseExtractor(rated=False).extract([turn])  # each reader's own confidence
    model = extractor.confidence
    assert model is not None and len(rated) == len(raw) >= 3
    for mine, theirs in zip(rated, raw, strict=True):
        assert replace(mine, confidence=theirs.confidence) == theirs
        assert mine.confidence == pytest.approx(model.probability(features(theirs, len(raw))), abs=1e-4)
        assert is_rated(theirs, len(raw))
    assert len({c.confidence for c in rated}) > 1  # each its own, not one per reader
    floor = sorted(c.confidence for c in rated)[len(rated) // 2]
    kept, refused = decide(rated, SCOPE, replace(DEFAULT_POLICY, min_confidence=floor), datetime.now(UTC))
    assert {d.candidate.value for d in kept} == {c.value for c in rated if c.confidence >= floor}
    assert refused and all(r.reason == "confidence below the policy minimum" for r in refused)


def test_what_one_turn_says_alone_and_a_projects_language_keep_their_readers_confidence(
    extractor: ClauseExtractor,
) -> None:
    raw = ClauseExtractor(rated=False)
    alone = Turn("user", "we use TypeScript everywhere", 0)
    assert extractor.extract([alone]) == raw.extract([alone])  # one thing said, said on purpose
    both = Turn("user", "our backend is written in Elixir and we deploy on fly.io", 0)
    rated_both, raw_both = extractor.extract([both]), raw.extract([both])
    language = [c for c in rated_both if (c.key or "").startswith("language")]
    assert language and language == [c for c in raw_both if (c.key or "").startswith("language")]
    assert [c for c in rated_both if c.key == "hosting"] != [c for c in raw_both if c.key == "hosting"]
    kept, _ = decide(rated_both, SCOPE, DEFAULT_POLICY, datetime.now(UTC))
    assert {d.candidate.value for d in kept} >= {"Elixir", "fly.io"}
