"""A setting of the project, said as what it is: "our default branch is master", "the staging URL is
staging.acme.dev", "the api port is 8080". The thing set is one of the lexicon's ``setting_noun``s,
with the words that say which one; its value is one token, kept as typed. A later "the default
branch is trunk now" fills the same slot, so it supersedes the old value."""

from __future__ import annotations

from extractors.clauses import Clause
from extractors.readers.common import Fact, ReaderBase, Span, Token, slug
from extractors.render import SUBJECT_MARK, plain


class SettingReader(ReaderBase):
    def setting(self, clause: Clause) -> list[Fact]:
        subject, head = clause.subject, clause.head
        if subject is None or head.lemma_ != "be" or clause.mood not in ("statement", "fragment"):
            return []
        if not clause.asserted or clause.negated or clause.tense != "present":
            return []
        if subject.lemma_.lower() not in self.lex["setting_noun"] or not _ours(subject):
            return []
        value = next((c for c in head.children if c.dep_ in ("attr", "acomp")), None)
        if value is None:
            return []
        glued = _as_written(value)
        if not _one_value(value, glued):
            return []
        words = [c.text for c in subject.children if c.dep_ in ("compound", "amod") and c.i < subject.i]
        thing = " ".join([*words, subject.text])
        said = glued.text
        return [
            Fact(
                kind="semantic",
                scope="project",
                key=f"setting:{slug(thing)}",
                value=said,
                text=f"{SUBJECT_MARK}'s {thing} is {said}.",
                span=plain(clause.tokens),
                reader="stack.setting",
                confidence=0.8,
                anchor=value.i,
            )
        ]


def _ours(subject: Token) -> bool:
    """ "our default branch", "the staging URL" (not "your branch", "a port", "his url")."""
    return any(
        (c.dep_ == "poss" and c.lower_ in ("our", "my")) or (c.dep_ == "det" and c.lower_ == "the")
        for c in subject.children
    )


def _one_value(value: Token, glued: Span) -> bool:
    """A value said as one word: "master", "staging.acme.dev", "8080", "eu-west-1" (not "a mess",
    "really slow", "the one from last week")."""
    inside = range(glued.start, glued.end)
    if value.is_punct or any(c.dep_ != "punct" and c.i not in inside for c in value.children):
        return False
    if len(glued) > 1:
        return True
    return (
        value.pos_ in ("PROPN", "NUM", "X") or not value.is_alpha or (value.is_lower and value.pos_ == "NOUN")
    )


def _as_written(value: Token) -> Span:
    """The word ``value`` is part of, written without spaces: "eu-west-1" is three tokens."""
    doc, start, end = value.doc, value.i, value.i
    while start > 0 and not doc[start - 1].whitespace_ and not doc[start - 1].is_punct:
        start -= 1
    while end + 1 < len(doc) and not doc[end].whitespace_:
        after = doc[end + 1]
        # "staging.acme.dev", "eu-west-1" go on; "develop...", "`develop`", "8080)" end
        if after.is_punct and not (
            after.text in _JOINS
            and end + 2 < len(doc)
            and not after.whitespace_
            and not doc[end + 2].is_punct
        ):
            break
        end += 1
    while end > start and doc[end].is_punct:
        end -= 1
    return doc[start : end + 1]


_JOINS = frozenset({".", "-", "_", "/", ":"})
