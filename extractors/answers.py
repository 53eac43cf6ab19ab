"""Answers to the other side's question: "where do you live?" - "denver. it's beautiful here".

A short answer names its slot only through the question it answers, so the question is read from
the turn before (the assistant's reply, or the other speaker in a chat between two people). Which
questions name which slot is data (``patterns/questions.jsonl``).
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
    version: int
    key: str | None
    text: str
    pattern: str


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    key: str | None
    text: str
    pattern: re.Pattern[str]

    def asked(self, text: str) -> dict[str, str] | None:
        """The question's groups when ``text`` asks it, in its last sentence that asks anything."""
        asked = [s for s in re.split(r"(?<=[?.!])\s+", text.strip()) if "?" in s]
        for sentence in reversed(asked[-2:]):
            match = self.pattern.search(sentence.lower())
            if match:
                return {k: v for k, v in match.groupdict().items() if v}
        return None


def load_questions(path: Path | None = None) -> list[Question]:
    questions = []
    for where, raw in load("questions.jsonl", _Raw, path):
        try:
            pattern = re.compile(raw.pattern, re.IGNORECASE)
        except re.error as exc:
            raise ConfigError(f"{where}: pattern does not compile: {exc}") from exc
        if "{subject}" not in raw.text or "{value}" not in raw.text:
            raise ConfigError(f"{where}: text must name {{subject}} and {{value}}")
        questions.append(Question(f"{raw.id}.v{raw.version}", raw.key, raw.text, pattern))
    return questions
