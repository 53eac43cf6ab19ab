"""Qualifiers: the phrase that narrows where a fact holds ("in docs/", "for hotfix branches").

A qualified fact fills its own slot, so an exception lives beside the general rule instead of
replacing it. Patterns are data (``patterns/qualifiers.jsonl``), each with a named group ``q``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import msgspec

from core.errors import ConfigError
from extractors.data import load


class _Raw(msgspec.Struct, forbid_unknown_fields=True):
    id: str
    pattern: str


@dataclass(frozen=True, slots=True)
class QualifierPattern:
    id: str
    pattern: re.Pattern[str]


_FILE = re.compile(r"\.[A-Za-z][\w]{0,5}$")


def load_qualifiers(path: Path | None = None) -> list[QualifierPattern]:
    patterns = []
    for where, raw in load("qualifiers.jsonl", _Raw, path):
        try:
            pattern = re.compile(raw.pattern, re.IGNORECASE)
        except re.error as exc:
            raise ConfigError(f"{where}: pattern does not compile: {exc}") from exc
        if "q" not in pattern.groupindex:
            raise ConfigError(f"{where}: pattern needs a named group 'q'")
        patterns.append(QualifierPattern(raw.id, pattern))
    return patterns


def qualifier_in(patterns: list[QualifierPattern], text: str, value_start: int, value_end: int) -> str | None:
    """The first qualifier in ``text`` that is not part of the value itself."""
    for pattern in patterns:
        for match in pattern.pattern.finditer(text):
            if match.start() < value_end and value_start < match.end():
                continue
            place = match.group("q").replace("`", "").strip().rstrip(".,;:!")
            if "/" in place and _FILE.search(place):
                continue  # "in api/handlers.go": a file it touched, not a part of the project
            if "/" in place:
                # one place, one slot: "the docs/ directory", "inside docs/", "in the docs/ folder"
                return f"in {place.strip('/')}/"
            phrase = " ".join(match.group(0).replace("`", "").split()).rstrip(".,;:!")
            return phrase[:1].lower() + phrase[1:]
    return None
