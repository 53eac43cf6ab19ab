"""Fit the confidence model (``extractors.confidence``) on the labelled natural-phrasing sets and write
``extractors/patterns/confidence.jsonl``.

Each candidate the readers keep (extract -> decide, as ``bench.natural.learn_cases`` does) is one
sample: its features, and whether it holds a fact the set's author listed for its turn. Before it
writes the model, it measures what the model would do on sets it was not fitted on: fitted on all
sets but the newest ``HELD_OUT``, it rates those, and the policy's ``min_confidence`` makes the cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench.common import ROOT, report, table
from bench.extraction import NATURAL_SETS
from bench.natural import kept_records, main_turns
from extractors.confidence import ConfidenceModel, dump_confidence, features, fit, rated
from extractors.natural import NaturalCase, load_natural, matches
from extractors.pipeline import ClauseExtractor
from policies import DEFAULT_POLICY

MODEL_FILE = ROOT / "extractors" / "patterns" / "confidence.jsonl"
HELD_OUT = 8
L2 = 3.0


@dataclass(frozen=True, slots=True)
class Sample:
    features: list[str]
    right: bool
    hits: frozenset[int]  # which of its case's facts it holds
    rated: bool  # whether the model rates it at all (``extractors.confidence.rated``)


@dataclass(frozen=True, slots=True)
class LabelledCase:
    required: frozenset[int]
    samples: list[Sample]


def labelled(extractor: ClauseExtractor, cases: list[NaturalCase]) -> list[LabelledCase]:
    """What the readers keep of each case's turn, with its features and whether it is right."""
    out = []
    for case, found in zip(cases, extractor.extract_many(main_turns(cases)), strict=True):
        own = [c for c in found if c.turn.text == case.text and c.turn.role == case.role]
        samples = []
        for candidate, record in kept_records(own):
            hits = frozenset(i for i, fact in enumerate(case.facts) if matches(record, fact))
            samples.append(
                Sample(features(candidate, len(own)), bool(hits), hits, rated(candidate, len(own)))
            )
        required = frozenset(i for i, fact in enumerate(case.facts) if not fact.optional)
        out.append(LabelledCase(required, samples))
    return out


def _score(cases: Sequence[LabelledCase], model: ConfidenceModel | None, floor: float) -> list[Any]:
    """Recall, precision and records when the model rates each sample and ``floor`` makes the cut."""
    found = expected = right = records = 0
    for case in cases:
        kept = [
            s for s in case.samples if model is None or not s.rated or model.probability(s.features) >= floor
        ]
        records += len(kept)
        right += sum(s.right for s in kept)
        expected += len(case.required)
        found += sum(any(i in s.hits for s in kept) for i in case.required)
    return [round(found / max(1, expected), 4), round(right / max(1, records), 4), records]


def main(quick: bool, record: bool) -> None:
    extractor = ClauseExtractor(rated=False)
    names = NATURAL_SETS[-4:] if quick else NATURAL_SETS
    by_set = {name: labelled(extractor, load_natural(ROOT / "tests" / "data" / name)) for name in names}
    held_names = list(names[-HELD_OUT:]) if not quick else list(names[-2:])
    fitted_on = [c for name, cases in by_set.items() if name not in held_names for c in cases]
    held = [c for name in held_names for c in by_set[name]]
    floor = DEFAULT_POLICY.min_confidence
    trial = fit([(s.features, s.right) for c in fitted_on for s in c.samples if s.rated], L2)
    every = [c for cases in by_set.values() for c in cases]
    model = fit([(s.features, s.right) for c in every for s in c.samples if s.rated], L2)
    if not quick:
        dump_confidence(model, MODEL_FILE)
    scores = {
        "readers' own confidence": _score(held, None, floor),
        f"rated, cut at min_confidence {floor}": _score(held, trial, floor),
    }
    rows = [[name, f"{r:.4f}", f"{p:.4f}", n] for name, (r, p, n) in scores.items()]
    sections = [
        (
            f"Confidence model fitted on {len(names) - len(held_names)} sets "
            f"({sum(s.rated for c in fitted_on for s in c.samples)} rated records), measured on the "
            f"{len(held_names)} newest it was not fitted on ({', '.join(held_names)})",
            table(["confidence", "recall", "precision", "records"], rows),
        ),
        (
            f"Model written to {MODEL_FILE.relative_to(ROOT) if not quick else '(not written: quick)'}, "
            f"fitted on all {len(names)} sets",
            table(
                ["rated records", "features", "L2"],
                [[sum(s.rated for c in every for s in c.samples), len(model.weights) - 1, L2]],
            ),
        ),
    ]
    rated = list(scores.values())[1]
    figures = {"held_out": dict(zip(["recall", "precision", "records"], rated, strict=True))}
    report("calibrate", quick, sections, figures, record)
