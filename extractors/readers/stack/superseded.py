"""Which products a sentence names as the old, the gone or the rejected one, so that the one it
uses takes their slot: "switched from npm to pnpm", "replaced celery with arq", "jest is gone",
"pnpm, not npm", "instead of ESLint and Prettier", "Cypress is banned now"."""

from __future__ import annotations

from extractors.clauses import Clause
from extractors.readers.common import ReaderBase, Span, Token


class SupersededProducts(ReaderBase):
    """What a product said beside the one in use was: replaced, gone, or the alternative not taken."""

    def _is_previous(self, span: Span, clause: Clause) -> bool:
        """ "from X to Y", "replaced X with Y", "dropped X for Y", "X is out": X is the old value;
        so is each product listed with X ("replaced flake8, black and isort with ruff")."""
        root = _listed_first(span)
        head = root.head
        doc = span.doc
        if (
            span.end + 1 < len(doc)
            and doc[span.end].text in ("\u2192", "->", "=>")
            and doc[span.end + 1]._.tech == span.label_
        ):
            return True  # "switched poetry → uv" (but "events → kafka → clickhouse" is a flow)
        if (
            head.lemma_.lower() in self.lex["switch_verb"]
            and root.dep_ in ("dobj", "advmod", "npadvmod")
            and any(c.dep_ == "prt" and c.lower_ == "off" and c.i == span.start - 1 for c in head.children)
        ):
            return True  # "we migrated off express last year"
        if head.dep_ == "prep" and head.lower_ in ("from", "off"):
            verb = head.head.lemma_.lower()
            parent = clause.parent.head.lemma_.lower() if clause.parent is not None else ""
            return (
                verb in self.lex["switch_verb"]
                or clause.head.lemma_.lower() in self.lex["switch_verb"]
                or parent in self.lex["switch_verb"]
                or any(t.lower_ in ("to", "onto", "into") for t in clause.tokens if t.i > root.i)
            )
        if self._switched_from(span):
            return True  # "converted the unittest suite to pytest": the suite was unittest
        replacing = self.lex["replace_verb"] | self.lex["drop_verb"]
        if any(c.dep_ == "amod" and c.lemma_.lower() in replacing and c.i < root.i for c in root.children):
            # "replaced flake8, black and isort with ruff", parsed as a replaced flake8
            return any(t.lower_ in ("with", "for", "by") for t in doc[root.i : span.sent.end])
        # ("we dropped webpack for vite": the parser may take the product right after the verb for
        # an adverb)
        misparsed_object = root.dep_ in ("advmod", "npadvmod") and span.start == head.i + 1
        if (root.dep_ == "dobj" or misparsed_object) and head.lemma_.lower() in (
            self.lex["replace_verb"] | self.lex["drop_verb"]
        ):
            return any(t.lower_ in ("with", "for", "by") for t in head.children) or head.lemma_ in (
                "drop",
                "ditch",
            )
        return bool(root.dep_ == "nsubj" and any(t.lower_ in ("out", "gone", "dead") for t in head.children))

    def _switched_from(self, span: Span) -> bool:
        """ "converted the unittest suite to pytest", "migrated our mysql db to postgres": after a
        verb of switching, a product named before "to" whose slot a product after it fills is the
        old one (read from the words: the parser often loses such a "to")."""
        sent = span.sent
        if not any(t.i < span.start and t.lemma_.lower() in self.lex["switch_verb"] for t in sent):
            return False
        if any(t.lower_ == "from" for t in sent):
            return False  # "from X to Y": read by its preposition
        to = next(
            (t for t in sent if span.end <= t.i <= span.end + 4 and t.lower_ in ("to", "onto", "into")), None
        )
        if to is None:
            return False
        return any(t._.tech == span.label_ for t in sent if to.i < t.i <= to.i + 3)

    def _gone(self, span: Span) -> bool:
        """A product the sentence says is no longer used: "MySQL's gone for good", "jest was too slow",
        "we left heroku in jan", "ripped out typeorm", "celery ... replaced by arq", "the old CI"."""
        root = span.root
        head = root.head
        lex = self.lex
        if root.dep_ == "conj" and root.head.i != root.i and root.head._.tech is not None:
            return self._gone(span.doc[root.head.i : root.head.i + 1])  # "ripped out Mocha and Chai"
        leave = lex["drop_verb"] | lex["leave_verb"]
        if any(c.lower_ in ("old", "legacy", "former", "previous", "ex") for c in root.children):
            return True
        if _said_gone_after(span):
            return True  # "jest.config.js and babel-jest are gone", however the parser joined them
        if root.dep_ in ("compound", "conj", "amod") and root.head.pos_ == "NOUN":
            noun = root.head if root.dep_ != "conj" else root.head.head
            if any(c.lower_ in ("old", "legacy", "former", "previous") for c in noun.children):
                return True  # "the old ESLint + Prettier setup"
            if noun.dep_ == "dobj" and noun.head.lemma_.lower() in leave:
                return True
        if root.dep_ in ("nsubj", "nsubjpass"):
            if head.lemma_.lower() in leave and root.dep_ == "nsubjpass":
                return True  # "celery was replaced by arq"
            past = head.tag_ == "VBD" or any(
                a.tag_ == "VBD" for a in head.children if a.dep_ in ("aux", "auxpass")
            )
            gone_words = {"gone", "out", "dead", "deprecated", "history", "retired", "removed", "dropped"}
            if any(c.lower_ in gone_words for c in head.children) or head.lower_ in gone_words:
                return True
            if head.lemma_ == "be" and any(
                t.lower_ in gone_words for t in head.doc[head.i + 1 : min(head.i + 3, head.sent.end)]
            ):
                return True  # "jenkins is retired (rip)", however the parser hung "retired"
            return (
                past
                and head.lemma_ == "be"
                and not any(c.dep_ == "advmod" and c.lower_ == "now" for c in head.children)
            )
        if (root.dep_ == "dobj" or (root.dep_ == "npadvmod" and span.start == head.i + 1)) and (
            head.lemma_.lower() in leave  # "dropped yarn, pnpm now"
        ):
            return (
                not any(c.lower_ in ("with", "by") for c in head.children) or head.lemma_.lower() == "replace"
            )
        if root.dep_ in ("dobj", "npadvmod") and any(
            c.dep_ == "prt" and c.lower_ in ("off", "out", "away") and c.i < root.i for c in head.children
        ):
            return True  # "moved off Heroku", "ripped out Mocha"
        if root.dep_ == "pobj" and _no_longer(head.head):
            return True  # "we're no longer on heroku", "not on jenkins anymore"
        if root.dep_ == "pobj" and head.lower_ == "off" and head.head.lemma_ == "be":
            return True  # "we're off Heroku as of this sprint"
        if root.dep_ == "pobj" and head.lower_ in ("off", "from", "out"):
            verb = head.head
            while verb.dep_ in ("advmod", "prt", "prep") and verb.head.i != verb.i:
                verb = verb.head  # "moved away from pnpm"
            if verb.lemma_.lower() in leave | lex["switch_verb"] | {"move", "go", "get"}:
                return True
        return False

    @staticmethod
    def _is_other(span: Span) -> bool:
        """ "pnpm, not npm", "instead of npm", "rather than npm", "X over Y", "without docker": a named
        alternative."""
        doc = span.doc
        start = span.start
        # "instead of ESLint + Prettier": a product joined to a named alternative is one too
        while (
            start - 2 >= span.sent.start
            and doc[start - 1].lower_ in ("+", "and", "&", "/", ",", "or")
            and doc[start - 2]._.tech is not None
        ):
            start -= 2
            while start - 1 >= span.sent.start and doc[start - 1]._.tech is not None:
                start -= 1
        for begin in dict.fromkeys((span.start, start)):
            before = [doc[i].lower_ for i in range(max(span.sent.start, begin - 3), begin)]
            if before[-1:] in (["not"], ["no"], ["never"], ["over"], ["without"], ["w/o"]) or before[-2:] in (
                ["instead", "of"],
                ["rather", "than"],
                ["not", "the"],
                ["no", "more"],
            ):
                return True
        root = span.root
        if root.dep_ in ("nsubjpass", "nsubj") and root.head.lemma_.lower() in _BANNED:
            return True  # "Cypress is banned now", "moment is deprecated here"
        return any(c.dep_ == "neg" and c.i < span.start for c in span.root.children)


