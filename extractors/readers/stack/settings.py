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
        if subject is None or clause.mood not in ("statement", "fragment"):
            return []
        # "our main branch is called master": the name it is called by is its value
        named = head.lemma_.lower() in ("call", "name") and any(c.dep_ == "auxpass" for c in head.children)
        if head.lemma_ != "be" and not named:
            return []
        if not clause.asserted or clause.negated or clause.tense != "present":
            return []
        if subject.lemma_.lower() not in self.lex["setting_noun"] or not _ours(subject):
            return []
        value = next((c for c in head.children if c.dep_ in ("attr", "acomp", "oprd")), None)
        if value is None:
            return []
        glued = _as_written(value)
        if not _one_value(value, glued):
            return []
        words = [c.text for c in subject.children if c.dep_ in ("compound", "amod") and c.i < subject.i]
        thing = " ".join([*words, subject.text])
        if subject.lemma_.lower() == "branch" and {w.lower() for w in words} & _DEFAULT:
            thing = "default branch"  # "our main branch", "the primary branch": the one named so
        return [self._set(thing, glued.text, plain(clause.tokens), value.i)]

    def renamed(self, clause: Clause) -> list[Fact]:
        """ "we renamed master -> main", "renamed the default branch to main": the branch the
        project works on, renamed, is its new default branch (the old name is what it replaces)."""
        head = clause.head
        if head.lemma_.lower() != "rename" or not clause.asserted or clause.negated:
            return []
        after: list[Token] = []
        for token in head.doc[head.i + 1 : clause.head.sent.end]:
            if token.text in (",", ";", "(") or (token.is_punct and token.text not in (*_ARROWS, "-", ">")):
                break
            after.append(token)
        words = [t.lower_ for t in after]
        turn = next((n for n, w in enumerate(words) if w in ("to", "into") or w in _ARROWS), None)
        if turn is None and "->" in "".join(words):
            turn = next(n for n, w in enumerate(words) if w == ">")
        if turn is None or turn + 1 >= len(after):
            return []
        new = after[turn + 1]
        old = next(
            (t for t in reversed(after[:turn]) if t.is_alpha and t.lower_ not in ("from", "the")), None
        )
        names = self.lex["branch_name"]
        branch = "branch" in words[:turn] or new.lower_ in names or (old is not None and old.lower_ in names)
        if not branch or not (new.is_alpha or "/" in new.text) or new.lower_ in ("it", "that"):
            return []
        fact = self._set("default branch", new.text, plain(clause.tokens), new.i)
        if old is not None and old.lower_ != "branch":
            fact.previous = old.text
        return [fact]

    @staticmethod
    def _set(thing: str, said: str, span: str, anchor: int) -> Fact:
        return Fact(
            kind="semantic",
            scope="project",
            key=f"setting:{slug(thing)}",
            value=said,
            text=f"{SUBJECT_MARK}'s {thing} is {said}.",
            span=span,
            reader="stack.setting",
            confidence=0.8,
            anchor=anchor,
        )


# how a branch that is the default is named: "our main branch", "the primary branch"
_DEFAULT = frozenset({"main", "default", "primary", "trunk"})
_ARROWS = ("\u2192", "=>", "->")


def _ours(subject: Token) -> bool:
    """ "our default branch", "the staging URL", "default branch is master" at the start of a line
    (not "your branch", "a port", "his url")."""
    first = subject.left_edge
    return any(
        (c.dep_ == "poss" and c.lower_ in ("our", "my")) or (c.dep_ == "det" and c.lower_ == "the")
        for c in subject.children
    ) or (first.i == first.sent.start and first.pos_ != "DET")


def _one_value(value: Token, glued: Span) -> bool:
    """A value said as one word: "master", "staging.acme.dev", "8080", "eu-west-1" (not "a mess",
    "really slow", "the one from last week")."""
    inside = range(glued.start, glued.end)
    if value.is_punct or any(
        c.dep_ != "punct" and c.i not in inside and not _after_comma(c) for c in value.children
    ):
        return False
    if len(glued) > 1:
        return True
    return (
        value.pos_ in ("PROPN", "NUM", "X") or not value.is_alpha or (value.is_lower and value.pos_ == "NOUN")
    )


def _after_comma(token: Token) -> bool:
    """ "our default branch is master, CI only runs on master": what the parser hung on the value
    past a comma is the next clause's, not a word of the value."""
    return bool(token.dep_ == "appos" and token.i > 0 and token.doc[token.i - 1].text == ",")


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
