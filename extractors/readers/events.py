"""Event facts: what happened in a life or a project and when; and reports, what a coding agent says
it changed or verified (assistant turns only)."""

from __future__ import annotations

import re

from extractors.agent_turns import advises
from extractors.clauses import Clause
from extractors.readers.commands import subject_purpose
from extractors.readers.common import (
    DEICTIC,
    Fact,
    Span,
    Token,
    command_fact,
    condition,
    joined,
)
from extractors.readers.stack import StackReader
from extractors.render import SUBJECT_MARK, implied_third_person, plain, sentence, third_person, trim
from extractors.shell import Command

_TIME = re.compile(
    r"\b(?:yesterday|last\s+(?:week|month|year|summer|winter|spring|autumn|fall|weekend|night|sprint|quarter)|"
    r"(?:\d+|a|an|one|two|three|four|five|six|few|couple\s+of)\s+(?:day|week|month|year)s?\s+ago|"
    r"in\s+(?:january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|the\s+spring|the\s+summer|the\s+fall|the\s+autumn|"
    r"the\s+winter|spring|summer|autumn|winter|(?:19|20)\d\d)|"
    r"(?:this|earlier\s+this)\s+(?:year|month|spring|summer))\b",
    re.I,
)
_AGO = re.compile(
    r"\b(?:yesterday|last\s+(?:week|month|year|sprint|quarter)|(?:\d+|a|an|one|two|three|four|five|six)\s+"
    r"(?:day|week|month|year)s?\s+ago)\b",
    re.I,
)


# changes that leave the project different for later sessions (not "updated", "added it to", "removed")
_LASTING_CHANGES = frozenset(
    {
        "replace",
        "swap",
        "switch",
        "migrate",
        "move",
        "upgrade",
        "bump",
        "pin",
        "rename",
        "adopt",
        "introduce",
        "convert",
        "port",
        "downgrade",
        "standardize",
        "standardise",
        "consolidate",
        "split",
        "extract",
    }
)


def _outcome_of_run(clause: Clause) -> bool:
    """ "the tests pass", "manage.py check is clean", "the build is green": this session's result."""
    lemma = clause.head.lemma_.lower()
    words = {t.lower_ for t in clause.tokens}
    return lemma in ("pass", "succeed", "fail", "work", "finish", "complete") or bool(
        words & {"green", "red", "passes", "clean", "cleanly", "passing", "succeeds"}
    )


def _says_now(clause: Clause) -> bool:
    """ "the bot now reads ...": how it is now; "from now on, ..." is an order, not a report."""
    doc = clause.head.doc
    return any(t.lower_ == "now" and not (t.i > 0 and doc[t.i - 1].lower_ == "from") for t in clause.tokens)


_REMOVALS = frozenset({"remove", "delete", "drop", "deprecate", "retire"})


