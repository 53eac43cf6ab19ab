"""Word classes the readers reason with, as data (``patterns/lexicon.jsonl``).

These are closed classes of function-like words: verbs of saying, of planning, of liking; family
and pet nouns; words that mark a rule as standing. Tools and products are not here: they are the
vocabulary (``extractors.vocabulary``). Each class is documented in the file; the classes the code
uses must all be present, and no other.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import msgspec

from core.errors import ConfigError
from extractors.data import load

CLASSES = frozenset(
    {
        "foreign_function_word",
        "help_word",
        "speech_verb",
        "occupation_noun",
        "language_endonym",
        "reply_verb_foreign",
        "condition_noun",
        "life_noun",
        "condition_adjective",
        "place_kind",
        "cognition_verb",
        "plan_verb",
        "conversation_verb",
        "preference_verb",
        "negative_preference_verb",
        "consume_verb",
        "switch_verb",
        "replace_verb",
        "drop_verb",
        "leave_verb",
        "report_verb",
        "advice_word",
        "kin_noun",
        "circle_noun",
        "venture_noun",
        "work_noun",
        "pet_noun",
        "diet_word",
        "transient_adjective",
        "state_noun",
        "transient_time",
        "standing_marker",
        "answer_word",
        "checkpoint",
        "command_purpose",
        "person_noun",
        "project_noun",
        "nonfact_object",
        "paste_noun",
        "hedge",
        "life_event_verb",
        "life_event_noun",
        "business_noun",
        "profile_noun",
        "fan_noun",
        "discourse_marker",
        "timezone",
        "language_name",
        "occupation_suffix",
        "code_noun",
        "norm_verb",
        "practice_verb",
        "trouble_verb",
        "failure_noun",
        "setting_noun",
        "branch_name",
        "employer_noun",
        "continent",
        "teach_verb",
    }
)


class WordClass(msgspec.Struct, forbid_unknown_fields=True):
    # "class" is a keyword: the field is renamed on the way in.
    name: str = msgspec.field(name="class")
    doc: str = ""
    words: list[str] = msgspec.field(default_factory=list)


class Lexicon:
    def __init__(self, classes: dict[str, frozenset[str]]) -> None:
        self._classes = classes

    def __getitem__(self, name: str) -> frozenset[str]:
        return self._classes[name]

    def has(self, name: str, word: str) -> bool:
        return word.lower() in self._classes[name]

    def any(self, name: str, words: Iterable[str]) -> bool:
        members = self._classes[name]
        return any(w.lower() in members for w in words)


def load_lexicon(path: Path | None = None) -> Lexicon:
    classes: dict[str, frozenset[str]] = {}
    for where, entry in load("lexicon.jsonl", WordClass, path):
        if entry.name not in CLASSES:
            raise ConfigError(f"{where}: unknown word class {entry.name!r}")
        if entry.name in classes:
            raise ConfigError(f"{where}: word class {entry.name!r} given twice")
        if not entry.words:
            raise ConfigError(f"{where}: word class {entry.name!r} has no words")
        classes[entry.name] = frozenset(w.lower() for w in entry.words)
    missing = CLASSES - set(classes)
    if missing:
        raise ConfigError(f"lexicon: missing word classes {sorted(missing)}")
    return Lexicon(classes)
