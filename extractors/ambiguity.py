"""When an ordinary word that is also a product name ("quick", "split", "render", "go") is the product:
the evidence around it, read from the parse. Used by the vocabulary's product marker."""

from __future__ import annotations

from typing import Any

# Days and months, never a product ("on Tuesday", "since March"), and meeting words.
WEEKDAYS = frozenset(["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"])
MONTHS = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ]
)
# months as people shorten them: "back at work in jan"
MONTH_ABBREVIATIONS = frozenset(
    ("jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec")
)
_CALENDAR = WEEKDAYS | MONTHS | {"sync", "standup"}
_SEASONS = frozenset({"spring", "summer", "autumn", "fall", "winter"})
# Verbs under which a name that is also an ordinary word is still a product: "we use rails".
_TECH_VERBS = frozenset(
    [
        "use",
        "run",
        "write",
        "build",
        "deploy",
        "host",
        "switch",
        "migrate",
        "move",
        "base",
        "power",
        "rely",
        "standardize",
        "standardise",
        "pick",
        "choose",
        "adopt",
        "install",
        "upgrade",
        "downgrade",
        "replace",
        "swap",
        "drop",
        "ditch",
        "prefer",
        "stick",
        "love",
        "hate",
        # what a tool does to the code: "deps managed with poetry", "bundled with bun"
        "manage",
        "bundle",
        "package",
        "compile",
        "ship",
        "lint",
        "format",
        "provision",
        "containerize",
        "monitor",
    ]
)


_BETWEEN_PRODUCTS = frozenset(
    {"instead", "not", "than", "rather", "vs", "versus", "w/", "plus", "then", "to"}
)


def anchored_by(span: Any, anchors: list[Any]) -> bool:
    """An ambiguous name beside a product named unambiguously, in the same list or phrase ("bun +
    discord.js", "switched from pnpm to yarn"), is a product too; one elsewhere in the sentence ("keep
    it quick - whats the shortcut ... in vscode") is not lent that trust."""
    for anchor in anchors:
        if anchor.sent.start != span.sent.start:
            continue
        between = (
            span.doc[span.end : anchor.start]
            if anchor.start >= span.end
            else span.doc[anchor.end : span.start]
        )
        if len(between) <= 3 and all(
            t.is_punct or t.pos_ in ("CCONJ", "ADP") or t.lower_ in _BETWEEN_PRODUCTS for t in between
        ):
            return True  # "bun + discord.js", "from pnpm to yarn", "react w/ vite"
        a, b = anchor.root, span.root
        if a.head.i == b.i or b.head.i == a.i or a.head.i == b.head.i:
            return True  # one governs the other, or both belong to one word ("Yarn is ..., not pnpm")
    return False


def inside_a_name(span: Any) -> bool:
    """An ordinary-word product name written as one word of a longer capitalised name."""
    doc = span.doc
    neighbours = [doc[span.start - 1]] if span.start > 0 and not doc[span.start - 1].is_sent_start else []
    neighbours += [doc[span.end]] if span.end < len(doc) else []
    return span[0].text[:1].isupper() and any(
        t.text[:1].isupper() and t.is_alpha and t._.tech is None and t.text.lower() not in ("i", "ci")
        for t in neighbours
    )


# what chat opens with: "quick q", "quick question", "quick one"
_OPENING_NOUNS = frozenset({"q", "qn", "question", "questions", "one", "thing", "note", "favor", "favour"})


def counted_or_dated(span: Any, before: str) -> bool:
    """A name read as an ordinary word: counted ("one stack per env"), or a day ("since last Monday"),
    or the opening of a message ("quick q — our backend is django")."""
    doc = span.doc
    if span.end < len(doc) and doc[span.end].lower_ in _OPENING_NOUNS:
        return True
    if before in ("last", "next", "this", "every", "since", "until", "each"):
        return True  # "since last Monday": a day, not Monday.com
    after = doc[span.end] if span.end < len(doc) else None
    if before == "the" and span.text.islower() and (after is None or after.is_punct or after.lower_ == "of"):
        return True  # "the rest of the company", "goreleaser does the rest": a word, not REST
    if any(
        (c.dep_ in ("det", "nummod", "predet") and c.lower_ not in ("the",))
        or (c.dep_ == "amod" and c._.tech is None)
        for c in span.root.children
        if c.i < span.start
    ):
        return True  # "one stack per env", "a bit of C#": a common noun, counted
    if span.text.lower() in _SEASONS and before in ("the", "this", "last", "next", "early", "late", "every"):
        return True  # "in the spring": a season, not Spring
    return before in _CALENDAR or span.text.lower() in _CALENDAR  # "on Tuesday", "the weekly sync"


def named_or_placed(span: Any, before: str) -> bool:
    """A name said of a person or a place: "call me Sam", "my name is Ruby", "a consultant from
    Cairo", "named Julia"."""
    doc = span.doc
    two_before = doc[span.start - 2] if span.start > 1 else None
    if before in ("named", "called", "from", "nee", "née"):
        return True
    if before in ("in", "near") and _a_place_of_mine(span):
        return True
    if two_before is None:
        return False
    if before == "me" and two_before.lemma_.lower() in ("call", "name"):
        return True
    if before in ("is", "'s") and two_before.lower_ == "name":
        return True
    return before in ("'m", "m", "am") and two_before.lower_ in ("i", "im")


# what is done "in" a framework: "built in Phoenix", "apps written in Rails"
_MADE_IN = frozenset({"write", "build", "make", "develop", "code", "implement", "do", "port", "rewrite"})


def _a_place_of_mine(span: Any) -> bool:
    """ "an ICU nurse in Phoenix", "i live near Phoenix": a capitalised name after "in", in a sentence
    the speaker says of themselves, is where they are (but "apps i build in Phoenix")."""
    prep = span.root.head
    if not span[0].is_title or prep.lower_ not in ("in", "near") or prep.head._.tech is not None:
        return False
    if prep.head.lemma_.lower() in _MADE_IN:
        return False
    return any(t.lower_ in ("i", "my", "im", "me") for t in span.sent)


def among_names(span: Any, products: set[int]) -> bool:
    """A name in a list of people and their ages: "mom of 3 (Leo 9, Ava 6, Finn 2)" (not "Java 21,
    Oracle 19c": ``products``, the tokens the vocabulary matched)."""
    doc = span.doc

    def person(i: int) -> bool:
        return (
            0 <= i < len(doc) - 1
            and doc[i].text[:1].isupper()
            and doc[i].is_alpha
            and i not in products
            and doc[i + 1].like_num
        )

    after = span.end + 1  # past the number that looked like a version
    return (span.start >= 3 and doc[span.start - 1].text == "," and person(span.start - 3)) or (
        after + 1 < len(doc) and doc[after].text == "," and person(after + 1)
    )


def used(root: Any) -> bool:
    """Whether a verb of use governs the word, through prepositions, conjuncts and objects: "we use
    rails", "deployed on fly and render"."""
    head = root
    if root.dep_ == "pobj" and root.head.lower_ == "on" and root.head.head.lemma_ == "be":
        return True  # "the admin panel is still on mocha": what it runs on
    while head.head.i != head.i and head.dep_ in (
        "prep",
        "conj",
        "pobj",
        "dobj",
        "appos",
        "compound",
        "attr",
        "oprd",
        "nmod",
    ):
        head = head.head
        if head.lemma_ in _TECH_VERBS:
            return True
    return head.lemma_ in _TECH_VERBS
