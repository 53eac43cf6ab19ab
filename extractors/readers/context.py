"""The stack as said, when the slots miss part of it: "homelab: proxmox cluster on two nodes, truenas
scale for storage, everything behind tailscale". The stack readers fill one slot per product they
know; a sentence they read as a statement of the stack that also names things they do not know (an
internal service, a board, a product missing from the vocabulary, a version) is kept whole beside
those slots, so the rest is not lost."""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any

from extractors.clauses import QUESTION_WORDS, Clause
from extractors.folds import guessed_aside
from extractors.readers.common import (
    DEICTIC,
    PURPOSE_WORDS,
    Fact,
    ReaderBase,
    Span,
    Token,
    goes_wrong,
    joined,
)
from extractors.readers.rules.facts import COMMAND, in_third_person
from extractors.render import SUBJECT_MARK, sentence, trim

_MAX_WORDS = 45
# what announces a change: "..., trunk-based now", "not Calgary anymore", "no more nights"
_CHANGED = re.compile(
    r"\b(?:now|anymore|any more|no longer|no more|instead of|switched|switching|moved|renamed|upgraded|"
    r"migrated|swapped|replaced|killed|dropped|ditched|got rid of|changed|from now on)\b"
)
_NOT_A_CHANGE = re.compile(
    r"\b(?:for (?:a|an|\w+) \w+ now|right now|just now|by now|what changed|no idea|hypothetically|would|"
    r"if (?:we|i|you)|dreaming|changed (?:my|our) minds?)\b"  # "i changed my mind": a turn in the talk
)
_ONCE = frozenset({"again", "now", "first", "quickly"})
_PRONOUNS = frozenset({"i", "im", "i'm", "we", "our", "us", "my", "me", "you", "u", "it", "they"})