class EventReader(StackReader):
    """Events of a life or a project with the time they happened, outcomes, and what a coding
    agent says it changed or verified (assistant turns only)."""

    def episode(self, clause: Clause, role: str) -> list[Fact]:
        """An event told in passing: "we adopted a puppy in March", "I passed my driving test"."""
        if not self._told(clause, role):
            return []
        head = clause.head
        lemma = head.lemma_.lower()
        text_words = " ".join(t.lower_ for t in clause.tokens)
        when = _TIME.search(text_words)
        # "I got married in june": a change of state that needs no object
        changed_state = lemma in ("get", "be", "marry") and any(
            c.lower_ in ("married", "engaged", "promoted", "divorced", "hired", "back") for c in head.subtree
        )
        eventful = lemma in self.lex["life_event_verb"] or changed_state
        # "I had knee surgery in march", "we had a baby": what one had is an event, not a thing
        eventful = eventful or (
            lemma == "have"
            and any(
                c.dep_ == "dobj" and c.lemma_.lower() in self.lex["life_event_noun"] for c in head.children
            )
        )
        # "we got a cat last week": a pet one got is one adopted
        eventful = eventful or (
            lemma == "get"
            and any(c.dep_ == "dobj" and c.lemma_.lower() in self.lex["pet_noun"] for c in head.children)
        )
        eventful = eventful or self._earned(clause, bool(when))
        coding = any(t.like_url or "/" in t.text or "`" in t.text for t in clause.tokens)
        techs = [t for t in clause.tokens if t._.tech]
        direct_tech = any(t.head.i == head.i or t.head.head.i == head.i for t in techs)
        # "passed my AWS solutions architect exam", "got my PADI open water cert": a name in the thing
        named_within = eventful and bool(techs) and all(t.dep_ in ("compound", "amod", "nmod") for t in techs)
        if coding or (not named_within and (direct_tech or (techs and not eventful))):
            return []  # "I added a column and the migration failed": the task, not a life
        if not eventful and (not when or lemma in ("be", "have", "do", "get", "make")):
            return []
        # "bumped everything to node 20 last week": a change to the code, however the product was parsed
        life = self.lex["life_noun"] | self.lex["kin_noun"] | self.lex["pet_noun"]
        if (
            not eventful
            and lemma in self.lex["switch_verb"] & self.lex["report_verb"]
            and not any(t.lemma_.lower() in life for t in head.subtree)
        ):
            return []
        if clause.about == "group" and not eventful:
            return []  # "we upgraded last year": the project's history, not a life
        objects = [
            c
            for c in head.children
            if c.dep_ in ("dobj", "prep", "attr", "acomp", "xcomp", "advmod", "prt", "npadvmod")
            and c.lower_ not in ("just", "finally", "also", "so", "recently", "only", "still")
        ]
        if not changed_state and (
            not objects
            or all(c.lower_ in DEICTIC or _TIME.fullmatch(joined(list(c.subtree)).lower()) for c in objects)
        ):
            return []  # "I hiked there last spring": where is in another message
        # "just got back from 3 weeks backpacking in Peru": what the weeks were spent doing goes with them
        doing = [
            c
            for c in head.children
            if c.dep_ == "advcl"
            and c.tag_ == "VBG"
            and c.i > head.i
            and not any(s.dep_ in ("nsubj", "nsubjpass", "mark") for s in c.children)
            and not any(t.is_punct for t in head.doc[head.i : c.left_edge.i])
        ]
        # "i passed my AWS solutions architect exam today": the tagger took a word of the name for a
        # verb, and the rest of what was passed for its clause
        doing += [
            c
            for c in head.children
            if c.dep_ == "ccomp"
            and c.i > head.i
            and eventful
            and not any(m.dep_ == "mark" for m in c.children)
            and (
                any(s.dep_ == "nsubj" and any(p.lower_ == "my" for p in s.subtree) for s in c.children)
                or any(o.dep_ == "dobj" and o.right_edge.i + 1 == c.left_edge.i for o in head.children)
            )
        ]
        text = _event_text(clause, [t for c in doing for t in c.subtree])
        if not text or len(text.split()) > 30:
            return []
        objects += doing
        ago = _AGO.search(text_words)
        return [
            Fact(
                kind="episodic",
                scope="user",
                key=None,
                value=joined(sorted({t for c in objects for t in c.subtree}, key=lambda t: t.i))
                or plain(clause.tokens),
                text=text,
                span=plain(clause.tokens),
                reader="episode.personal",
                confidence=0.75,
                anchor=head.i,
                when=ago.group(0) if ago else None,
                fields={"event": plain(clause.tokens), "when": when.group(0) if when else ""},
            )
        ]

    def _earned(self, clause: Clause, dated: bool) -> bool:
        """ "got my driving licence last week", "finally got my PPL": something of one's own, earned."""
        head = clause.head
        return (
            head.lemma_.lower() == "get"
            # ("got my coffee this morning"; but "last weekend" dates what was earned)
            and not any(
                t.lower_ in self.lex["transient_time"] and not (t.i > 0 and t.doc[t.i - 1].lower_ == "last")
                for t in clause.tokens
            )
            and (dated or any(t.lower_ in ("finally", "just") for t in clause.tokens))
            and any(
                c.dep_ == "dobj"
                and any(p.lower_ == "my" and p.i < c.i for p in c.subtree)  # "my UK driving licence"
                and c.lemma_.lower() not in self.lex["code_noun"] | self.lex["nonfact_object"]
                for c in head.children
            )
        )

    def _told(self, clause: Clause, role: str) -> bool:
        """A past event the user tells of themselves or their family, said as true."""
        told = role == "user" and clause.mood == "statement" and clause.tense == "past"
        implied_past = clause.about == "implied" and role == "user" and clause.head.tag_ in ("VBD", "VBN")
        if not told and not implied_past:
            return False
        if clause.about not in ("speaker", "implied", "group", "family") or clause.hedged or clause.reported:
            return False
        if clause.conditional or clause.negated or clause.modal is not None or condition(clause):
            return False
        head = clause.head
        lemma = head.lemma_.lower()
        return not (
            lemma in self.lex["conversation_verb"]
            and lemma not in ("get", "go", "make", "take", "find", "have")
        )

    def outcome(self, clause: Clause) -> list[Fact]:
        """A project event and its outcome: "the release build broke because the cache was stale"."""
        if clause.mood != "statement" or clause.tense != "past" or clause.about not in ("project", "thing"):
            return []
        if clause.hedged or clause.reported or clause.conditional or clause.modal is not None:
            return []
        head = clause.head
        outcomes = ("fail", "break", "crash", "succeed", "pass", "work", "time", "hang", "blow", "go", "roll")
        if head.lemma_.lower() not in outcomes:
            return []
        because = ("because", "since", "as", "after", "when")
        cause_clause = next(
            (
                c
                for c in clause.children
                if any(m.dep_ == "mark" and m.lower_ in because for m in c.head.children)
            ),
            None,
        )
        due = next((c for c in head.children if c.dep_ == "prep" and c.lower_ in ("due", "because")), None)
        subject = clause.subject
        if (cause_clause is None and due is None) or subject is None:
            return []
        event = plain(list(subject.subtree))
        outcome_tokens = [t for t in clause.tokens if t.i >= head.i and t not in list(subject.subtree)]
        outcome = (
            plain([t for t in outcome_tokens if t.dep_ not in ("prep",) or t.i == head.i][:3]) or head.text
        )
        if cause_clause is not None:
            cause = plain([t for t in cause_clause.tokens if t.dep_ != "mark"])
        else:
            cause = (
                re.sub(r"^to\s+", "", plain([t for t in due.subtree if t.i > due.i]))
                if due is not None
                else ""
            )
        whole = plain(clause.tokens + (cause_clause.tokens if cause_clause else []))
        return [
            Fact(
                kind="episodic",
                scope="project",
                key=None,
                value=whole,
                text=f"{SUBJECT_MARK} episode: {whole}.",
                span=whole,
                reader="episode.outcome",
                confidence=0.8,
                anchor=head.i,
                fields={"event": event[:1].upper() + event[1:], "outcome": outcome, "cause": cause},
            )
        ]

    def report(self, clause: Clause, techs: list[Span], commands: list[tuple[Command, Span]]) -> list[Fact]:
        """What a coding agent says it changed or verified: "I've swapped the ORM to Drizzle", "the service
        now reads its config from environment variables". Advice, options, plans, questions and general
        explanations give nothing."""
        if not self._reports(clause) or _a_reason(clause):
            return []
        did, state = self._did_or_is(clause)
        # "The check is `npm run format:check`": a command named for what it is for
        named_for = subject_purpose(clause) if clause.head.lemma_ == "be" else None
        outcome = _outcome_of_run(clause)
        # "the full suite passes with `tox -e py313`": how the suite is run, whatever this run gave
        ran_with = {c.text for c, span in commands if outcome and _run_with(clause, span)}
        if not (did or state or (named_for and commands) or ran_with):
            return []
        quoted = {t.i for _, span in commands for t in span}
        facts = self.stack(
            _as_project(clause), [s for s in techs if s.start not in quoted], reader="report.stack"
        )
        facts += self.named_in_slot(_as_project(clause), {f.anchor for f in facts})
        covered = {f.value.lower() for f in facts}
        gone_verbs = self.lex["replace_verb"] | self.lex["drop_verb"] | self.lex["leave_verb"]
        facts += _run_commands(clause, commands, covered, outcome, gone_verbs, named_for, ran_with)
        facts += self._change(clause, facts, did)
        return facts

    def _reports(self, clause: Clause) -> bool:
        """A statement of what was done or how things are: not a question, an order, a plan or advice."""
        if clause.mood in ("question", "imperative") or clause.negated or clause.hedged or clause.planned:
            return False
        if clause.conditional or clause.tense == "future" or clause.modal is not None:
            return False
        if any(t.lower_ in ("'ll", "will", "gonna", "next", "shall") for t in clause.head.sent):
            return False  # "I'll migrate the rest to vitest next": a plan
        named = clause.subject is not None and clause.subject.pos_ == "PROPN"
        if clause.reported and not (clause.about == "third" and named):
            return False  # an agent's "Procfile", "CI" subjects are things of the project, not people
        return not advises(clause.head.sent, self.lex["advice_word"] | {"recommend", "suggest", "consider"})

    def _did_or_is(self, clause: Clause) -> tuple[bool, bool]:
        """Whether the agent says it did a change, or says how the project is."""
        head = clause.head
        lemma = head.lemma_.lower()
        subject = clause.subject
        named = clause.subject is not None and clause.subject.pos_ == "PROPN"
        yours = subject is not None and any(c.lower_ in ("your", "our") for c in subject.children)
        about = "project" if yours or (clause.about == "third" and named) else clause.about
        if (
            about in ("none", "thing")
            and clause.mood in ("statement", "fragment")
            and any(t._.tech for t in clause.tokens)
        ):
            about = "project"  # "Confirmed: CI runs on Node 20" (parsed without its subject)
        # "I went with Pinia rather than Vuex": a choice made, said as going with it
        changed = lemma in self.lex["report_verb"] or (
            lemma == "go" and any(c.dep_ == "prep" and c.lower_ == "with" for c in head.children)
        )
        did = (
            about in ("speaker", "group", "none", "implied")
            and clause.tense in ("past", "perfect")
            and changed
        )
        opens = next((t for t in head.sent if not (t.is_punct or t.is_space)), None) == head
        # (a "subject" after an opening verb is the parser's misreading of a list after a colon)
        unsaid = opens and (subject is None or subject.i > head.i)
        if (about == "implied" or unsaid) and head.tag_ in ("VBD", "VBN") and changed:
            did = True  # "Upgraded to Next.js 15 and React 19.", "Switched to pnpm: ..."
        state = about == "project" and clause.tense in ("present", "perfect", "past")
        if clause.about == "none" and clause.mood == "fragment":
            state = False
        return did, state

    def _change(self, clause: Clause, facts: list[Fact], did: bool) -> list[Fact]:
        """ "the service now reads its config from environment variables": how it is now, said in full."""
        head = clause.head
        subject = clause.subject
        now = _says_now(clause) and len(clause.tokens) >= 6
        pointing = {t.lower_ for t in clause.tokens} & (DEICTIC | {"same"})
        if (now or self._concrete(clause, facts)) and self._lasting(clause, did) and not pointing:
            body = [t for t in trim(clause.tokens) if t.dep_ not in ("aux",) or t.lemma_ != "have"]
            if did:
                after = joined([t for t in body if subject is None or t.i > subject.i])
                if after[:1].isupper() and after[1:2].islower():
                    after = after[:1].lower() + after[1:]  # "Moved the secrets ...": the agent moved them
                text = f"{SUBJECT_MARK}: the agent {after}"
            else:
                text = f"{SUBJECT_MARK}: {joined(body)}"
            text = re.sub(r"\b(?:I|I've|I'm)\b", "the agent", text)
            text = re.sub(r"\byour\b", "the project's", text)
            if len(text.split()) <= 40:
                return [
                    Fact(
                        kind="semantic",
                        scope="project",
                        key=None,
                        value=joined(body),
                        text=sentence(text),
                        span=plain(clause.tokens),
                        reader="report.change",
                        confidence=0.7,
                        anchor=head.i,
                    )
                ]
        return []

    @staticmethod
    def _lasting(clause: Clause, did: bool) -> bool:
        """Whether a report says how the project now is, not only what was touched on the way: "the bot
        now reads its token from env vars", "replaced TypeORM with Prisma", "the base image is X"; not
        "I updated the starter in api/handlers.go", "config.yaml is removed", "the tests pass"."""
        head = clause.head
        lemma = head.lemma_.lower()
        if _says_now(clause) and clause.tense in ("present", "perfect"):
            return True
        if did:
            return lemma in _LASTING_CHANGES
        if _outcome_of_run(clause):
            return False  # an outcome of this session's run
        if any(c.dep_ == "auxpass" for c in head.children) and lemma in _REMOVALS:
            return False  # "config.yaml is removed"
        return clause.tense == "present"

    @staticmethod
    def _concrete(clause: Clause, facts: list[Fact]) -> bool:
        """Whether a report names something a later session can use that the slot facts miss: a
        quoted name, a version, a path, an image or a region ("python:3.12-slim", "europe-west1")."""
        told = " ".join(f.value.lower() for f in facts)
        for token in clause.tokens:
            text = token.text
            glued = token.i > 0 and not token.whitespace_ and not token.doc[token.i - 1].whitespace_
            if text == "-" and glued and token.doc[token.i - 1].lower_ not in told:
                return True  # "pydantic-settings", "python:3.12-slim"
            if token.is_punct or text.lower() in told:
                continue
            if any(ch.isdigit() for ch in text) and any(ch.isalpha() for ch in text):
                return True
            if (
                ("/" in text or ":" in text or "-" in text or "_" in text)
                and len(text) > 3
                and any(ch.isalpha() for ch in text)
            ):
                return True
            if re.search(r"[A-Za-z]\.[A-Za-z]", text) or (
                token.text == "-"
                and not token.whitespace_
                and token.i > 0
                and not token.doc[token.i - 1].whitespace_
            ):
                return True  # "config.yaml", "pydantic-settings"
            if text == "`":
                return True
            if token.dep_ == "pobj" and token._.tech is None and token.pos_ == "PROPN" and not facts:
                return True
        return False


