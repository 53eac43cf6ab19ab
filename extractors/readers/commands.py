"""Command facts: a command and what it is for ("run `pnpm lint --fix` before you push")."""

from __future__ import annotations

from extractors.clauses import Clause
from extractors.readers.common import (
    PURPOSE_WORDS,
    Fact,
    ReaderBase,
    Span,
    Token,
    checkpoint_of,
    command_fact,
)
from extractors.render import SUBJECT_MARK, plain
from extractors.shell import Command

_CHECKPOINT_TEXT = {
    "pr": "before opening a pull request",
    "commit": "before committing",
    "push": "before pushing or merging",
    "deploy": "before deploying",
}


class CommandReader(ReaderBase):
    """A command and what it is for ("run `pnpm lint --fix` before you push")."""

    def commands(self, clause: Clause, commands: list[tuple[Command, Span]]) -> list[Fact]:
        facts: list[Fact] = []
        for command, tokens in commands:
            if not (clause.has(tokens[0]) or clause.has(tokens.root)):
                continue
            trying = clause.head.lemma_.lower() == "try" or any(
                c.lemma_.lower() == "try" for c in clause.head.children
            )
            if trying or any(a.lemma_.lower() == "try" for a in tokens.root.ancestors):
                continue  # "try running npm install again": a request for now
            named = self._subject_purpose(clause) is not None or self._to_purpose(clause) is not None
            if not command.arguments and not command.quoted and not self._ran(tokens, clause) and not named:
                continue  # "we use pytest" names a product, not a command
            if not (named or checkpoint_of(clause) or _said_of(tokens.root, clause)):
                continue  # "after pnpm test the snapshot is stale": the command is not what is said
            checkpoint = checkpoint_of(clause)
            purpose = self._to_purpose(clause) or self._subject_purpose(clause) or command.purpose
            purpose = purpose or self._purpose(clause, tokens)
            if clause.mood == "imperative" and not (
                checkpoint or self._to_purpose(clause) or clause.standing
            ):
                continue  # "try running npm install again": a request for now
            if checkpoint:
                facts.append(self._check_fact(command.text, checkpoint, clause))
            elif purpose:
                facts.append(
                    command_fact(command.text, purpose, clause, plain(clause.tokens), "commands.clause")
                )
        if not facts and clause.mood == "imperative" and clause.head.lemma_ in ("use", "run", "execute"):
            # "`just pre-push` runs everything — use it before every push"
            checkpoint = checkpoint_of(clause)
            obj = next((c for c in clause.head.children if c.dep_ == "dobj"), None)
            sentence_commands = [c for c, span in commands if span.sent.start == clause.head.sent.start]
            if (
                checkpoint
                and obj is not None
                and obj.lower_ in ("it", "that", "this")
                and len(sentence_commands) == 1
            ):
                facts.append(self._check_fact(sentence_commands[0].text, checkpoint, clause))
        if not facts and clause.mood == "imperative" and clause.head.lemma_ in ("run", "execute"):
            # "Run the unit tests before committing": a check named in words
            checkpoint = checkpoint_of(clause)
            obj = next((c for c in clause.head.children if c.dep_ == "dobj"), None)
            if checkpoint and obj is not None:
                facts.append(self._check_fact(plain(list(obj.subtree)), checkpoint, clause))
        return facts

    @staticmethod
    def _ran(tokens: Span, clause: Clause) -> bool:
        head = tokens.root.head
        return head.lemma_ in ("run", "execute", "use", "be") and (
            clause.mood == "imperative" or head.lemma_ == "be"
        )

    @staticmethod
    def _to_purpose(clause: Clause) -> str | None:
        """ "run X to lint": the purpose said with "to"."""
        for token in clause.head.sent:
            if token.dep_ in ("xcomp", "advcl") and any(c.lower_ == "to" for c in token.children):
                purpose = PURPOSE_WORDS.get(token.lower_) or PURPOSE_WORDS.get(token.lemma_.lower())
                if purpose:
                    return purpose
        return None

    @staticmethod
    def _subject_purpose(clause: Clause) -> str | None:
        """ "the lint command is X", "tests run with X", "linting is done with X"."""
        subject = clause.subject
        if subject is None or clause.head.dep_ == "conj":
            return None
        if any(c.lower_ == "type" for c in subject.children):
            return "typecheck"  # "type checks are run with mypy --strict"
        for word in (subject.lower_, subject.lemma_.lower(), *(c.lower_ for c in subject.children)):
            if word in PURPOSE_WORDS:
                return PURPOSE_WORDS[word]
        return None

    def _purpose(self, clause: Clause, command: Span) -> str | None:
        """ "we deploy with X", "regenerate the client with X"."""
        head = clause.head.lemma_.lower()
        if head in (
            "lint",
            "test",
            "deploy",
            "format",
            "build",
            "typecheck",
            "migrate",
            "generate",
            "regenerate",
        ):
            return PURPOSE_WORDS.get(head)
        return None

    def _check_fact(self, value: str, checkpoint: str, clause: Clause) -> Fact:
        return Fact(
            kind="procedural",
            scope="project",
            key=f"pre_{checkpoint}_check",
            value=value,
            text=f"{SUBJECT_MARK}: always run {value} {_CHECKPOINT_TEXT[checkpoint]}.",
            span=plain(clause.tokens),
            reader=f"commands.before_{checkpoint}",
            confidence=0.85,
            anchor=clause.head.i,
        )


def _said_of(root: Token, clause: Clause) -> bool:
    """Whether a clause says something of this command: it is run, used, named, or is the subject."""
    if root.dep_ in ("dobj", "attr", "oprd", "appos", "conj", "ROOT", "npadvmod"):
        return True
    if root.dep_ == "pobj" and root.head.lower_ in ("with", "using", "via", "through", "by", "as", "is"):
        return True
    return root.dep_ in ("nsubj", "nsubjpass") and clause.head.lemma_ in (
        "be",
        "run",
        "do",
        "work",
        "pass",
        "need",
        "must",
    )
