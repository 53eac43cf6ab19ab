"""Command facts: a command and what it is for ("run `pnpm lint --fix` before you push")."""

from __future__ import annotations

from extractors.clauses import Clause
from extractors.readers.common import (
    PURPOSE_WORDS,
    Fact,
    ReaderBase,
    Span,
    Token,
    check_fact,
    checkpoint_of,
    command_fact,
    labeled_purpose,
    named_not_run,
)
from extractors.render import plain
from extractors.shell import Command


class CommandReader(ReaderBase):
    """A command and what it is for ("run `pnpm lint --fix` before you push")."""

    def commands(self, clause: Clause, commands: list[tuple[Command, Span]]) -> list[Fact]:
        facts: list[Fact] = []
        for command, tokens in commands:
            if not (clause.has(tokens[0]) or clause.has(tokens.root)) or not command.runs_a_program:
                continue  # ("the flaky test is `test_refund_idempotency`": a name in the code)
            trying = clause.head.lemma_.lower() == "try" or any(
                c.lemma_.lower() == "try" for c in clause.head.children
            )
            if trying or any(a.lemma_.lower() == "try" for a in tokens.root.ancestors):
                continue  # "try running npm install again": a request for now
            before = tokens.doc[tokens.start - 1].lower_ if tokens.start > 0 else ""
            if before in ("not", "no") or any(c.dep_ == "neg" for c in tokens.root.children):
                continue  # "(not black, we dropped it)": the command named as not used
            if named_not_run(command, tokens, [span for _, span in commands]):
                continue  # "the checkout flow", "the `production` remote", "flutter tests: ..."
            governor = next((a for a in tokens.root.ancestors if a.pos_ in ("VERB", "AUX")), None)
            if governor is not None and governor.lemma_.lower() in ("need", "require"):
                continue  # "the integration ones need docker up first": what must run, not how
            if clause.negated or "never" in {t.lower_ for t in clause.tokens}:
                continue  # "never run `terraform apply` yourself": a rule, read as one
            # what the command is for, said around it: "X to format", "X for tests", "build it with X"
            said = (
                labeled_purpose(tokens.doc, tokens.start)
                or self._near_purpose(tokens)
                or self._own_subject_purpose(tokens)
                or self._to_purpose(clause)
                or subject_purpose(clause)
                or self._method_purpose(clause, tokens)
                # "run it with `uvicorn app.main:app --reload`": how the project is run, unless the
                # command says what else it is for ("we run it via `pnpm test -- --runInBand`")
                or (_runs_the_project(tokens) and (command.purpose or "dev"))
            )
            if not command.arguments and not command.quoted and not self._ran(tokens, clause) and not said:
                continue  # "we use pytest" names a product, not a command
            if (
                not command.arguments
                and not command.quoted
                and tokens.root._.tech is not None
                and said
                and clause.mood != "imperative"
            ):
                continue  # "tests run w/ jest": the test framework, read by the product reader
            # a "before ..." elsewhere in the sentence is this command's when nothing else claims it
            checkpoint = checkpoint_of(clause, anywhere=clause.mood == "imperative" or not said)
            if not (said or checkpoint or _said_of(tokens.root, clause)):
                continue  # "after pnpm test the snapshot is stale": the command is not what is said
            purpose = said or command.purpose
            if clause.mood == "imperative" and not (checkpoint or said or clause.standing):
                continue  # "run npm install and tell me": a request for now
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
            if checkpoint and obj is not None and obj.i not in {t.i for _, span in commands for t in span}:
                facts.append(self._check_fact(plain(list(obj.subtree)), checkpoint, clause))
        return facts

    def how_to_run(self, clauses: list[Clause], commands: list[tuple[Command, Span]]) -> list[Fact]:
        """An agent's "Run `X` to check everything", "You can run it with `X`", "Build with `X`",
        said after it reported a change: the command for what it set up (not "try `npm install`")."""
        facts: list[Fact] = []
        for clause in clauses:
            telling = clause.mood == "imperative" or (clause.about == "you" and clause.modal in ("can", "ca"))
            # (not "Always use `npm install --unsafe-perm` for every package": an agent's reply never
            # lays down a standing rule, however it is worded)
            how = clause.head.lemma_.lower() in _HOW_TO_RUN and not clause.standing
            if telling and how and not clause.negated and not clause.conditional:
                facts += self.commands(clause, commands)
        return [f for f in facts if f.key is not None]

    @staticmethod
    def _near_purpose(command: Span) -> str | None:
        """The words right after a command: "dune runtest for tests", "X to format", "X for linting"."""
        doc = command.doc
        after = [t for t in doc[command.end : min(command.sent.end, command.end + 4)] if t.pos_ != "DET"]
        if len(after) < 2 or after[0].lower_ not in ("for", "to"):
            return None
        word = after[1]
        return PURPOSE_WORDS.get(word.lower_) or PURPOSE_WORDS.get(word.lemma_.lower())

    @staticmethod
    def _own_subject_purpose(command: Span) -> str | None:
        """ "typecheck is X, formatting is Y": the subject of the verb the command completes."""
        head = command.root.head
        if command.root.dep_ not in ("attr", "dobj") or head.lemma_ not in ("be", "run", "do"):
            return None
        subject = next((c for c in head.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subject is None:
            return None
        return PURPOSE_WORDS.get(subject.lower_) or PURPOSE_WORDS.get(subject.lemma_.lower())

    @staticmethod
    def _method_purpose(clause: Clause, command: Span) -> str | None:
        """A command as the means of a verb: "build the firmware with X", "we deploy via X", "the
        report gets regenerated with X", "run tests with X"; the verb, or what is run, is the purpose."""
        means = _means_of(command)
        if means is None:
            return None
        prep, verb = means
        if verb.pos_ in ("NOUN", "PROPN") and verb.dep_ == "dobj":
            verb = verb.head  # "i build the whole thesis pdf with X": the parser hung "with" on the object
        # "build it with X, flash with Y": the second verb is often tagged a noun
        verbal = verb.pos_ in ("VERB", "AUX") or (verb.dep_ == "conj" and verb.head.pos_ == "VERB")
        participle = verb.pos_ == "ADJ" and verb.dep_ == "acomp" and verb.lower_.endswith("ed")
        if not (verbal or participle) or not clause.has(verb):
            return None
        lemma = _verb_of(verb.lower_) if participle else verb.lemma_.lower()
        if lemma in ("run", "execute", "do", "use", "start", "check", "write"):
            # ("write tests with pytest": what is written says the purpose, not the writing)
            obj = next((c for c in verb.children if c.dep_ in ("dobj", "nsubjpass")), None)
            return PURPOSE_WORDS.get(obj.lower_) if obj is not None else None
        if lemma in ("be", "have", "get", "go", "come", "help", "fix", "try", "do", "make", "see"):
            return None
        if prep.lower_ == "by":
            return PURPOSE_WORDS.get(lemma)  # "3000 is taken by storybook": no purpose of a command
        return PURPOSE_WORDS.get(lemma) or (lemma if verb.is_alpha and len(lemma) > 2 else None)

    @staticmethod
    def _ran(tokens: Span, clause: Clause) -> bool:
        root = tokens.root
        head = root.head
        if head.lemma_ == "be":
            # "the test command is jest", not "jest was slow", nor "it's vitest now" (what "it" is)
            subject = clause.subject
            return root.dep_ in ("attr", "acomp", "oprd") and subject is not None and subject.pos_ != "PRON"
        return head.lemma_ in ("run", "execute", "use") and clause.mood == "imperative"

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
    def _check_fact(value: str, checkpoint: str, clause: Clause) -> Fact:
        return check_fact(value, checkpoint, plain(clause.tokens), clause.head.i, "commands")


def subject_purpose(clause: Clause) -> str | None:
    """What the clause's subject says a command is for: "the lint command is X", "tests run with X",
    "linting is done with X" (the report reader's too: "the check is `npm run format:check`")."""
    subject = clause.subject
    if subject is None or (clause.head.dep_ == "conj" and subject.head.i != clause.head.i):
        return None  # "X is used, and runs ...": the subject of the first clause
    if any(c.lower_ == "type" for c in subject.children):
        return "typecheck"  # "type checks are run with mypy --strict"
    for word in (subject.lower_, subject.lemma_.lower(), *(c.lower_ for c in subject.children)):
        if word in PURPOSE_WORDS:
            return PURPOSE_WORDS[word]
    return None


def _verb_of(participle: str) -> str:
    """ "regenerated" -> "regenerate", "deployed" -> "deploy": a participle the tagger took for an
    adjective ("the report gets regenerated with X")."""
    if participle.endswith(("ated", "ized", "ised", "ued", "ored", "ured", "aved", "osed")):
        return participle[:-1]
    return participle[:-2]


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


def _means_of(command: Span) -> tuple[Token, Token] | None:
    """The preposition a command is the means of, and the word it hangs on: "build it with X", "we
    deploy via X", "run it using X"."""
    root = command.root
    while root.dep_ == "compound" and root.head.i != root.i:
        root = root.head  # "with CMD1 pls": the parser took "pls" for the noun
    if root.dep_ != "pobj" or root.head.lower_ not in ("with", "using", "via", "through", "by"):
        return None
    return root.head, root.head.head


def _runs_the_project(command: Span) -> bool:
    """ "run it with X", "start the app via X": X is how the project itself is run."""
    means = _means_of(command)
    if means is None or means[0].lower_ not in ("with", "via", "using"):
        return False
    verb = means[1]
    if verb.lemma_.lower() not in ("run", "start"):
        return False
    obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
    return obj is not None and obj.lemma_.lower() in _THE_PROJECT


# what "run it", "start the app" runs: the project itself, served locally
_THE_PROJECT = frozenset({"it", "app", "server", "service", "project", "api", "site", "backend", "frontend"})


# the verbs an agent tells how to run what it set up with: "Run `x` to check", "Build with `y`"
_HOW_TO_RUN = frozenset(
    {"run", "build", "test", "lint", "format", "start", "execute", "deploy", "regenerate"}
)