def _as_project(clause: Clause) -> Clause:
    """The clause read as being about the project (an agent's "I switched X" tells of the project)."""
    from dataclasses import replace as _replace

    return _replace(clause, about="project", mood="statement" if clause.mood == "fragment" else clause.mood)


def _event_text(clause: Clause, doing: list[Token] | None = None) -> str:
    """The event in the third person, without an opening aside ("sorry for the slow replies, ...") or
    a run-on ("..., took the week off"); ``doing``: the words of what the time was spent doing."""
    head = clause.head
    aside = {
        t.i
        for c in head.children
        if (c.dep_ in ("advcl", "intj", "discourse") and c.i < head.i)
        or (c.dep_ in ("dep", "parataxis") and c.i > head.i)
        for t in c.subtree
    }
    tokens = [t for t in clause.tokens if t.i not in aside]
    if doing:
        tokens = sorted({*tokens, *doing}, key=lambda t: t.i)
    if clause.about == "implied":
        text = implied_third_person(trim(tokens), head)
    else:
        text = third_person(tokens, clause.subject)
    return text


def _replaced(command: Span, gone_verbs: frozenset[str]) -> bool:
    """A command that is what a verb of replacing or dropping (``gone_verbs``) acts on."""
    token = command.root
    while token.dep_ == "conj" and token.head.i != token.i:
        token = token.head  # "replaces both `npm run lint` and `npm run format`"
    return token.dep_ == "dobj" and token.head.lemma_.lower() in gone_verbs


