"""Behaviour signals: what the user's own commands show ("pnpm add zod", "uv run pytest").

One command says little; the same tool in several sessions of one project is an inference
worth keeping. Signals are counted per slot and session by the worker; patterns are data.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import msgspec

from core.errors import ConfigError
from extractors.base import Turn
from extractors.data import load
from extractors.render import SUBJECT_MARK
from extractors.text import MEMORY_BLOCK

_QUOTE_LINE = re.compile(r"^\s*>.*$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class SignalPattern:
    id: str
    key: str
    pattern: re.Pattern[str]
    text: str


@dataclass(frozen=True, slots=True)
class Signal:
    key: str
    value: str
    text_template: str  # {subject} and {sessions} left to fill
    pattern_id: str
    turn: Turn


class _Row(msgspec.Struct, forbid_unknown_fields=True):
    id: str
    key: str
    pattern: str
    text: str


def load_signal_patterns() -> list[SignalPattern]:
    patterns = []
    for where, row in load("signals.jsonl", _Row):
        try:
            pattern = re.compile(row.pattern, re.IGNORECASE)
        except re.error as exc:
            raise ConfigError(f"{where}: pattern does not compile: {exc}") from exc
        if "value" not in pattern.groupindex:
            raise ConfigError(f"{where}: pattern needs a named group 'value'")
        patterns.append(SignalPattern(row.id, row.key, pattern, row.text))
    return patterns


def detect_signals(patterns: list[SignalPattern], turns: list[Turn]) -> list[Signal]:
    """One signal per (key, value) per batch of turns; user turns only, code included (that is
    where commands are), quoted lines and Mnemo's own block excluded."""
    found: dict[tuple[str, str], Signal] = {}
    for turn in turns:
        if turn.role != "user":
            continue
        text = _QUOTE_LINE.sub(" ", MEMORY_BLOCK.sub(" ", turn.text))
        for pattern in patterns:
            for match in pattern.pattern.finditer(text):
                value = match.group("value").lower()
                found.setdefault(
                    (pattern.key, value),
                    Signal(
                        pattern.key, value, pattern.text.replace("{subject}", SUBJECT_MARK), pattern.id, turn
                    ),
                )
    return list(found.values())
