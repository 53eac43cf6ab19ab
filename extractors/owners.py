"""Whose a fact read from a user's sentence is. The readers see products and names everywhere;
these filters take back what the sentence says is the person's, not the project's: the company one
works at, a pet's name, the language one works in or learns, a statement a slot already keeps."""

from __future__ import annotations

import re
from typing import Any

from extractors.clauses import Clause
from extractors.lexicon import Lexicon
from extractors.readers import Fact
from extractors.vocabulary import Vocabulary


def not_employers(facts: list[Fact], clauses: list[Clause], occupations: frozenset[str]) -> list[Fact]:
    """ "I work at Stripe", "started as a data engineer at Klarna": where the speaker works is not
    what the project uses, nor a note about the project (but "our app bills with Stripe" is)."""
    employers = [f for f in facts if f.key == "employer"]
    workplaces = [t for c in clauses for t in c.tokens if _works_at(t, occupations)]
    if not employers and not workplaces:
        return facts
    where = [{t.i for t in c.tokens} for c in clauses]
    where = [i for i in where if any(f.anchor in i for f in employers) or any(t.i in i for t in workplaces)]
    names = [f.value.lower() for f in employers] + [t.lower_ for t in workplaces]

    def works_there(fact: Fact) -> bool:
        named = any(re.search(rf"\b{re.escape(n)}\b", fact.value.lower()) for n in names)
        return named and (fact.key is None or any(fact.anchor in i for i in where))

    return [f for f in facts if f.scope != "project" or not works_there(f)]


def not_languages_as_places(facts: list[Fact], lex: Lexicon) -> list[Fact]:
    """ "living in Vienna, ... I speak german + english", "I'll write in english. I teach french in
    Montréal": a language is no place one lives in."""
    return [
        f
        for f in facts
        if not (f.key in ("home_city", "hometown") and f.value.lower() in lex["language_name"])
    ]


_VERSUS = frozenset({"vs", "vs.", "versus"})


def not_weighed(sent: Any, facts: list[Fact]) -> list[Fact]:
    """ "postgres vs mysql for a small hobby forum, which would you pick": products set against
    each other are options being weighed, not what the project uses."""
    doc = sent.doc
    weighed: set[int] = set()
    for token in sent:
        if token.lower_ not in _VERSUS:
            continue
        sides = []
        for step in (-1, 1):
            side = []
            at = token.i + step
            while sent.start <= at < sent.end and abs(at - token.i) <= 3 and not doc[at].is_punct:
                side.append(at)
                at += step
            sides.append(side)
        if all(any(doc[i]._.tech is not None for i in side) for side in sides):
            weighed.update(
                sides[0] + sides[1]
            )  # (a product on each side: "mysql to postgres vs the old setup" weighs none)
    if not weighed:
        return facts
    return [f for f in facts if not (f.reader.startswith("stack.") and f.anchor in weighed)]


def said_by_a_slot(facts: list[Fact]) -> list[Fact]:
    """ "im at a small fintech called Ledgerly now": a statement of oneself that names the company the
    same sentence says one works at ("works at Ledgerly") says nothing more worth a record."""
    held = [f.value.lower() for f in facts if f.reader == "personal.employer.called"]

    def said(fact: Fact) -> bool:
        words = fact.value.lower()
        return any(re.search(rf"(?<!\w){re.escape(v)}(?!\w)", words) for v in held)

    return [f for f in facts if not (f.reader == "personal.statement" and f.key is None and said(f))]


def not_names(facts: list[Fact]) -> list[Fact]:
    """ "two cats, Miso and Tofu": a name given to a pet or a relative is not the product it spells."""
    named = [f for f in facts if f.scope == "user" and (f.key or "").startswith(("pet", "family", "name"))]
    names = {word for f in named for word in re.findall(r"[A-Z][\w-]*", f.value)}
    # ("Priya (she/her), PhD student": a name no dictionary knows is no tool either)
    return [
        f
        for f in facts
        if not (
            f.scope == "project" and (f.category or (f.key or "").startswith("tool:")) and f.value in names
        )
    ]


def _works_at(token: Any, occupations: frozenset[str]) -> bool:
    """ "a data role at Datadog", "staff engineer @ Klarna", "working at Shopify": a company one
    works at, named like a product the project might use."""
    prep = token.head
    if token.dep_ != "pobj" or prep.lower_ not in ("at", "@") or token._.tech is None:
        return False
    job = prep.head.lemma_.lower()
    return job in occupations or job in _JOB_WORDS or prep.head.lower_ in occupations


_JOB_WORDS = frozenset(
    {"job", "role", "position", "internship", "work", "intern", "gig", "contract", "offer"}
)


def not_the_projects_language(sent: Any, facts: list[Fact], lex: Lexicon) -> list[Fact]:
    """ "backend dev at Allegro, mostly Java", "I mostly write Python", "learning python": the
    languages a person works in or learns, said of them and no project; the role says them."""
    languages = [f for f in facts if f.scope == "project" and (f.key or "").startswith("language:")]
    if not languages or _names_a_project(sent, lex):
        return facts
    introduced = any(f.scope == "user" and f.key in ("role", "employer") for f in facts)

    def the_persons(fact: Fact) -> bool:
        token = sent.doc[fact.anchor] if 0 <= fact.anchor < len(sent.doc) else None
        if token is None:
            return False
        if introduced and token.head.lower_ in ("in", "with", "using"):
            return False  # "PhD student at Dalhousie, analysis in R": the work's language
        for _ in range(4):  # "Python and a bit of Julia": what the first one is, both are
            if token.dep_ == "conj" and token.head.i != token.i:
                token = token.head
            elif token.dep_ == "pobj" and token.head.lower_ == "of":
                token = token.head.head
        governors = [token.head, token.head.head]
        learning = any(g.lemma_.lower() in _LEARNING for g in governors)
        written = token.head.lemma_.lower() in _WRITING and any(
            c.dep_ == "nsubj" and c.lower_ == "i" for c in token.head.children
        )
        return introduced or learning or written

    return [f for f in facts if f not in languages or not the_persons(f)]


def not_companion_languages(facts: list[Fact], vocabulary: Vocabulary) -> list[Fact]:
    """ "still drowning in SQL", "css rebuilds too", "14mb of wasm": a query, markup or style
    language named without a version rides along with the project's own language, and is no
    record of what the project is written in (the vocabulary marks them ``companion``)."""

    def companion(fact: Fact) -> bool:
        if fact.scope != "project" or not (fact.key or "").startswith("language:"):
            return False
        product = vocabulary.product_named(fact.value)
        return product is not None and product.companion and not any(ch.isdigit() for ch in fact.value)

    return [f for f in facts if not companion(f)]


def _names_a_project(sent: Any, lex: Lexicon) -> bool:
    """Whether a sentence speaks of a project: "our", "we", "the app", "my repo" (not the
    workplace words of a role: "backend dev at a small company")."""
    things = lex["project_noun"] - _WORKPLACES
    return any(
        t.lower_ in ("our", "we", "us", "we're", "were")
        or (t.lower_ in things and t.dep_ not in ("compound", "amod"))
        for t in sent
    )


# what a person does with a language that is theirs, not a project's
_LEARNING = frozenset({"learn", "study", "pick", "practice", "teach", "try"})
_WRITING = frozenset({"write", "code", "program", "know"})
_WORKPLACES = frozenset(
    {"company", "team", "org", "shop", "we", "backend", "frontend", "firmware", "mobile", "web"}
)