def _run_commands(
    clause: Clause,
    commands: list[tuple[Command, Span]],
    covered: set[str],
    outcome: bool,
    gone_verbs: frozenset[str],
    named_for: str | None = None,
    ran_with: set[str] | None = None,
) -> list[Fact]:
    """The commands an agent's report names with their purpose ("`pnpm test` runs the suite"), or
    with the purpose the clause names them for (``named_for``: "the check is `npm run lint`"), or
    the commands a result was had with (``ran_with``: "the suite passes with `tox -e py313`")."""
    facts = []
    wrapped = _wrapped_commands(clause, commands)
    for command, tokens in commands:
        if command.text in wrapped.values():
            continue  # said as what another command runs: kept with it
        if _replaced(tokens, gone_verbs):
            continue  # "`npx biome check .` now replaces `npm run lint`": the command gone
        how = command.text in (ran_with or ())
        purpose = named_for or command.purpose or ("test" if how and _of_tests(clause) else "")
        if (
            (clause.has(tokens[0]) or clause.has(tokens.root))
            and purpose
            and (command.purpose or command.runs_a_program)
            and command.text.lower() not in covered
            and (how or not outcome)  # "go build ./... and go test pass": this run, not how to run
            and (command.arguments or command.quoted)  # a bare "mocha" is the product
        ):
            fact = command_fact(command.text, purpose, clause, plain(clause.tokens), "report.command")
            fact.kind = "semantic"
            inner = wrapped.get(command.text)
            if inner is not None:
                fact.text = f"{fact.text.rstrip('.')}, which runs {inner}."
            facts.append(fact)
    return facts


