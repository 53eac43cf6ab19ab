"""Fact frames: spaCy DependencyMatcher patterns as data (``patterns/frames.jsonl``).

A frame says which shape of clause states which fact: "my wife Anna", "I live in X", "I'm
allergic to X". Its pattern is a DependencyMatcher pattern over lemmas, dependency labels and
tags; a word list of the lexicon is written ``"@kin_noun"`` inside an ``IN`` or ``NOT_IN``. The node named by
``value`` is the value; other nodes may name parts of the slot key (``"family:{noun}"``).
Everything is validated on load, patterns by spaCy itself, and an error names file and line.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from core.errors import ConfigError
from extractors.data import load
from extractors.lexicon import Lexicon

Token = Any

About = Literal[
    "speaker",
    "group",
    "family",
    "pet",
    "speaker_thing",
    "project",
    "you",
    "third",
    "pointing",
    "thing",
    "none",
    "implied",
]
Mood = Literal["statement", "imperative", "question", "fragment"]


class Frame(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    id: str
    version: int
    kind: Literal["semantic", "procedural", "episodic"]
    scope: Literal["user", "project"]
    key: str | None
    pattern: list[dict[str, Any]]
    value: str
    text: str
    confidence: Annotated[float, msgspec.Meta(ge=0, le=1)]
    about: list[About] = []
    moods: list[Mood] = msgspec.field(default_factory=lambda: ["statement"])
    span: Literal["name", "phrase", "token", "role"] = "phrase"
    negated: Literal["skip", "require", "allow"] = "skip"
    transient: Literal["skip", "allow"] = "skip"
    roles: list[Literal["user", "assistant"]] = msgspec.field(default_factory=lambda: ["user"])
    episode: bool = False  # the fact also tells an event worth keeping ("we moved to Utrecht")
    past: bool = False  # said in the past tense it still holds ("I grew up in Porto", "we adopted Biscuit")
    # a name given in passing holds whatever the clause does with it: "my son max would love that"
    presupposed: bool = False

    @property
    def qualified_id(self) -> str:
        return f"{self.id}.v{self.version}"


@dataclass(frozen=True, slots=True)
class FrameHit:
    frame: Frame
    nodes: dict[str, Token]

    @property
    def anchor(self) -> Token:
        return self.nodes[self.frame.pattern[0]["RIGHT_ID"]]


class Frames:
    def __init__(self, nlp: Any, lexicon: Lexicon, path: Path | None = None) -> None:
        from spacy.matcher import DependencyMatcher

        self.matcher = DependencyMatcher(nlp.vocab, validate=True)
        self.frames: dict[str, Frame] = {}
        for where, frame in load("frames.jsonl", Frame, path):
            self._check(frame, where)
            pattern = [_expand(node, lexicon, where) for node in frame.pattern]
            try:
                self.matcher.add(frame.id, [pattern])
            except Exception as exc:  # spaCy raises ValueError or its own error types on bad patterns
                raise ConfigError(f"{where}: pattern rejected by spaCy: {exc}") from exc
            self.frames[frame.id] = frame

    def _check(self, frame: Frame, where: str) -> None:
        if frame.id in self.frames:
            raise ConfigError(f"{where}: duplicate frame id {frame.id!r}")
        nodes = [node.get("RIGHT_ID") for node in frame.pattern]
        if frame.value not in nodes:
            raise ConfigError(f"{where}: value names no node of the pattern ({frame.value!r})")
        names = {n for _, n, _, _ in string.Formatter().parse(f"{frame.key or ''}{frame.text}") if n}
        unknown = names - set(nodes) - {"subject", "value", "noun"}
        if unknown:
            raise ConfigError(f"{where}: templates use unknown names {sorted(unknown)}")
        if "{subject}" not in frame.text:
            raise ConfigError(f"{where}: text must name its subject ({{subject}})")
        if frame.kind == "procedural" and "assistant" in frame.roles:
            raise ConfigError(f"{where}: a procedural frame cannot read assistant turns")

    def hits(self, doc: Any) -> list[FrameHit]:
        found = []
        for match_id, token_ids in self.matcher(doc):
            frame = self.frames[doc.vocab.strings[match_id]]
            names = [node["RIGHT_ID"] for node in frame.pattern]
            found.append(FrameHit(frame, {n: doc[i] for n, i in zip(names, token_ids, strict=True)}))
        return found


def _expand(node: dict[str, Any], lexicon: Lexicon, where: str) -> dict[str, Any]:
    """``{"IN": "@kin_noun"}`` (or ``NOT_IN``) becomes the lexicon's word list."""
    attrs = dict(node.get("RIGHT_ATTRS", {}))
    for name, value in attrs.items():
        if not isinstance(value, dict):
            continue
        for op in ("IN", "NOT_IN"):
            if not isinstance(value.get(op), str):
                continue
            ref = value[op]
            if not ref.startswith("@"):
                raise ConfigError(f"{where}: {op} takes a list or a '@word_class', not {ref!r}")
            try:
                words = sorted(lexicon[ref[1:]])
            except KeyError:
                raise ConfigError(f"{where}: unknown word class {ref!r}") from None
            value = {**value, op: words}
        attrs[name] = value
    return {**node, "RIGHT_ATTRS": attrs}
