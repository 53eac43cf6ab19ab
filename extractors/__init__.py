"""Extraction of candidate facts from chat turns.

Extractors are built by name from a registry; the name carries a version (``mnemo.clauses.v1``),
and every record names the extractor and the reader or frame that produced it.
"""

from __future__ import annotations

from collections.abc import Callable

from extractors.base import Candidate, Extractor, Turn
from extractors.pipeline import ClauseExtractor
from extractors.render import SUBJECT_MARK
from extractors.text import clean_text

_REGISTRY: dict[str, Callable[[], Extractor]] = {ClauseExtractor.name: ClauseExtractor}
DEFAULT_EXTRACTOR = ClauseExtractor.name


def build_extractor(name: str = DEFAULT_EXTRACTOR) -> Extractor:
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown extractor {name!r}; known: {', '.join(sorted(_REGISTRY))}") from None
    return factory()


__all__ = [
    "DEFAULT_EXTRACTOR",
    "SUBJECT_MARK",
    "Candidate",
    "ClauseExtractor",
    "Extractor",
    "Turn",
    "build_extractor",
    "clean_text",
]
