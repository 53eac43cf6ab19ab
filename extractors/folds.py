"""Details kept inside the record of the product they belong to, not as records of their own.

A person who writes "rails 7.1 w/ hotwire (turbo streams + stimulus)" states the frontend framework
and, in passing, its parts; "axum 0.7 on tokio + sqlx, in rust" states the framework and the
language it implies. A note-taker writes one line per thing and keeps the detail on it: "hotwire
(turbo streams, stimulus)", "axum 0.7, in rust". So does this step: a product in parentheses right
after another product, and a bare language named beside products that are written in one, become
part of that product's record. Nothing is lost (the words stay in the stored text, where recall
and the inspector find them); what is saved is a record per detail.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from extractors.readers.common import Fact

# what makes a product in a parenthesis a plan: "sqlite (for now, postgres later)"
_SOMEDAY = frozenset({"later", "eventually", "someday", "soon", "tbd"})
# kinds of product that are written in a language, so a bare language named beside one is its detail
_WRITTEN_IN = frozenset(
    {
        "backend_framework",
        "frontend_framework",
        "mobile_framework",
        "game_engine",
        "orm",
        "test_framework",
        "library",
        "ml_framework",
        "data_tool",
        "state_management",
        "background_jobs",
    }
)


def fold_details(facts: list[Fact], sent: Any, hedges: frozenset[str]) -> list[Fact]:
    """``facts`` of one sentence, with products said as details of another folded into it, and
    products a parenthesis only guesses at ("sqlite (for now, prob postgres later)") left out."""
    facts = [
        f
        for f in facts
        if not (
            _is_product(f) and sent.start <= f.anchor < sent.end and guessed_aside(sent.doc[f.anchor], hedges)
        )
    ]
    stack = [f for f in facts if _is_product(f) and sent.start <= f.anchor < sent.end]
    if len(stack) < 2:
        return facts
    hosts: dict[int, list[Fact]] = {}
    for fact in stack:
        host = _parenthesized_under(fact, stack, sent) or _language_of(fact, stack)
        if host is not None and host is not fact:
            hosts.setdefault(id(host), []).append(fact)
    folded = {id(f) for details in hosts.values() for f in details}
    if not folded:
        return facts
    out = []
    for fact in facts:
        if id(fact) in folded:
            continue
        details = hosts.get(id(fact))
        out.append(_with_details(fact, details) if details else fact)
    return out


def _is_product(fact: Fact) -> bool:
    return (
        fact.scope == "project"
        and fact.key is not None
        and fact.reader.startswith(("stack.", "report.stack"))
        and fact.previous is None
    )


def _parenthesized_under(fact: Fact, stack: list[Fact], sent: Any) -> Fact | None:
    """The product a parenthesis follows, when ``fact`` is said inside it: "hotwire (turbo streams +
    stimulus)", "pulumi (ts)"."""
    opened = _opening(fact.anchor, sent)
    if opened is None or opened - 1 < sent.start or not _only_names(sent.doc, opened + 1, sent.end):
        return None
    return next(
        (f for f in stack if f is not fact and not _is_language(f) and _ends_at(f, opened, sent.doc)), None
    )


def _ends_at(host: Fact, opened: int, doc: Any) -> bool:
    """Whether ``host`` is named right before the parenthesis: "hotwire (", "nuxt 3 ("."""
    words = host.value.lower().split()
    between = doc[host.anchor + 1 : opened]
    return host.anchor < opened and all(t.lower_ in words or t.like_num for t in between)


def guessed_aside(token: Any, hedges: frozenset[str]) -> bool:
    """A word said inside a parenthesis that hedges: "sqlite (for now, prob postgres later)"."""
    sent = token.sent
    opened = _opening(token.i, sent)
    if opened is None:
        return False
    for word in sent.doc[opened + 1 : sent.end]:
        if word.text == ")":
            return False
        if word.lower_ in hedges or word.lower_ in _SOMEDAY:
            return True
    return False


def _opening(at: int, sent: Any) -> int | None:
    """Where the parenthesis the word at ``at`` is said in opens, if it is said in one."""
    depth = 0
    for i in range(at - 1, sent.start - 1, -1):
        text = sent.doc[i].text
        if text == ")":
            depth += 1
        elif text == "(":
            if not depth:
                return i
            depth -= 1
    return None


def _only_names(doc: Any, start: int, end: int) -> bool:
    """Whether a parenthesis holds names only ("turbo streams + stimulus"), not a remark about
    them ("for now, prob postgres later")."""
    for token in doc[start:end]:
        if token.text == ")":
            return True
        if token.pos_ in ("VERB", "AUX", "ADV", "ADP", "PART", "PRON", "SCONJ", "DET", "INTJ"):
            return False
    return True


def _language_of(fact: Fact, stack: list[Fact]) -> Fact | None:
    """The first product written in a language, when ``fact`` is that bare language said beside it."""
    if not _is_language(fact) or any(ch.isdigit() for ch in fact.value):
        return None
    return next((f for f in stack if f is not fact and (f.key or "").split(":")[0] in _WRITTEN_IN), None)


def _is_language(fact: Fact) -> bool:
    return (fact.key or "").startswith("language")


def _with_details(host: Fact, details: list[Fact]) -> Fact:
    names = ", ".join(d.value for d in details)
    text = host.text.rstrip()
    end = text[-1] if text and text[-1] in ".!?" else ""
    body = text[: len(text) - len(end)] if end else text
    link = "in" if all(_is_language(d) for d in details) else "with"
    return replace(host, text=f"{body}, {link} {names}{end or '.'}")


__all__ = ["fold_details", "guessed_aside"]