class ContextNotes(ReaderBase):
    """A statement of the stack kept as said, when it names more than its slots hold."""

    @cached_property
    def _trade_words(self) -> frozenset[str]:
        """ "repo", "backend", "config": words of the trade, which name nothing a later session could
        not guess (built once, not per token)."""
        return self.lex["project_noun"] | self.lex["code_noun"]

    def stack_note(self, sent: Span, facts: list[Fact], asked: int | None = None) -> list[Fact]:
        """``asked``: where a question starts in the sentence ("whats the shortcut ..."), if it does."""
        stack = [f for f in facts if f.scope == "project" and f.reader.startswith("stack.")]
        if (
            not stack
            or _foreign(sent.text)
            or asked is not None
            or any(f.reader == "stack.context" for f in facts)
        ):
            return []
        tokens = trim([t for t in sent if not t.is_space])
        text = joined(tokens)
        if "?" in text or len(tokens) > _MAX_WORDS or len(tokens) < 4:
            return []
        if not self.says_more(sent, facts):
            return []  # the slots say it all
        if any(goes_wrong(t) for t in sent if t.pos_ in ("VERB", "AUX")):
            return []  # "the prisma client is generated in a weird place and jest can't resolve it"
        if any(t._.tech is not None and guessed_aside(t, self.lex["hedge"]) for t in sent):
            return []  # "rabbitmq (for now, sqs eventually)": what it adds is a guess
        return [_as_said(tokens, "project", "stack.context")]

    def command_note(
        self,
        sent: Span,
        clauses: list[Clause],
        facts: list[Fact],
        commands: list[tuple[Any, Span]],
        asked: int | None,
    ) -> list[Fact]:
        """ "u need to run `poetry run alembic upgrade head` before starting the api", "android:
        ./gradlew assembleDebug for builds": a command said with what it is for, kept as said when
        the command readers gave it no slot."""
        if asked is not None or not commands or _foreign(sent.text):
            return []
        told = " ".join(f"{f.value} {f.text}" for f in facts).lower()
        untold = [c for c, _ in commands if (c.quoted or c.arguments) and c.text.lower() not in told]
        if not untold:
            return []
        tokens = trim([t for t in sent if not t.is_space])
        text = joined(tokens)
        if "?" in text or len(tokens) > _MAX_WORDS or len(tokens) < 3:
            return []
        if any(t.dep_ in ("dobj", "pobj") and t.lower_ in ("them", "it", "this", "that") for t in tokens):
            return []  # "run `npm audit fix` to fix them": what "them" is, is elsewhere
        if {t.lower_ for t in tokens} & _ONCE or tokens[0].lemma_.lower() in ("try", "retry", "rerun"):
            return []  # "try running npm install again": this session's attempt
        if any(c.about in ("speaker", "implied") and c.tense == "past" for c in clauses):
            return []  # "I ran pnpm add zod and it hangs": what happened, not how things are done
        if tokens[0].lower_ in ("after", "since", "if", "when", "once") and ":" not in text[:40]:
            return []  # "after pnpm test the snapshot is stale": the outcome of a run
        if re.match(r"here(?:'s| is| are)\b", text.lower()):
            return []  # "here's `npm ls --depth=0`:": what is pasted next, not how the project runs
        first = tokens[0]
        started = any(span.start == first.i for _, span in commands)
        # "what happens if i git rebase -i ...", "explain git rebase like ...": asked, not told (but
        # "how we build the firmware: cmake ..." labels how it is done)
        asking = first.lower_ in QUESTION_WORDS or (
            first.tag_ == "VB" and first.lemma_.lower() in self.lex["teach_verb"]
        )
        if asking and not started and ":" not in text[:40]:
            return []
        return [_as_said(tokens, "project", "commands.context")]

    def change_note(
        self, sent: Span, clauses: list[Clause], facts: list[Fact], asked: int | None
    ) -> list[Fact]:
        """ "we killed the develop branch, trunk-based now", "finally on day shifts!! no more nights",
        "got married in may so it's Katarzyna Wiśniewska now, not Nowak": a change announced in a shape
        no reader knows is kept as said, rather than lost while the old value stays current."""
        if facts or asked is not None or _foreign(sent.text):
            return []
        if not any(t.lower_ in _OURS for t in sent) and not any(c.about == "implied" for c in clauses):
            return []  # "fastqueue is deprecated", "billing is now run by X": the world's news
        tokens = trim([t for t in sent if not t.is_space])
        text = joined(tokens)
        lowered = text.lower()
        if "?" in text or len(tokens) > _MAX_WORDS or len(tokens) < 3 or not _CHANGED.search(lowered):
            return []
        if tokens[0].lower_ in ("now", "if", "getting", "translate") or tokens[0].tag_ == "VB":
            return []  # "Now, the cron job": a turn in the talk; an order; a hypothesis
        if _NOT_A_CHANGE.search(lowered):
            return []
        if any(t.dep_ in ("dobj", "nsubj", "nsubjpass") and t.lower_ in DEICTIC for t in tokens):
            return []  # "we renamed it ages ago": what "it" is was said elsewhere
        main = [c for c in clauses if c.parent is None] or clauses
        if any(
            c.hedged or c.planned or c.conditional or c.reported or c.negated or c.mood == "question"
            for c in main
        ):
            return []
        if not any(self._detail(t) or t.pos_ in ("NOUN", "PROPN", "NUM") for t in tokens):
            return []
        mine = any(t.lower_ in ("i", "im", "i'm", "my", "me") for t in tokens)
        technical = not mine and any(
            t._.tech is not None or t.lemma_.lower() in self.lex["code_noun"] or COMMAND.match(t.text)
            for t in tokens
        )  # "im not at Shopify anymore": the person's change, whatever it names
        life = self.lex["kin_noun"] | self.lex["pet_noun"] | self.lex["life_noun"]
        # "we finally switched to URP (...) so ignore my old questions": the team's change, said by me
        # ("we rewrote the frontend in react ..., angular is completely gone now": whichever clause
        # the parser made the main one)
        teams = any(c.about in ("group", "project") for c in [*main, *clauses]) and not any(
            t.lemma_.lower() in life for t in tokens
        )
        return [_as_said(tokens, "project" if technical or teams else "user", "change.context")]

    def says_more(self, sent: Span, facts: list[Fact]) -> bool:
        """Whether the sentence names something the facts read from it do not hold."""
        told = " ".join(f"{f.value} {f.text} {f.previous} {f.other} {f.when}" for f in facts).lower()
        return any(self._detail(t) and t.lower_ not in told for t in sent)

    def _detail(self, token: Token) -> bool:
        """A word a later session could not guess: a name, a version, a coined word."""
        if token.is_punct or token.lower_ in _PRONOUNS or len(token.text) < 2 or COMMAND.match(token.text):
            return False
        if token.lower_ in PURPOSE_WORDS:
            return False  # "ruff for linting": what a product is for, said by its slot
        if any(ch.isdigit() for ch in token.text) or re.search(r"[A-Za-z][.+#_/-][A-Za-z0-9]", token.text):
            return True
        common = self._trade_words
        if token.lower_ in common or token.lemma_.lower() in common:
            return False  # "repo", "backend", "config": words of the trade, not names
        return token.pos_ == "PROPN" or (token.is_alpha and token.lower_ not in self.known_words)


def _as_said(tokens: list[Token], scope: str, reader: str) -> Fact:
    """The sentence as said, in the third person, as a free-form fact of ``scope``."""
    text = joined(tokens)
    said = in_third_person(text)
    return Fact(
        kind="semantic",
        scope=scope,
        key=None,
        value=said,
        text=sentence(f"{SUBJECT_MARK}: {said}"),
        span=text,
        reader=reader,
        confidence=0.6,
        anchor=tokens[0].i,
    )


_OURS = frozenset({"i", "im", "i'm", "my", "me", "we", "we're", "our", "us"})
# text that is someone else's: addressed to assistants, asking to be stored, or a chat log's line
_FOREIGN = re.compile(
    r"(?:^|[\s,])(?:assistants?|ai|bots?|llms?|agents?|models?|whoever)\s*[,:]|"
    r"\b(?:store|save|remember|record) this\b|\brecorded:|"
    r"^\W*(?:mon|tue|wed|thu|fri|sat|sun)?\w*\s*\d{1,2}:\d{2}\b|\((?:external|bot|ext)\)",
    re.I,
)


def _foreign(text: str) -> bool:
    return _FOREIGN.search(text) is not None
