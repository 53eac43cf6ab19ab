"""Extraction of candidate facts from chat turns.

Extractors are built by name from a registry; the name carries a version (``mnemo.clauses.v1``),
and every record names the extractor and the reader or frame that produced it.

The pipeline (spaCy and the pattern files) is imported only when an extractor is built or
``ClauseExtractor`` is asked for: the CLI and the policy code need the types, not the parser, and
importing spaCy costs over a second on every `mnemo` command.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from extractors.base import Candidate, Extractor, Turn
from extractors.render import SUBJECT_MARK
from extractors.text import clean_text

if TYPE_CHECKING:
    from extractors.pipeline import ClauseExtractor

DEFAULT_EXTRACTOR = "mnemo.clauses.v1"


def _clause_extractor() -> Extractor:
    from extractors.pipeline import ClauseExtractor

    return ClauseExtractor()


_REGISTRY: dict[str, Callable[[], Extractor]] = {DEFAULT_EXTRACTOR: _clause_extractor}


def build_extractor(name: str = DEFAULT_EXTRACTOR) -> Extractor:
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown extractor {name!r}; known: {', '.join(sorted(_REGISTRY))}") from None
    return factory()


def __getattr__(name: str) -> Any:
    if name == "ClauseExtractor":
        from extractors.pipeline import ClauseExtractor

        return ClauseExtractor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
