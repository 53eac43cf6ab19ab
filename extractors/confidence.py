"""How likely a candidate is to be a fact a careful note-taker keeps: ``mnemo_confidence_v1``.

Each reader used to give its candidates a fixed confidence (0.6-0.85), so the policy's
``min_confidence`` could only keep or drop whole readers. This model rates each candidate from what
it is and how it was said, never from its words:

- what it is: the reader that found it, the slot family it fills (or none: a free-form note), its
  kind, scope and source role, and the reader's own prior;
- how it was said: its share of the sentence, the length of its value and its text, whether the
  sentence or the turn asks something, how long the turn is and how many candidates it gave, whether
  it carries a qualifier, a time or a replaced value.

The weights are data (``patterns/confidence.jsonl``, one feature per line, validated on load), fitted
by logistic regression on the labelled natural-phrasing sets (``python -m bench calibrate``). The
probability replaces the reader's constant as ``Candidate.confidence``; the policy's
``min_confidence`` (0.5 by default: kept when more likely right than wrong) makes the cut, and an
operator can move it in the policy file.

The model only chooses among the candidates of one turn, and leaves alone what the sets' authors
under-list for reasons that are theirs, not the speaker's (see :func:`rated`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import msgspec

from core.errors import ConfigError
from extractors.base import Candidate
from extractors.data import load

NAME = "mnemo_confidence_v1"
BIAS = "bias"
_SHIPPED = "confidence.jsonl"
_SUBORDINATE_OPENERS = frozenset(
    {"because", "since", "whenever", "when", "if", "though", "so", "and", "but", "or"}
)


class Weight(msgspec.Struct, forbid_unknown_fields=True):
    feature: str
    weight: float


# Slot families the model does not rate: authors of the labelled sets seldom list a project's
# language (36 of 45 language records they did not list named no listed fact at all), so the model
# learned to drop "our backend is written in Elixir", one of the project's core facts.
UNRATED_FAMILIES = frozenset({"language"})


def family_of(candidate: Candidate) -> str:
    return (candidate.key or "note").split(":")[0]


def rated(candidate: Candidate, siblings: int) -> bool:
    """Whether the model rates a candidate: not when it is the only one its turn gave (a message that
    says one thing says it on purpose), nor when its slot family is one the model may not judge."""
    return siblings > 1 and family_of(candidate) not in UNRATED_FAMILIES


def _bucket(value: float, edges: Sequence[float]) -> str:
    for edge in edges:
        if value <= edge:
            return str(edge)
    return "more"


def features(candidate: Candidate, siblings: int) -> list[str]:
    """The names of the features a candidate has; ``siblings``: candidates its turn gave, itself included."""
    family = family_of(candidate)
    rule, scope, kind = candidate.rule_id, candidate.scope_level, candidate.kind
    value_words = len(candidate.value.split())
    text_words = len(candidate.text_template.split())
    sentence = candidate.sentence or candidate.span
    share = len(candidate.span.split()) / max(1, len(sentence.split()))
    opener = (candidate.span.split() or [""])[0].lower()
    named = [
        f"rule={rule}",
        f"family={family}",
        f"kind={kind}",
        f"scope={scope}",
        f"role={candidate.turn.role}",
        f"rule_scope={rule}|{scope}",
        f"family_scope={family}|{scope}",
        f"kind_scope={kind}|{scope}",
        f"family_value_words={family}|{_bucket(value_words, (1, 2, 4, 8))}",
        f"siblings={_bucket(siblings, (1, 2, 3, 5, 8))}",
        f"value_words={_bucket(value_words, (1, 2, 3, 5, 8, 13))}",
        f"text_words={_bucket(text_words, (5, 8, 12, 18, 25))}",
        f"span_share={_bucket(share, (0.2, 0.4, 0.6, 0.8, 1.0))}",
        f"turn_words={_bucket(len(candidate.turn.text.split()), (8, 15, 30, 60))}",
        f"prior={candidate.confidence:g}",
    ]
    flags = {
        "qualified": candidate.qualifier is not None,
        "dated": candidate.when is not None,
        "replacing": candidate.previous_value is not None,
        "sentence_asks": "?" in sentence,
        "turn_asks": "?" in candidate.turn.text,
        "digits": any(ch.isdigit() for ch in candidate.value),
        "said_as_rule": "rule:" in candidate.text_template,
        "said_as_exception": "exception" in candidate.text_template,
        "subordinate_opener": opener in _SUBORDINATE_OPENERS,
    }
    return named + [name for name, on in flags.items() if on]


@dataclass(frozen=True, slots=True)
class ConfidenceModel:
    weights: Mapping[str, float]
    name: str = NAME

    def probability(self, names: Iterable[str]) -> float:
        z = self.weights.get(BIAS, 0.0) + sum(self.weights.get(n, 0.0) for n in names)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def rate(self, candidates: list[Candidate]) -> list[Candidate]:
        """The candidates with the model's probability as their confidence (see :func:`rated`)."""
        per_turn = Counter(id(c.turn) for c in candidates)
        return [
            replace(c, confidence=round(self.probability(features(c, per_turn[id(c.turn)])), 4))
            if rated(c, per_turn[id(c.turn)])
            else c
            for c in candidates
        ]


def load_confidence(path: Path | None = None) -> ConfidenceModel:
    """The shipped model, or one from ``path``; every weight finite, every feature named once."""
    weights: dict[str, float] = {}
    for where, row in load(_SHIPPED, Weight, path):
        if not math.isfinite(row.weight):
            raise ConfigError(f"{where}: the weight of {row.feature!r} is not a finite number")
        if row.feature in weights:
            raise ConfigError(f"{where}: {row.feature!r} is weighted twice")
        weights[row.feature] = row.weight
    if BIAS not in weights:
        raise ConfigError(f"{path or _SHIPPED}: no {BIAS!r} weight")
    return ConfidenceModel(weights)


def dump_confidence(model: ConfidenceModel, path: Path) -> None:
    lines = [
        msgspec.json.encode(Weight(feature, round(weight, 4))).decode()
        for feature, weight in sorted(model.weights.items())
        if feature == BIAS or abs(weight) >= 1e-4
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def fit(samples: Sequence[tuple[Sequence[str], bool]], l2: float = 3.0, rounds: int = 50) -> ConfidenceModel:
    """Logistic regression by Newton's method, an L2 penalty on every weight but the bias.
    ``samples``: (feature names, whether the candidate was right)."""
    import numpy as np

    names = sorted({n for feats, _ in samples for n in feats})
    column = {n: i for i, n in enumerate(names)}
    x = np.zeros((len(samples), len(names) + 1))
    x[:, -1] = 1.0
    for row, (feats, _) in enumerate(samples):
        for n in feats:
            x[row, column[n]] = 1.0
    y = np.array([1.0 if right else 0.0 for _, right in samples])
    penalty = l2 * np.eye(len(names) + 1)
    penalty[-1, -1] = 0.0
    w = np.zeros(len(names) + 1)
    for _ in range(rounds):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (p - y) + penalty @ w
        hessian = (x * (p * (1 - p))[:, None]).T @ x + penalty
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if float(np.abs(step).max()) < 1e-7:
            break
    weights = {n: float(w[i]) for n, i in column.items()}
    weights[BIAS] = float(w[-1])
    return ConfidenceModel(weights)
