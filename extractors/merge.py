"""One record for what one sentence says in free form, and one for a rule said over several.

A person who writes "I'm colorblind (deuteranopia) so never rely on red vs green in charts" states
one thing a note-taker keeps as one line: the condition and the rule it brings. So is "always squash
merge. no merge commits on main, ever": one rule, restated. The clause readers read such a sentence
clause by clause and would store each part as a record of its own, the condition apart from the rule
it explains, a restatement beside the rule. This step keeps them together:

- the free-form facts (no slot) of one sentence, of one scope, become one record;
- free-form rules of one scope said in a row on one line become one record;
- what an agent's report tells in free form, line by line, becomes one record of what it did.

Facts with a slot (a database, a home city) stay records of their own: a later statement of that
slot supersedes exactly them. Corrections, episodes, changes and exceptions stay apart too: each
is resolved on its own. Nothing is lost: every part's words stay in the stored text.
"""

from __future__ import annotations

import re
from dataclasses import replace

from extractors.candidates import Read, storable
from extractors.render import SUBJECT_MARK

_RULE = f"{SUBJECT_MARK} rule: "
_CONSEQUENCE = ("so ", "so, ")
_WORDS = re.compile(r"[^\W_]+")
_VERSION = re.compile(r"v?\d[\w.]*")


def merge_free_form(reads: list[Read]) -> list[Read]:
    """``reads`` of one line, in order, with the free-form parts of a sentence, and rules in a row,
    each kept as one read."""
    out: list[Read] = []
    hosts: dict[str, int] = {}  # an agent's report: where its free-form part of each scope is kept
    for read in _without_repeats(
        _without_lesser_values([r for r in reads if not _mergeable(r) or storable(r)])
    ):
        last = out[-1] if out else None
        host = hosts.get(read.fact.scope) if read.turn.role == "assistant" and _mergeable(read) else None
        if host is not None:
            # "Done — Jest is replaced ... I deleted jest.config.js ...": what one report tells in
            # free form is one record of what the agent did, beside the slots it changed
            out[host] = _merged(out[host], read)
        elif last is not None and _mergeable(read) and _mergeable(last) and _together(last, read):
            out[-1] = _merged(last, read)
        else:
            out.append(read)
            if read.turn.role == "assistant" and _mergeable(read):
                hosts[read.fact.scope] = len(out) - 1
    return out


def _mergeable(read: Read) -> bool:
    fact = read.fact
    return (
        fact.key is None
        and fact.kind in ("semantic", "procedural")
        and not read.correcting
        and read.bare is None
        and fact.previous is None
        and fact.other is None
        and fact.when is None
        and fact.reader != "rules.exception"
        and not fact.fields
        and fact.text.startswith(SUBJECT_MARK)
        # an agent's instruction-like words are held apart for the policy (never a rule); its
        # reports are not folded into them
        and not (read.turn.role == "assistant" and fact.kind == "procedural")
    )


def _together(first: Read, second: Read) -> bool:
    if first.fact.scope != second.fact.scope or first.turn is not second.turn:
        return False
    if second.sentence == first.sentence or second.sentence in first.sentence:
        return True
    if second.sentence.lower().startswith(_CONSEQUENCE) and second.sentence not in first.sentence:
        return True  # "i'm type 1 diabetic so i count carbs": the run-on cut at "so" (register.py)
    # rules in a row: "always squash merge. no merge commits on main, ever"
    return first.fact.kind == second.fact.kind == "procedural" and first.turn.role == "user"


def _without_repeats(reads: list[Read]) -> list[Read]:
    """``reads`` without a free-form fact whose value another of its sentence already holds:
    "colorblind" beside "colorblind (deuteranopia)"."""
    kept = []
    for read in reads:
        repeats = _mergeable(read) and any(
            other is not read
            and _mergeable(other)
            and other.sentence == read.sentence
            and other.fact.scope == read.fact.scope
            and _words_in(read.fact.value, other.fact.value)
            and (len(other.fact.value) > len(read.fact.value) or other in kept)
            for other in reads
        )
        if not repeats:
            kept.append(read)
    return kept


def _without_lesser_values(reads: list[Read]) -> list[Read]:
    """``reads`` without a slot's value another read of the line names with its version: "redis"
    beside "Redis 7" ("uses Redis 7 via ioredis ... added a redis service to docker-compose")."""
    return [
        read
        for read in reads
        if not (
            read.fact.key is not None
            and any(
                other is not read
                and other.fact.key == read.fact.key
                and other.fact.scope == read.fact.scope
                and other.fact.value.lower().startswith(read.fact.value.lower())
                and _VERSION.fullmatch(other.fact.value[len(read.fact.value) :].strip()) is not None
                for other in reads
            )
        )
    ]


def _merged(first: Read, second: Read) -> Read:
    a, b = first.fact, second.fact
    kind = "procedural" if "procedural" in (a.kind, b.kind) else "semantic"
    if _words_in(a.span, b.span) or _words_in(b.span, a.span):
        # "rule: use X" beside the sentence kept whole ("Project p: to drain a node use X, not Y"):
        # the whole sentence says it all
        whole = b if len(b.span) >= len(a.span) else a
        reader = (a if a.kind == kind else b).reader
        kept = replace(whole, kind=kind, reader=reader, confidence=min(a.confidence, b.confidence))
        return replace(first, fact=kept, sentence=first.sentence)
    sentence = first.sentence if second.sentence in first.sentence else f"{first.sentence} {second.sentence}"
    fact = replace(
        a if a.kind == "procedural" or b.kind != "procedural" else b,
        kind=kind,
        value=f"{a.value}; {b.value}",
        text=_joined(a.text, b.text),
        span=b.span if a.span in b.span else a.span if b.span in a.span else f"{a.span} {b.span}",
        confidence=min(a.confidence, b.confidence),
        anchor=a.anchor,
    )
    return replace(first, fact=fact, sentence=sentence)


def _joined(first: str, second: str) -> str:
    """ "{s} is colorblind." + "{s} rule: Never rely on ..." -> "{s} is colorblind; rule: never rely
    on ..."; two rules -> "{s} rule: Always squash merge; no merge commits on main."."""
    head = first.rstrip(" .!")
    if second.startswith(_RULE) and "rule:" in head.replace(SUBJECT_MARK, ""):
        tail = second[len(_RULE) :]
    elif second.startswith(_RULE):
        tail = "rule: " + _lower_first(second[len(_RULE) :])
    elif second.startswith(SUBJECT_MARK + " "):
        tail = second[len(SUBJECT_MARK) + 1 :]
    elif second.startswith(SUBJECT_MARK + ":"):
        tail = second[len(SUBJECT_MARK) + 1 :].strip()  # "{s}: the agent deleted ..."
    else:
        tail = second  # "{s}'s sister ...": the subject stays where the sentence needs it
    return f"{head}; {_lower_first(tail)}"


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:1].isupper() and not text[1:2].isupper() else text


def _words_in(needle: str, haystack: str) -> bool:
    pin, hay = _WORDS.findall(needle.lower()), _WORDS.findall(haystack.lower())
    return bool(pin) and any(hay[i : i + len(pin)] == pin for i in range(len(hay) - len(pin) + 1))