def _run_with(clause: Clause, command: Span) -> bool:
    """ "passes with `tox -e py313`", "green via `make ci`": the command a result was had with."""
    token = command.root
    while token.dep_ in ("compound", "nmod", "appos") and token.head.i != token.i:
        token = token.head
    prep = token.head
    return (
        token.dep_ in ("pobj", "dobj")
        and prep.lower_ in ("with", "via", "using", "through")
        and prep.head.i == clause.head.i
    )


def _of_tests(clause: Clause) -> bool:
    """ "the full suite passes", "tests are green": what passed is the tests."""
    return any(t.lemma_.lower() in ("test", "suite", "spec", "testsuite") for t in clause.tokens)


def _a_reason(clause: Clause) -> bool:
    """ "..., because every later FastAPI release requires pydantic v2": why, not what was done."""
    return clause.head.dep_ == "advcl" and any(
        c.dep_ == "mark" and c.lower_ in ("because", "since", "as", "cause") for c in clause.head.children
    )


def _wrapped_commands(clause: Clause, commands: list[tuple[Command, Span]]) -> dict[str, str]:
    """ "`npm test` now runs `vitest run`": the command one types, and the one it runs, one fact."""
    wrapped: dict[str, str] = {}
    for outer, outer_tokens in commands:
        verb = outer_tokens.root.head
        if outer_tokens.root.dep_ != "nsubj" or verb.lemma_.lower() not in ("run", "call", "invoke", "wrap"):
            continue
        for inner, inner_tokens in commands:
            held = inner_tokens.root.head == verb and inner_tokens.root.dep_ == "dobj"
            if inner is not outer and held and clause.has(verb):
                wrapped[outer.text] = inner.text
    return wrapped