# what a product said to be banned or on its way out is: not what the project uses
_BANNED = frozenset({"ban", "forbid", "prohibit", "disallow", "deprecate", "outlaw", "blacklist"})


def _no_longer(verb: Token) -> bool:
    """ "no longer", "not ... anymore": what the verb says held before and holds no more."""
    words = [c.lower_ for c in verb.children]
    return (
        "anymore" in words
        or any(c.lower_ == "longer" and any(n.lower_ == "no" for n in c.children) for c in verb.children)
        or ("longer" in words and "no" in words)
    )


_GONE_WORDS = frozenset({"gone", "removed", "deleted", "dropped", "uninstalled", "retired", "deprecated"})


def _said_gone_after(span: Span) -> bool:
    """The words after a product, up to its verb, say it is gone: "X and Y are gone", "X was removed"
    (read from the words: a list before "are gone" is often hung on the wrong head)."""
    doc = span.doc
    end = min(span.end + 8, span.sent.end)
    for n in range(span.end, end - 1):
        token = doc[n]
        if token.lower_ in ("is", "are", "was", "were", "'s", "'re", "has", "have", "been", "got"):
            after = doc[n + 1]
            if after.lower_ == "been" and n + 2 < end:
                after = doc[n + 2]
            return after.lower_ in _GONE_WORDS
        if token.pos_ in ("VERB", "AUX") or token.text in (";", ":", ".", "—", "(", ")"):
            return False
        if token.text == "," and doc[n - 1]._.tech is None:
            return False  # "vitest a while ago, jest is gone": a new clause, not a list going on
        if token.pos_ in ("NOUN", "PROPN") and token._.tech is None and token.is_lower:
            return False  # "onto postgres, the mongoose models are gone": the models are, not postgres
    return False


