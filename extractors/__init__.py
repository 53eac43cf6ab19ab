"""Extraction of candidate facts from chat turns.

Extractors are built by name from a registry; the name carries a version (``mnemo.rules.v1``),
and every record names the extractor and rule that produced it.
"""

from __future__ import annotations

from collections.abc import Callable

from extractors.base import Candidate, Extractor, Turn
from extractors.pipeline import SUBJECT_MARK, RuleExtractor, clean_text
from extractors.rules import Rule, load_rules

_REGISTRY: dict[str, Callable[[], Extractor]] = {RuleExtractor.name: RuleExtractor}


def build_extractor(name: str = RuleExtractor.name) -> Extractor:
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown extractor {name!r}; known: {', '.join(sorted(_REGISTRY))}") from None
    return factory()


__all__ = [
    "SUBJECT_MARK",
    "Candidate",
    "Extractor",
    "Rule",
    "RuleExtractor",
    "Turn",
    "build_extractor",
    "clean_text",
    "load_rules",
]
