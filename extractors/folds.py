"""Details kept inside the record of the product they belong to, not as records of their own.

A person who writes "rails 7.1 w/ hotwire (turbo streams + stimulus)" states the frontend framework
and, in passing, its parts; "axum 0.7 on tokio + sqlx, in rust" states the framework and the
language it implies. A note-taker writes one line per thing and keeps the detail on it: "hotwire
(turbo streams, stimulus)", "axum 0.7, in rust". So does this step: a product in parentheses right
after another product, and a bare language named beside products that are written in one, become
part of that product's record. Nothing is lost (the words stay in the stored text, where recall
and the inspector find them); what is saved is a record per detail.

Kinds of product people name in passing beside the main choices (``slots.jsonl`` marks them
``detail``: a language, a linter, a container tool, object storage) go further. Said in passing,
not on purpose (``_in_passing``), such a product is left to its sentence's free-form note when the
note says it, or kept in the record of the nearest product or command of its turn
(``fold_passing_details``, over the reads of a whole line). The cost is the detail's own slot.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from extractors.readers.common import Fact
from extractors.vocabulary import SlotSpec

if TYPE_CHECKING:  # (candidates imports the readers, which import this module)
    from extractors.candidates import Read

# a version said with a name ("python 3.12", "node v20"), not a digit of the name ("s3", "html5")
_VERSIONED = re.compile(r"(?:^|\s)v?\d")
# a command set aside before parsing ("CMD1 runs ruff + mypy")
_PLACEHOLDER = re.compile(r"CMD\d+")
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


def fold_details(facts: list[Fact], sent: Any, words: DetailWords) -> list[Fact]:
    """``facts`` of one sentence, with products said as details of another folded into it,
    products a parenthesis only guesses at ("sqlite (for now, prob postgres later)") left out, a
    detail the sentence's free-form note already says in passing left to that note
    ("indentation: 2 spaces for yaml/json/js, 4 for python"), and the other details said in
    passing marked for ``fold_passing_details``."""
    notes = [f.text for f in facts if f.key is None and f.scope == "project"]
    kept = []
    for fact in facts:
        if _is_product(fact) and sent.start <= fact.anchor < sent.end:
            if guessed_aside(sent.doc[fact.anchor], words.hedges):
                continue
            if _in_passing(fact, sent, words):
                # (a product that replaces another keeps its record: the slot's change is in it)
                if fact.previous is None and any(_words_in(fact.value, note) for note in notes):
                    continue
                fact = replace(fact, in_passing=True)
        kept.append(fact)
    facts = kept
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


def fold_passing_details(reads: list[Read]) -> list[Read]:
    """``reads`` of one line, with each product of a kind named in passing (a language, a linter,
    a container tool: ``Fact.in_passing``) kept in the record of another product or command the
    same turn names: the nearest one before it in its sentence, else in the turn. "making a
    discord bot in python w/ discord.py", "`make lint` (ruff + mypy under the hood)", "C# on .NET
    6, clients are Godot": a note-taker's line per main choice, the details on it. Alone in its
    turn, a detail is a record of its own."""

    def product(read: Read) -> bool:
        return (
            _is_product(read.fact) and not read.correcting and read.bare is None and read.fact.other is None
        )

    def detail(read: Read) -> bool:
        return product(read) and read.fact.in_passing

    def command(read: Read) -> bool:
        fact = read.fact
        return fact.scope == "project" and fact.reader.startswith("commands.") and not read.correcting

    details = [r for r in reads if detail(r)]
    if not details:
        return reads
    hosts = [r for r in reads if (product(r) or command(r)) and r not in details]
    order = {id(r): n for n, r in enumerate(reads)}
    folded: dict[int, list[Fact]] = {}
    for read in details:
        mates = [h for h in hosts if h.turn is read.turn]
        if mates:
            # (a tie, two commands read from one clause's head: the one named later, nearer)
            host = min(mates, key=lambda h: (*_distance(h, read), -order[id(h)]))
            folded.setdefault(id(host), []).append(read.fact)
    gone = {id(f) for facts in folded.values() for f in facts}
    out = []
    for read in reads:
        if id(read.fact) in gone:
            continue
        extra = sorted(folded.get(id(read), []), key=lambda f: f.anchor)
        out.append(replace(read, fact=_with_details(read.fact, extra)) if extra else read)
    return out


@dataclass(frozen=True)
class DetailWords:
    """What tells a detail said in passing from one said on purpose."""

    hedges: frozenset[str]
    changes: frozenset[str]  # "replaced eslint with biome": the new value is what is said
    slot: Callable[[str], SlotSpec]


def _in_passing(fact: Fact, sent: Any, words: DetailWords) -> bool:
    """A product of a kind people name in passing (a language, a linter), not said as what its
    sentence is about: not "we use REST for the mobile api" (the object of the main verb), "we
    lint with eslint" (the slot's own phrase), "we replaced eslint with biome" (a change), but
    "camelCase in the JSON api", "make lint (ruff + mypy under the hood)", "C# on .NET 6"."""
    spec = words.slot(fact.category) if fact.category is not None else None
    if spec is None or not spec.detail or _VERSIONED.search(fact.value):
        return False  # ("python 3.12", "fortran 90": a version is a choice said on purpose)
    doc = sent.doc
    governor = next((t for t in doc[fact.anchor].ancestors if t.pos_ in ("VERB", "AUX")), None)
    near = [
        *doc[max(sent.start, fact.anchor - 6) : fact.anchor],
        *([governor] if governor is not None else []),
    ]
    # (not "go": "go 1.22 service, ..." names the language)
    if any(_a_change(t, words.changes) for t in near if t.lower_ != "go"):
        return False  # "switched linting and formatting to ruff": what a change names is its value
    for at in range(fact.anchor - 1, max(sent.start, fact.anchor - 6), -1):
        if (doc[at].text in (":", "=") or doc[at].lower_ in ("is", "are", "'s")) and at > sent.start:
            label = doc[at - 1].lower_
            listed = all(
                t._.tech is not None or t.like_num or t.lower_ in ("+", ",", "/", "and", "&", "the")
                for t in doc[at + 1 : fact.anchor]
            )  # (not "lint is `make lint` (ruff + mypy)": what the label names comes first)
            if listed and (label in spec.labels or f"{doc[at - 2].lower_} {label}" in spec.labels):
                return False  # "linting: flake8 + isort + black", "linting is eslint": under its own label
    token = doc[fact.anchor]
    if token.i + 1 < sent.end and doc[token.i + 1].text == "-" and not token.whitespace_:
        return False  # "docker-based deploys": the kind of the thing said, not a passing name
    while token.dep_ == "conj" and token.head.i != token.i:
        token = token.head
    if token.dep_ in ("dobj", "attr", "nsubj", "nsubjpass", "ROOT") and token.head.i == sent.root.i:
        # (but "`make check` now runs ruff, mypy and pytest": what a command runs is its detail)
        return token.dep_ == "dobj" and any(
            c.dep_ == "nsubj" and _PLACEHOLDER.fullmatch(c.text) for c in token.head.children
        )
    if token.dep_ == "pobj" and token.head.dep_ == "prep":
        verb = token.head.head
        phrase = f"{verb.lemma_.lower()} {token.head.lower_}"
        if verb.lemma_.lower() in words.changes or phrase in spec.phrases:
            return False
        if verb.i == sent.root.i and any(
            c.dep_ == "nsubj" and c.lower_ in ("i", "we") for c in verb.children
        ):
            return False  # "we store all user uploads in s3": what the speakers do, said on purpose
    return True


def _a_change(token: Any, changes: frozenset[str]) -> bool:
    """ "replaced", "Switched" (which the tagger may take for an adjective)."""
    word = token.lower_
    return (
        token.lemma_.lower() in changes
        or word.removesuffix("ed") in changes
        or word.removesuffix("d") in changes
    )


def _words_in(value: str, text: str) -> bool:
    return re.search(rf"(?<![\w+#]){re.escape(value.lower())}(?![\w+#])", text.lower()) is not None


def _distance(host: Read, detail: Read) -> tuple[bool, bool, int]:
    """The same sentence first, then before the detail, then nearest."""
    gap = detail.fact.anchor - host.fact.anchor
    return (host.sentence != detail.sentence, gap < 0, abs(gap))


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
    text = host.text.rstrip()
    end = text[-1] if text and text[-1] in ".!?" else ""
    body = text[: len(text) - len(end)] if end else text
    languages = [d.value for d in details if _is_language(d)]
    others = [d.value for d in details if not _is_language(d)]
    if languages:
        body += f", in {', '.join(languages)}"
    if others:
        body += f", with {', '.join(others)}"
    return replace(host, text=f"{body}{end or '.'}")


__all__ = ["DetailWords", "fold_details", "fold_passing_details", "guessed_aside"]
