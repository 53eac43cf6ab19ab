"""A clause and its features: who it is about and how it is said (see ``extractors.clauses``)."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from extractors.ambiguity import WEEKDAYS

Token = Any  # spacy.tokens.Token
Span = Any

FUTURE_MODALS = frozenset({"will", "'ll", "ll", "shall", "wo", "gonna"})
WEAK_MODALS = frozenset({"might", "could", "may", "would", "'d", "d", "ca", "can"})
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "expl"})
SPEAKER = frozenset({"i", "me", "myself"})
GROUP = frozenset({"we", "us", "ourselves"})
PLEASE = frozenset({"please", "pls", "plz", "plss", "plox", "kindly"})  # no subject, no part of a rule


@dataclass(slots=True)
class Clause:
    head: Token
    tokens: list[Token]
    subject: Token | None
    # speaker | implied | group | family | pet | speaker_thing | project | you | third | pointing
    # | thing | none
    about: str
    mood: str  # statement | imperative | question | fragment
    negated: bool = False
    modal: str | None = None
    tense: str = "present"  # present | past | perfect | future | progressive
    hedged: bool = False
    planned: bool = False
    reported: bool = False
    conditional: bool = False
    transient: bool = False
    standing: bool = False
    parent: Clause | None = None
    children: list[Clause] = field(default_factory=list)
    referent: Token | None = None  # who "he" or "she" is, when the speaker just named them

    @property
    def start(self) -> int:
        return int(self.tokens[0].i)

    @property
    def end(self) -> int:
        return int(self.tokens[-1].i) + 1

    @property
    def text(self) -> str:
        return "".join(t.text_with_ws for t in self.tokens).strip()

    def has(self, token: Token) -> bool:
        return self.start <= token.i < self.end and token in self.tokens

    @property
    def asserted(self) -> bool:
        """Said as true, now, by the speaker: not asked, wished, planned, guessed or supposed."""
        return not (
            self.mood == "question"
            or self.hedged
            or self.planned
            or self.reported
            or self.conditional
            or self.tense == "future"
            or (self.modal is not None and self.modal in WEAK_MODALS | FUTURE_MODALS)
        )


def has_subject(verb: Token) -> bool:
    return any(c.dep_ in SUBJECT_DEPS for c in verb.children)


# what "this" or "next" makes one time, not every time: "this friday", "next week", "this sprint"
_ONE_TIME = WEEKDAYS | {"week", "weekend", "sprint", "month", "release", "morning", "afternoon"}


def in_quotes(token: Token, single: bool = True) -> bool:
    """A word between quotation marks of its sentence: named or someone else's words, not said. An
    apostrophe between two letters ("don't") is no mark. ``single=False`` counts double quotes only:
    "my 'morning' is 3pm" is still the speaker's time word."""
    before = token.doc.text[token.sent.start_char : token.idx]
    marks = _QUOTE_MARK if single else _DOUBLE_QUOTE
    return len(marks.findall(before)) % 2 == 1


_DOUBLE_QUOTE = re.compile(r"[\"\u201c\u201d]")
_QUOTE_MARK = re.compile(r"[\"\u201c\u201d]|(?<![A-Za-z])['\u2018\u2019]|['\u2018\u2019](?![A-Za-z])")


_HAPPENING = frozenset({"get", "see", "hit", "receive", "run", "lose", "crash", "fail", "break"})


def keeps_happening(clause: Clause) -> bool:
    """ "the model keeps double counting rows", "i keep forgetting the seed": a trouble that recurs,
    told to get help with it, not a standing fact or rule (but "we keep secrets in vault" is one)."""
    head = clause.head
    if head.lemma_.lower() != "keep":
        return False
    for token in head.doc[head.i + 1 : head.i + 4]:
        if token.is_alpha and token.lower_.endswith("ing") and len(token) > 4:
            # said without a subject, "keep using tabs" is an order; "keep getting an NCCL timeout"
            # tells what happens
            return clause.mood != "imperative" or token.lemma_.lower() in _HAPPENING
        if token.pos_ not in ("ADV", "ADJ", "PART"):
            return False  # "i keep the calving dates in Google Sheets": what one keeps
    return False


def describing_a_thing_to_make(clause: Clause) -> set[int]:
    """Tokens of a relative clause that describes something indefinite: in "write a github action
    that runs on every merge" the "every" is what the action will do, not how often to write one."""
    return {
        t.i
        for head in clause.tokens
        if head.dep_ in ("relcl", "acl")
        and any(d.dep_ == "det" and d.lower_ in ("a", "an") for d in head.head.children)
        for t in head.subtree
    }


def for_one_time(words: list[str]) -> bool:
    """ "no deploys this friday", "next week": said of one time, not every time (``words`` lowercased)."""
    return any(w in ("this", "next") and nxt in _ONE_TIME for w, nxt in itertools.pairwise(words))
