"""Versions of a language or runtime: "python 3.12", "bumped the Python version to 3.13"."""

from __future__ import annotations

import re

from extractors.clauses import Clause
from extractors.readers.common import Fact, Span, slug
from extractors.render import SUBJECT_MARK, plain
from extractors.vocabulary import VERSION


def versioned(category: str, spans: list[Span], clause: Clause) -> list[Span]:
    """The languages or runtimes among ``spans`` that carry a version, said beside them or in the clause."""
    if category not in ("language", "runtime"):
        return []
    for span in spans:
        if not span._.version:
            span._.version = _version_in(clause, span)  # "bumped the Python version to 3.13"
    return [s for s in spans if s._.version]


def version_fact(span: Span, category: str, clause: Clause, reader: str) -> Fact:
    """ "python 3.12": the version fills the language's own slot (``python_version``)."""
    lang = (
        slug(span.kb_id_.lower().replace(".js", "").replace(".net", "dotnet")).replace("_", "") or "runtime"
    )
    return Fact(
        kind="semantic",
        scope="project",
        key=f"{lang}_version",
        value=span._.version.lstrip("vV"),
        text=f"{SUBJECT_MARK} uses {span.text} {span._.version}.",
        span=plain(clause.tokens),
        reader=f"{reader}.version",
        confidence=0.85,
        anchor=span.start,
        category=category,
    )


def _version_in(clause: Clause, span: Span) -> str | None:
    """The version a clause gives a language named as "the X version": "to 3.13", "is 3.12"."""
    if span.root.head.lemma_.lower() != "version":
        return None
    for token in clause.tokens:
        digits = any(ch.isdigit() for ch in token.text)
        versioned = token.i > span.end and VERSION.match(token.text) and digits
        if versioned and (
            token.head.lower_ in ("to", "is", "be", "at", "on") or token.dep_ in ("attr", "pobj", "dobj")
        ):
            return str(token.text)
    return None


# verbs that move a product to another version: "Bumped Gradle to 8.7", "Upgraded axum 0.6 → 0.7"
_TO_VERSION = frozenset({"upgrade", "bump", "update", "move", "migrate", "pin", "downgrade", "raise"})


# after the name: its old version, an arrow or "to", the new one
_MOVED_ON = re.compile(r"\s+(?:from\s+)?v?\d[\w.]*\s*(?:\u2192|->|=>|to)\s*(v?\d[\w.]*\d|v?\d+)\b")


def upgraded_to(span: Span) -> str | None:
    """The version a product was moved to, when the clause moves it: "Bumped Gradle to 8.7",
    "Upgraded React Native 0.72 → 0.74", "upgraded axum from 0.6 to 0.7"."""
    root = span.root
    verb = root.head
    moved = _MOVED_ON.match(span.doc.text, span.end_char)
    if moved and any(t.lemma_.lower() in _TO_VERSION for t in span.sent if t.i < span.start):
        return moved.group(1)  # "upgraded React Native 0.72 -> 0.74", "bumped node 18 to 20"
    if root.dep_ not in ("dobj", "nsubjpass") or verb.lemma_.lower() not in _TO_VERSION:
        return None
    doc = span.doc
    after = doc[span.end : min(span.end + 3, verb.sent.end)]
    for n, token in enumerate(after):
        if token.text in ("\u2192", "->", "=>") and n + 1 < len(after) and _is_version(after[n + 1].text):
            return str(after[n + 1].text)
    for prep in verb.children:
        if prep.dep_ == "prep" and prep.lower_ == "to":
            target = next((c for c in prep.children if c.dep_ == "pobj"), None)
            if target is not None and _is_version(target.text):
                return str(target.text)
    return None


def _is_version(text: str) -> bool:
    return bool(VERSION.match(text)) and any(ch.isdigit() for ch in text)