# what joins the products of a list: "flake8, black and isort", "flake8/black/isort"
_LISTING = frozenset({",", "/", "and", "&", "+", "or"})


def _listed_first(span: Span) -> Token:
    """The word that stands for a list a product is in: its first product, as the parse hangs it."""
    doc = span.doc
    root = span.root
    while root.dep_ == "conj" and root.head.i != root.i and root.head._.tech is not None:
        root = root.head
    start = root.i if root.i < span.start else span.start
    after = doc[span.end].lower_ if span.end < len(doc) else ""
    if after == "now":
        return root  # "dropped jest, vitest now": what is used now
    # a comma lists only in a list that goes on with "and" ("flake8, black and isort"), not in
    # "dropped jest, vitest now"
    listed = _LISTING - {","} if after not in ("and", "or", "&", ",") else _LISTING
    while start >= 2 and doc[start - 1].lower_ in listed and doc[start - 2]._.tech is not None:
        start -= 2
        while start > 0 and doc[start - 1]._.tech is not None and doc[start - 1].whitespace_ == "":
            start -= 1
    first = doc[start] if start < root.i else root
    # "flake8/black/isort": the parser hangs the first ones on the last, which it takes for the object
    while (
        first.dep_ in ("compound", "nmod", "amod")
        and first.head.i > first.i
        and first.head._.tech is not None
    ):
        first = first.head
    return first
