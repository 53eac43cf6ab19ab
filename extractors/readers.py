"""Readers: from a parsed sentence and its clauses to facts.

Each reader knows one kind of fact and reads it from structure, never from a list of sentences:
- ``stack``: products in a clause about the project ("we're on rails 7 w/ sidekiq"), in a
  labeled line ("db: postgres 16") or in a telegraphic rundown ("next 14 / tailwind / supabase");
  "switched from X to Y" keeps X as the value replaced; a name the vocabulary lacks still fills
  the slot its sentence names ("our feature flags come from flagpole");
- ``commands``: a command and what it is for ("run `pnpm lint --fix` before you push");
- ``rules``: standing imperatives ("always squash before merging"), the team's habits ("we
  squash merge everything"), norms about code ("`any` is banned"), rules written as notes
  ("squash merge only"), and how answers should look (kept with the user);
- ``personal``: the frames of ``patterns/frames.jsonl`` (name, home, family, pets, diet, job...),
  then any other durable first-person statement ("i play the violin");
- ``episodes``: events of a life or a project, with the time they happened;
- ``reports``: what a coding agent says it changed or verified (assistant turns only).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from extractors.clauses import Clause
from extractors.frames import FrameHit
from extractors.lexicon import Lexicon
from extractors.render import SUBJECT_MARK, implied_third_person, plain, sentence, third_person, trim
from extractors.shell import Command
from extractors.vocabulary import VERSION, Vocabulary

Token = Any
Span = Any

_DEICTIC = frozenset(
    {
        "this",
        "that",
        "these",
        "those",
        "it",
        "here",
        "above",
        "below",
        "following",
        "there",
        "them",
        "one",
        "ones",
        "him",
        "her",
        "stuff",
        "something",
        "things",
        "thing",
        "way",
    }
)
_QUANTIFIERS = frozenset({"all", "every", "each", "any", "new", "no"})
_LENGTHS = frozenset(
    [
        "short",
        "shorter",
        "brief",
        "concise",
        "terse",
        "succinct",
        "detailed",
        "long",
        "longer",
        "thorough",
        "verbose",
        "in-depth",
        "comprehensive",
        "minimal",
        "compact",
    ]
)
_BEFORE = frozenset({"before", "prior", "ahead", "b4"})
_CHECKPOINT_KEYS = {
    "pr": "pr",
    "prs": "pr",
    "pull": "pr",
    "mr": "pr",
    "mrs": "pr",
    "submit": "pr",
    "submitting": "pr",
    "commit": "commit",
    "commits": "commit",
    "committing": "commit",
    "push": "push",
    "pushes": "push",
    "pushing": "push",
    "merge": "push",
    "merges": "push",
    "merging": "push",
    "deploy": "deploy",
    "deploys": "deploy",
    "deploying": "deploy",
    "release": "deploy",
    "releases": "deploy",
    "releasing": "deploy",
    "ship": "deploy",
    "shipping": "deploy",
}
_CHECKPOINT_TEXT = {
    "pr": "before opening a pull request",
    "commit": "before committing",
    "push": "before pushing or merging",
    "deploy": "before deploying",
}
_PURPOSE_WORDS: dict[str, str] = {
    "test": "test",
    "tests": "test",
    "testing": "test",
    "lint": "lint",
    "linting": "lint",
    "linter": "lint",
    "build": "build",
    "builds": "build",
    "building": "build",
    "deploy": "deploy",
    "deploys": "deploy",
    "deploying": "deploy",
    "deployment": "deploy",
    "format": "format",
    "formatting": "format",
    "formatter": "format",
    "typecheck": "typecheck",
    "typechecking": "typecheck",
    "type-check": "typecheck",
    "migrate": "migrate",
    "migration": "migrate",
    "migrations": "migrate",
    "start": "dev",
    "serve": "dev",
    "dev": "dev",
    "e2e": "e2e",
    "release": "deploy",
    "seed": "seed",
    "install": "install",
    "setup": "install",
    "bench": "bench",
    "benchmarks": "bench",
    "check": "check",
    "checks": "check",
    "codegen": "codegen",
    "generate": "codegen",
    "regenerate": "codegen",
}
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
_TZ = re.compile(
    r"\b(?:(?:UTC|GMT)\s?[+\-\u2212]\s?\d{1,2}(?::?\d\d)?|"
    r"(?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific)/[A-Z][A-Za-z_]+(?:/[A-Z][A-Za-z_]+)?|"
    r"(?i:(?:Pacific|Eastern|Central|Mountain|Atlantic|Alaska|Hawaii|India|Indian|Japan|China|Korea|Singapore|"
    r"Moscow|Greenwich|Central\s+European|Eastern\s+European|Western\s+European|British|Australian\s+Eastern)\s+"
    r"(?:Standard\s+|Daylight\s+|Summer\s+)?time))(?![\w/])"
)
_TOOL_VERBS = frozenset(
    [
        "use",
        "run",
        "deploy",
        "build",
        "write",
        "code",
        "develop",
        "host",
        "switch",
        "migrate",
        "move",
        "manage",
        "test",
        "lint",
        "ship",
        "prefer",
        "stick",
        "work",
        "be",
        "rely",
        "standardize",
        "standardise",
        "adopt",
        "pick",
        "choose",
    ]
)


@dataclass(slots=True)
class Fact:
    """A fact read from a clause, before it becomes a ``Candidate``."""

    kind: str
    scope: str  # project | user
    key: str | None
    value: str
    text: str  # with SUBJECT_MARK
    span: str
    reader: str  # what read it, e.g. "stack.clause" (the version is added on the way out)
    confidence: float
    anchor: int = -1  # token index of the value, for qualifiers and corrections
    previous: str | None = None
    previous_text: str | None = None
    other: str | None = None  # "uses pnpm, not npm": the value named as not used
    when: str | None = None
    category: str | None = None
    fields: dict[str, str] = field(default_factory=dict)


class Readers:
    def __init__(self, lexicon: Lexicon, vocabulary: Vocabulary) -> None:
        self.lex = lexicon
        self.vocab = vocabulary
        # past tense that brings a new state: "we switched to pnpm", "we adopted Nx"
        self._changes = (
            lexicon["switch_verb"]
            | lexicon["replace_verb"]
            | lexicon["report_verb"]
            | lexicon["drop_verb"]
            | frozenset(
                {"adopt", "standardize", "standardise", "pick", "choose", "settle", "introduce", "rewrite"}
            )
        )

    # -- stack ---------------------------------------------------------------------------------------

    def states_stack(self, clause: Clause) -> bool:
        """Whether a clause can say what the project (or the user, for their own tools) uses."""
        if clause.about in ("third", "you", "family", "pet", "speaker_thing") or not clause.asserted:
            return False
        head = clause.head
        if clause.about in ("speaker", "implied"):
            if head.lemma_.lower() not in _TOOL_VERBS:
                return False  # "I work at Razorpay", "I'm teaching myself Python": not the stack
            preps = {c.lower_ for c in head.children if c.dep_ == "prep"}
            if head.lemma_ == "work" and not preps & {"with", "in", "on"}:
                return False
            if head.lemma_ == "be" and not preps & {"on", "using"}:
                return False  # "I'm at Klarna now": where they work, not what they use
        if clause.mood == "imperative":
            return head.lemma_ in ("use", "stick", "prefer")
        return clause.mood in ("statement", "fragment")

    def stack(self, clause: Clause, techs: list[Span], reader: str = "stack.clause") -> list[Fact]:
        """Products a clause says the project uses (or the user, for their own tools)."""
        facts: list[Fact] = []
        mine = [s for s in techs if (clause.has(s.root) or clause.has(s[0])) and not self._modifier(s)]
        if any(
            t.dep_ == "poss"
            and (t.lower_ in ("their", "his", "her", "your") or t.lemma_.lower() in self.lex["person_noun"])
            for t in clause.tokens
        ):
            return facts  # "the vendor's API runs on Java 8", "their frontend is Angular"
        if clause.mood == "imperative":
            # "use pnpm, not npm" names the tool; "use type hints in new Python code" does not
            mine = [
                s
                for s in mine
                if s.root.dep_ in ("dobj", "conj", "appos") and _object_of(s.root, clause.head)
            ]
        mine = [s for s in mine if not _quoted(s)]
        if not mine:
            return facts
        if (
            clause.tense == "past"
            and clause.head.lemma_.lower() not in self._changes
            and clause.mood != "fragment"
        ):
            return facts  # "we used Jest back then": not what it uses now
        sentence_techs = [s for s in techs if s.sent.start == clause.head.sent.start]
        gone = [s for s in sentence_techs if self._gone(s)]
        previous = [s for s in mine if self._is_previous(s, clause)] + [s for s in gone if s not in mine]
        # "use yarn, not npm": the named alternative, anywhere in the sentence
        others = [s for s in sentence_techs if s not in previous and self._is_other(s)]
        current = [
            s for s in mine if s not in previous and s not in gone and s not in others and not clause.negated
        ]
        previous += [s for s in gone if s in mine and s not in previous]
        named = None
        if clause.subject is not None and clause.about == "project" and clause.head.lemma_ == "be":
            if clause.subject.lemma_.lower() not in self.lex["project_noun"]:
                named = self._label_of(clause.subject)  # "our package manager is ...", "the db is ..."
        if named is not None and self.vocab.slot(named).scope == "project":
            for span in current:
                if span.root.dep_ in ("attr", "dobj", "pobj", "appos") and span.label_ != named:
                    span.label_ = named  # "our package manager is bun now": bun, as the package manager
        by_category: dict[str, list[Span]] = {}
        for span in current:
            if self.vocab.slot(span.label_).scope == "user" and clause.about not in ("speaker", "implied"):
                continue  # an editor or an OS is the user's own, said as "I use ..."
            by_category.setdefault(span.label_, []).append(span)
        for category, spans in by_category.items():
            facts.extend(self._product_facts(category, spans, clause, previous, others, reader))
        return facts

    def _product_facts(
        self,
        category: str,
        spans: list[Span],
        clause: Clause,
        previous: list[Span],
        others: list[Span],
        reader: str,
    ) -> list[Fact]:
        spec = self.vocab.slot(category)
        facts = []
        if category in ("language", "runtime"):
            for span in spans:
                if not span._.version:
                    span._.version = _version_in(clause, span)  # "bumped the Python version to 3.13"
        versions = [s for s in spans if s._.version and category in ("language", "runtime")]
        for span in versions:
            lang = (
                _slug(span.kb_id_.lower().replace(".js", "").replace(".net", "dotnet")).replace("_", "")
                or "runtime"
            )
            facts.append(
                Fact(
                    kind="semantic",
                    scope="project",
                    key=f"{lang}_version",
                    value=span._.version.lstrip("vV"),
                    text=f"{SUBJECT_MARK} uses {span.text} {span._.version}.",
                    span=plain(clause.tokens),
                    reader=f"{reader}.version",
                    confidence=0.85,
                    anchor=span.start,
                    category=category,
                )
            )
        rest = [s for s in spans if s not in versions]
        groups = [rest] if spec.single else [[s] for s in rest]
        for group in groups:
            if not group:
                continue
            value = " and ".join(_named(s) for s in group)
            canonical = [s.kb_id_ for s in group if _fold(s.kb_id_) not in _fold(_named(s))]
            shown = f"{value} ({', '.join(canonical)})" if canonical else value
            text = _fill(spec.template(), shown)
            same = [p for p in previous if p.label_ == category]
            other = [o for o in others if o.label_ == category]
            previous_value = _named(same[0]) if same else None
            if other and not previous_value:
                text = text[:-1] + f", not {_named(other[0])}."
            key = spec.key if spec.single else f"{spec.key}:{_slug(group[0].kb_id_)}"
            facts.append(
                Fact(
                    kind="semantic",
                    scope=spec.scope,
                    key=key,
                    value=value,
                    text=text,
                    span=plain(clause.tokens),
                    reader=reader,
                    confidence=0.85,
                    anchor=group[0].start,
                    previous=previous_value,
                    previous_text=_fill(spec.template(), previous_value) if previous_value else None,
                    other=_named(other[0]) if other else None,
                    category=category,
                )
            )
        return facts

    def _modifier(self, span: Span) -> bool:
        """A product that only names something else: "the github API gives me a 401" (unless that
        thing is the project's own: "our postgres database", "the rails app"); a person's name
        ("my wife Hana")."""
        root = span.root
        people = self.lex["kin_noun"] | self.lex["pet_noun"] | self.lex["person_noun"]
        if root.dep_ in ("appos", "compound", "npadvmod") and root.head.lemma_.lower() in people:
            return True
        if any(c.dep_ == "appos" and c.lemma_.lower() in people for c in root.children):
            return True
        if root.dep_ not in ("compound", "amod", "nmod", "poss") or root.head._.tech is not None:
            return False
        noun = root.head.lemma_.lower()
        if noun in ("version", "runtime", "toolchain", "interpreter", "sdk"):
            return False  # "bumped the Python version to 3.13"
        return not (noun in self.lex["project_noun"] or self.vocab.category_of_label(noun) is not None)

    def _is_previous(self, span: Span, clause: Clause) -> bool:
        """ "from X to Y", "replaced X with Y", "dropped X for Y", "X is out": X is the old value."""
        root = span.root
        head = root.head
        if head.dep_ == "prep" and head.lower_ in ("from", "off"):
            verb = head.head.lemma_.lower()
            parent = clause.parent.head.lemma_.lower() if clause.parent is not None else ""
            return (
                verb in self.lex["switch_verb"]
                or clause.head.lemma_.lower() in self.lex["switch_verb"]
                or parent in self.lex["switch_verb"]
                or any(t.lower_ in ("to", "onto", "into") for t in clause.tokens if t.i > root.i)
            )
        if root.dep_ == "dobj" and head.lemma_.lower() in self.lex["replace_verb"] | self.lex["drop_verb"]:
            return any(t.lower_ in ("with", "for", "by") for t in head.children) or head.lemma_ in (
                "drop",
                "ditch",
            )
        return bool(root.dep_ == "nsubj" and any(t.lower_ in ("out", "gone", "dead") for t in head.children))

    def _gone(self, span: Span) -> bool:
        """A product the sentence says is no longer used: "MySQL's gone for good", "jest was too slow",
        "we left heroku in jan", "ripped out typeorm", "celery ... replaced by arq", "the old CI"."""
        root = span.root
        head = root.head
        lex = self.lex
        leave = lex["drop_verb"] | {
            "leave",
            "rip",
            "quit",
            "abandon",
            "replace",
            "remove",
            "retire",
            "sunset",
        }
        if any(c.lower_ in ("old", "legacy", "former", "previous", "ex") for c in root.children):
            return True
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
            return (
                past
                and head.lemma_ == "be"
                and not any(c.dep_ == "advmod" and c.lower_ == "now" for c in head.children)
            )
        if root.dep_ == "dobj" and head.lemma_.lower() in leave:
            return (
                not any(c.lower_ in ("with", "by") for c in head.children) or head.lemma_.lower() == "replace"
            )
        if root.dep_ == "dobj" and any(
            c.dep_ == "prt" and c.lower_ in ("off", "out", "away") for c in head.children
        ):
            return True  # "moved off Heroku", "ripped out Mocha"
        if root.dep_ == "pobj" and head.lower_ in ("off", "from", "out"):
            verb = head.head
            while verb.dep_ in ("advmod", "prt", "prep") and verb.head.i != verb.i:
                verb = verb.head  # "moved away from pnpm"
            if verb.lemma_.lower() in leave | lex["switch_verb"] | {"move", "go", "get"}:
                return True
        return False

    @staticmethod
    def _is_other(span: Span) -> bool:
        """ "pnpm, not npm", "instead of npm", "rather than npm", "X over Y": a named alternative."""
        doc = span.doc
        before = [doc[i].lower_ for i in range(max(span.sent.start, span.start - 3), span.start)]
        if before[-1:] in (["not"], ["no"], ["never"], ["over"]) or before[-2:] in (
            ["instead", "of"],
            ["rather", "than"],
            ["not", "the"],
            ["no", "more"],
        ):
            return True
        return any(c.dep_ == "neg" and c.i < span.start for c in span.root.children)

    def named_in_slot(self, clause: Clause, taken: set[int]) -> list[Fact]:
        """A name the vocabulary lacks, in a slot the sentence names: "our feature flags come from
        flagpole", "deploys go through shipyard", "deployed with SST", "we use Nx for the monorepo"."""
        if clause.about not in ("group", "project", "thing", "pointing", "none") or not clause.asserted:
            return []
        if clause.mood not in ("statement", "fragment") or clause.negated:
            return []
        head = clause.head
        category = self._label_of(clause.subject) if clause.subject is not None else None
        value: Token | None = None
        for child in head.children:
            if child.dep_ == "prep":
                pobj = next((c for c in child.children if c.dep_ in ("pobj", "pcomp")), None)
                if child.lower_ == "for" and pobj is not None:
                    named = self._label_of(pobj)
                    if named is not None:
                        category = named
                        value = next((c for c in head.children if c.dep_ == "dobj"), value)
                        continue
                phrase = self.vocab.category_of_phrase(head.lemma_, child.lower_)
                if pobj is not None and phrase and value is None:
                    category = category or phrase
                    value = pobj
            elif child.dep_ in ("attr", "dobj", "oprd") and category is not None and value is None:
                value = child
        if category is None or value is None or value.i in taken or value._.tech is not None:
            return []
        after = value.doc[value.i + 1] if value.i + 1 < len(value.doc) else None
        if after is not None and not value.whitespace_ and after.text in ("/", ":", "."):
            return []  # "app/models/": a path, not a name
        if not _name_like(value):
            return []
        spec = self.vocab.slot(category)
        if spec.scope != "project":
            return []
        name = _value_of(value, "name")
        return [
            Fact(
                kind="semantic",
                scope="project",
                key=spec.key if spec.single else f"{spec.key}:{_slug(name)}",
                value=name,
                text=_fill(spec.template(), name),
                span=plain(clause.tokens),
                reader="stack.named_in_slot",
                confidence=0.75,
                anchor=value.i,
                category=category,
            )
        ]

    def _label_of(self, noun: Token) -> str | None:
        """The slot a noun names: "feature flags", "the queue driver", "deploys", "our ci"."""
        compounds = [c for c in noun.children if c.dep_ in ("compound", "amod") and c.i < noun.i]
        candidates = []
        if compounds:
            candidates.append(" ".join([*(c.lower_ for c in compounds), noun.lower_]))
            candidates += [c.lower_ for c in compounds]
        candidates += [noun.lower_, noun.lemma_.lower()]
        for words in candidates:
            category = self.vocab.category_of_label(words)
            if category is not None and category != "tool":
                return category
        return None

    # -- labeled lines and rundowns -------------------------------------------------------------------

    def telegraphic(
        self, sent: Span, techs: list[Span], commands: list[Command], question_from: int | None = None
    ) -> list[Fact]:
        """ "db: postgres 16", "ci = buildkite", "next 14 / tailwind / supabase, deployed on vercel":
        the items of a line, each without a clause of its own."""
        facts: list[Fact] = []
        carried: str | None = None  # "languages: pt-br native, english fluent": the label goes on
        for piece in _pieces(sent):
            if question_from is not None and piece[-1].i >= question_from:
                continue
            if _clausal(piece):
                continue  # a clause: the clause readers take it
            words = [t for t in piece if not t.is_punct]
            if not words or any(self._unsure(t) for t in piece):
                continue
            if any(t.lower_ in self.lex["paste_noun"] for t in words):
                continue  # "terraform plan output": about something pasted, not the stack
            if words[0].lower_ in ("no", "never", "always", "only") or any(
                t.lower_ in (">", "over", "than") for t in words
            ):
                continue  # "no `any` in TS": a rule about the code, read as a rule
            label_category, label_end, purpose = self._label(piece)
            if label_category is None and purpose is None and carried is not None and len(words) <= 5:
                label_category = carried
            elif label_category is not None and label_end > piece[0].i:
                carried = label_category
            if label_category == "language" and any(t.lower_ in self.lex["language_name"] for t in piece):
                label_category = "spoken_language"
            inside = [s for s in techs if piece[0].i <= s.start <= piece[-1].i and s.start >= label_end]
            piece_commands = [c for c in commands if piece[0].idx <= c.start < piece[-1].idx + len(piece[-1])]
            if purpose and piece_commands:
                command = piece_commands[0]
                facts.append(
                    self._command_fact(command.text, purpose, None, plain(list(piece)), "commands.label")
                )
                continue
            if label_category is None and not inside:
                continue
            if label_category is not None:
                matching = [s for s in inside if s.label_ == label_category]
                if not inside:
                    facts += self._labeled_value(label_category, piece, label_end)
                    continue
                if not matching and label_category != "tool":
                    # "queue: dramatiq + redis" names products of other kinds under the label's slot
                    for span in inside:
                        span.label_ = label_category
            own = label_category is not None and self.vocab.slot(label_category).scope == "user"
            pseudo = Clause(
                head=piece[0],
                tokens=list(piece),
                subject=None,
                about="speaker" if own else "project",
                mood="fragment",
            )
            in_sentence = [s for s in techs if sent.start <= s.start < sent.end]
            facts.extend(self.stack(pseudo, in_sentence, reader="stack.rundown"))
        return facts

    def _labeled_value(self, category: str, piece: Span, start: int) -> list[Fact]:
        """ "queue: dramatiq", "hobbies: bouldering": a value the vocabulary does not know, under a label."""
        value = plain([t for t in piece if t.i >= start])
        if not value or len(value.split()) > 6:
            return []
        spec = self.vocab.slot(category)
        return [
            Fact(
                kind="semantic",
                scope=spec.scope,
                key=spec.key if spec.single else f"{spec.key}:{_slug(value)}",
                value=value,
                text=_fill(spec.template(), value),
                span=plain(list(piece)),
                reader="stack.label",
                confidence=0.8,
                anchor=start,
                category=category,
            )
        ]

    def _label(self, piece: Span) -> tuple[str | None, int, str | None]:
        """A label at the start of a piece: its category, where the value starts, a command purpose."""
        tokens = list(piece)
        leading = ("favourite", "favorite", "fav", "fave", "my", "our", "preferred", "main", "run", "to")
        while len(tokens) > 2 and tokens[0].lower_ in leading:
            tokens = tokens[1:]  # "favourite editor: helix", "run tests: make check"
        for size in (3, 2, 1):
            if len(tokens) <= size:
                continue
            words = " ".join(t.lower_ for t in tokens[:size])
            nxt = tokens[size]
            separated = nxt.text in (":", "=", "-", "\u2013", "\u2014", "->", "=>")
            start = tokens[size + 1].i if separated and len(tokens) > size + 1 else nxt.i
            category = self.vocab.category_of_label(words)
            purpose = _PURPOSE_WORDS.get(words) if size == 1 else None
            if words in ("test command", "build command", "lint command", "deploy command", "tests command"):
                purpose = _PURPOSE_WORDS.get(words.split()[0])
            first = tokens[0].i in (piece.sent.start, piece.start)
            if (category is not None or purpose) and (separated or nxt._.tech is not None or first):
                return category, start, purpose
        return None, piece[0].i, None

    def label_start(self, sent: Span) -> tuple[bool, int]:
        category, start, purpose = self._label(sent)
        return (category is not None or purpose is not None), start

    def _unsure(self, token: Token) -> bool:
        lemma = token.lemma_.lower()
        return (
            token.text == "?"
            or token.dep_ == "neg"
            or lemma in self.lex["hedge"]
            or (
                token.pos_ == "VERB"
                and (lemma in self.lex["plan_verb"] or lemma in self.lex["cognition_verb"])
            )
            or token.lower_ in ("maybe", "considering", "thinking", "if", "whether", "might", "should")
        )

    # -- commands ------------------------------------------------------------------------------------

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
            if not (named or self._checkpoint(clause) or _said_of(tokens.root, clause)):
                continue  # "after pnpm test the snapshot is stale": the command is not what is said
            checkpoint = self._checkpoint(clause)
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
                    self._command_fact(command.text, purpose, clause, plain(clause.tokens), "commands.clause")
                )
        if not facts and clause.mood == "imperative" and clause.head.lemma_ in ("use", "run", "execute"):
            # "`just pre-push` runs everything — use it before every push"
            checkpoint = self._checkpoint(clause)
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
            checkpoint = self._checkpoint(clause)
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

    def _checkpoint(self, clause: Clause) -> str | None:
        """ "before opening a PR", "before you push", "prior to committing"."""
        sent = clause.head.sent
        doc = sent.doc
        for marker in sent:
            if marker.lower_ not in _BEFORE:
                continue
            owner = _clause_head_of(marker)
            inner = (
                owner.i != clause.head.i
                and owner.dep_ in ("ccomp", "relcl")
                and clause.head in owner.ancestors
            )
            if not clause.has(marker) and owner.i != clause.head.i and not inner:
                continue
            for token in doc[marker.i + 1 : min(sent.end, marker.i + 6)]:
                lower = token.lower_
                if (
                    lower in ("pull", "merge")
                    and token.i + 1 < len(doc)
                    and doc[token.i + 1].lower_
                    in (
                        "request",
                        "requests",
                    )
                ):
                    return "pr"
                key = _CHECKPOINT_KEYS.get(lower) or _CHECKPOINT_KEYS.get(token.lemma_.lower())
                if key and lower != "pull":
                    return key
        return None

    @staticmethod
    def _to_purpose(clause: Clause) -> str | None:
        """ "run X to lint": the purpose said with "to"."""
        for token in clause.head.sent:
            if token.dep_ in ("xcomp", "advcl") and any(c.lower_ == "to" for c in token.children):
                purpose = _PURPOSE_WORDS.get(token.lower_) or _PURPOSE_WORDS.get(token.lemma_.lower())
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
            if word in _PURPOSE_WORDS:
                return _PURPOSE_WORDS[word]
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
            return _PURPOSE_WORDS.get(head)
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

    @staticmethod
    def _command_fact(value: str, purpose: str, clause: Clause | None, span: str, reader: str) -> Fact:
        return Fact(
            kind="procedural",
            scope="project",
            key=f"{purpose}_command",
            value=value,
            text=f"{SUBJECT_MARK}: the {purpose} command is {value}.",
            span=span,
            reader=reader,
            confidence=0.85,
            anchor=clause.head.i if clause is not None else -1,
        )

    # -- rules ---------------------------------------------------------------------------------------

    def rules(self, clause: Clause) -> list[Fact]:
        """Standing rules: imperatives meant for every time ("always squash before merging"), polite
        standing requests ("could you always include type hints?"), the team's habits ("we squash
        merge everything"), and norms about code ("`any` is banned", "branch names have to be ...")."""
        if clause.hedged or clause.planned or clause.conditional or clause.reported:
            return []
        tokens = _without_please(trim(_contiguous(clause) if clause.mood == "imperative" else clause.tokens))
        if len(tokens) < 2:
            return []
        body: str | None = None
        lemma = clause.head.lemma_.lower()
        if clause.mood == "question":
            # "could you always include type hints?": a standing request, asked politely
            if (
                clause.about == "you"
                and clause.modal in ("can", "ca", "could", "would", "will", "wo")
                and clause.standing
            ):
                after = clause.subject.i if clause.subject is not None else -1
                body = plain(_without_please([t for t in tokens if t.i > after]))
        elif clause.mood == "imperative":
            skipped = (
                "worry",
                "bother",
                "mind",
                "ask",
                "forget",
                "care",
                "thank",
                "remember",
                "note",
                "bear",
                "notice",
            )
            if lemma in self.lex["plan_verb"] or lemma in skipped:
                return []
            if not any(
                c.dep_ not in ("aux", "neg", "advmod", "punct", "intj", "discourse", "cc")
                for c in clause.head.children
            ):
                return []  # "don't ask", "never mind": no rule without something it is about
            if self._standing_imperative(clause, tokens):
                body = plain(tokens)
        elif clause.mood == "statement" and clause.tense in ("present", "perfect"):
            body = self._norm(clause, tokens)
        if not body:
            return []
        if not body.startswith(SUBJECT_MARK) and clause.mood != "question":
            tokens = _without_please(trim(_contiguous(clause)))
            body = plain(tokens)  # as said, with its asides
        # what the whole sentence is about decides whose rule it is ("assume fish when you give me commands")
        scope = self.rule_scope([t for t in clause.head.sent if not t.is_space])
        return [self._rule_fact(body, tokens, scope, clause.tokens, clause.head.i, "rules.standing")]

    def _standing_imperative(self, clause: Clause, tokens: list[Token]) -> bool:
        words = {t.lower_ for t in tokens}
        if clause.standing or words & {"never", "always"}:
            return True
        if words & _DEICTIC or clause.transient:
            return False  # "don't touch that file", "keep that in mind": about the task at hand
        if clause.negated or self._checkpoint(clause) is not None:
            return True
        if any(
            c.dep_ == "advcl" and any(m.lower_ in ("when", "whenever", "before", "after") for m in c.children)
            for c in clause.head.children
        ):
            return True
        if self.rule_scope(tokens) == "user" and words & (self.lex["answer_word"] - {"me"}):
            return True
        if words & _QUANTIFIERS:
            return True
        lemma = clause.head.lemma_.lower()
        if lemma in (
            "use",
            "prefer",
            "avoid",
            "stick",
            "keep",
            "follow",
            "put",
            "name",
            "stop",
            "favor",
            "favour",
            "assume",
            "skip",
        ):
            obj = [
                t
                for t in clause.tokens
                if t.dep_ in ("dobj", "pobj", "attr", "xcomp", "ccomp", "oprd", "acomp")
            ]
            return bool(obj) and not any(t.lower_ in _DEICTIC for t in obj)
        return False

    def _norm(self, clause: Clause, tokens: list[Token]) -> str | None:
        """A statement that is a rule: the team's habit, or a norm about the code."""
        lemma = clause.head.lemma_.lower()
        lex = self.lex
        verbs = lex["plan_verb"] | lex["cognition_verb"] | lex["speech_verb"] | {"have", "be", "get"}
        if clause.about in ("project", "thing") and lemma in ("need", "have"):
            verbs = verbs - {"need", "have"}  # "every PR needs two approvals": an obligation
        if lemma in verbs:
            if not (lemma == "be" and any(c.dep_ in ("acomp", "auxpass") for c in clause.head.children)):
                return None
        words = {t.lower_ for t in tokens}
        lemmas = {t.lemma_.lower() for t in tokens}
        if clause.subject is not None and clause.subject.lower_ in _DEICTIC:
            return None
        if any(c.dep_ == "dobj" and c.lower_ in _DEICTIC for c in clause.head.children):
            return None  # "we use it for everything"
        duty = clause.modal in ("must", "should", "shall") or _has_to(clause.head)
        if clause.about == "group":
            if clause.negated and "never" not in words:
                return None
            if (
                any(t._.tech for t in tokens)
                and not duty
                and not clause.standing
                and not (lemmas & lex["code_noun"])
            ):
                return None  # "we use postgres": the stack reader's
            if clause.head.tag_ not in ("VBP", "VB") and not duty:
                return None
            if not (
                lemmas & lex["code_noun"] or duty or clause.standing or words & {"everything", "all", "only"}
            ):
                return None
            return third_person(tokens, clause.subject).rstrip(".")
        if clause.about in ("project", "thing"):
            subject = clause.subject
            normed = lemma in lex["norm_verb"] or any(
                t.lemma_.lower() in lex["norm_verb"]
                for t in clause.head.children
                if t.dep_ in ("acomp", "attr")
            )
            about_code = subject is not None and any(
                t.lemma_.lower() in lex["code_noun"] for t in subject.subtree
            )
            if (duty or normed or clause.standing) and (about_code or normed):
                return plain(tokens)
            habitual = ("live", "go", "follow", "use", "stay", "need", "carry", "belong", "start", "end")
            if about_code and clause.head.tag_ in ("VBP", "VBZ") and lemma in habitual:
                return plain(tokens)
            return None
        if clause.about == "you" and clause.standing:  # "you should always ...", not "you must eat well"
            return plain(
                [t for t in tokens if t.i > clause.subject.i] if clause.subject is not None else tokens
            )
        return None

    def fragment_rules(self, sent: Span, question_from: int | None) -> list[Fact]:
        """Rules written as notes: "squash merge only", "no `any` in TS", "always conventional commits",
        "bullets > paragraphs", "aisle seat always", "halal only when suggesting restaurants"."""
        facts = []
        for piece in _pieces(sent, cut_plus=False, cut_colon=True):
            if question_from is not None and piece[-1].i >= question_from:
                continue
            tokens = _without_please(trim(list(piece)))
            words = [t.lower_ for t in tokens]
            kept = {t.i for t in tokens}
            if len(words) < 2 or any(
                t.dep_ in ("nsubj", "nsubjpass") and t.head.i in kept and t.head.pos_ in ("VERB", "AUX")
                for t in tokens
            ):
                continue
            if any(t.pos_ in ("VERB", "AUX") and t.tag_ in ("VBD", "VBZ", "MD") for t in tokens):
                continue
            if words[0] == "no" and words[1] in (
                "worries",
                "problem",
                "problems",
                "idea",
                "clue",
                "rush",
                "way",
                "pressure",
                "thanks",
                "need",
                "luck",
                "one",
                "matter",
                "offense",
                "biggie",
            ):
                continue
            text = " ".join(words)
            over = "over" in words and 0 < words.index("over") < len(words) - 1
            over = over and tokens[words.index("over") - 1].pos_ in ("NOUN", "PROPN", "ADJ")
            if any(t.tag_ in ("VBN", "VBG") for t in tokens) and not any(
                p in text for p in ("from now on", "going forward")
            ):
                over = False
            marked = (
                words[0] in ("no", "never", "always", "only")
                or words[-1] in ("only", "always", "never")
                or "only" in words[1:3]
                or ">" in words
                or over
                or (len(words) > 2 and words[1] in (":", "="))
                or any(p in text for p in ("from now on", "going forward", "every time", "by default"))
            )
            if not marked:
                continue
            scope = self.rule_scope(tokens)
            lemmas = {t.lemma_.lower() for t in tokens}
            if not lemmas & (self.lex["code_noun"] | self.lex["answer_word"]) - {"me"}:
                if words[0] == "no" or not {"always", "only", "never"} & set(words):
                    continue  # "no fish either", "no dedicated ops person": said in passing
                scope = "user"  # "aisle seat always", "halal only": the person's own way
            facts.append(
                self._rule_fact(plain(tokens), tokens, scope, list(piece), tokens[0].i, "rules.note")
            )
        return facts

    def rule_scope(self, tokens: list[Token]) -> str:
        """A rule about how the assistant answers or talks to the user is the user's; one about the
        code, the repo or the team's work is the project's."""
        lex = self.lex
        user = 0.0
        project = 0.0
        answers = lex["answer_word"] - {"me"}
        for token in tokens:
            lemma, lower = token.lemma_.lower(), token.lower_
            if lower in answers or lemma in answers:
                user += 1
            if lower == "me":
                governor = token.head.lemma_.lower()
                user += (
                    2
                    if governor
                    in ("for", "give", "show", "write", "send", "explain", "answer", "reply", "with", "to")
                    else 0.5
                )
            if token._.tech is not None:
                if self.vocab.slot(token._.tech).scope == "user":
                    user += 2
                else:
                    project += 1
            if (
                lemma in lex["code_noun"]
                or lower in lex["code_noun"]
                or "/" in lower
                or lower.startswith("`")
            ):
                project += 1
        if any(
            t.lower_ in lex["language_name"] and t.i > 0 and t.doc[t.i - 1].lower_ in ("in", "auf")
            for t in tokens
        ):
            user += 2
        return "user" if user > project else "project"

    def _rule_fact(
        self, body: str, tokens: list[Token], scope: str, source: list[Token], anchor: int, reader: str
    ) -> Fact:
        key, value = self._rule_slot(tokens, scope)
        body = _FIRST_PERSON_WORDS.sub(lambda m: _THIRD_PERSON[m.group(0).lower()], body)
        text = body if body.startswith(SUBJECT_MARK) else f"{SUBJECT_MARK} rule: {sentence(body)}"
        return Fact(
            kind="procedural" if scope == "project" or key is None else "semantic",
            scope=scope,
            key=key,
            value=value or plain(tokens),
            text=sentence(text) if key is None else self._slot_text(key, value or "", text),
            span=plain(source),
            reader=reader,
            confidence=0.85,
            anchor=anchor,
        )

    def _rule_slot(self, tokens: list[Token], scope: str) -> tuple[str | None, str | None]:
        words = [t.lower_ for t in tokens]
        if scope == "user":
            for i, word in enumerate(words):
                if word in self.lex["language_name"] and i > 0 and words[i - 1] in ("in", "auf"):
                    return "response_language", tokens[i].text
            for token in tokens:
                if token.lower_ in _LENGTHS and token.head.lemma_.lower() in (
                    self.lex["answer_word"] | {"keep", "be"}
                ):
                    return "response_length", token.text
        for i, word in enumerate(words):
            if word in ("tabs", "spaces", "tab", "space") or re.match(r"^\d+-space", word):
                start = i
                while start > 0 and (
                    words[start - 1].isdigit() or words[start - 1] in ("-", "four", "two", "eight")
                ):
                    start -= 1
                end = i + 1
                if end < len(words) and words[end] in ("indentation", "indent", "indents", "indenting"):
                    end += 1
                return "indentation", joined(tokens[start:end])
        return None, None

    @staticmethod
    def _slot_text(key: str, value: str, text: str) -> str:
        if key == "response_language":
            return f"{SUBJECT_MARK} wants replies in {value}."
        if key == "response_length":
            return f"{SUBJECT_MARK} wants replies kept {value}."
        if key == "indentation":
            return f"{SUBJECT_MARK} indents code with {value}."
        return text

    def preference(self, clause: Clause) -> list[Fact]:
        """ "I prefer concise bullet points", "I like my answers short", "I'd rather stick to trains"."""
        head = clause.head
        rather = any(c.lower_ == "rather" for c in head.children) and clause.modal in ("'d", "d", "would")
        if rather and clause.about == "speaker" and clause.mood == "statement" and not clause.conditional:
            after = [t for t in trim(clause.tokens) if t.i > head.i]
            value = plain(after) or head.text
            text = f"{SUBJECT_MARK} prefers to {plain([head, *after])}."
            return [
                Fact(
                    "semantic",
                    "user",
                    None,
                    value,
                    text,
                    plain(clause.tokens),
                    "rules.preference",
                    0.8,
                    head.i,
                )
            ]
        if head.lemma_.lower() not in ("prefer", "like", "love", "want", "need") or clause.about not in (
            "speaker",
            "group",
        ):
            return []
        if (
            clause.mood == "question"
            or clause.hedged
            or clause.reported
            or clause.conditional
            or clause.negated
        ):
            return []
        if head.lemma_.lower() in ("like", "love", "want", "need") and not self._shapes_output(clause):
            return []
        xcomp = any(c.dep_ == "xcomp" and c.pos_ == "VERB" for c in head.children)
        if clause.tense == "future" or (xcomp and head.lemma_ != "prefer"):
            return []
        obj = [t for t in _contiguous(clause) if t.i > head.i]
        if not obj:
            return []
        value = plain(obj)
        scope = "user" if clause.about == "speaker" else "project"
        key, slot_value = self._rule_slot(obj, "user")
        text = third_person(trim(_contiguous(clause)), clause.subject)
        if key == "indentation" and slot_value is not None:
            text = self._slot_text(key, slot_value, text)
            value = slot_value
        else:
            key = None  # "I'd prefer answers in German": kept as said
        answers = self._shapes_output(clause) and scope == "user"
        return [
            Fact(
                # how the user wants answers is a standing rule of theirs, given on every request
                kind="procedural" if scope == "project" or answers else "semantic",
                scope=scope,
                key=key,
                value=value,
                text=text,
                span=plain(clause.tokens),
                reader="rules.preference",
                confidence=0.85,
                anchor=obj[0].i,
            )
        ]

    def _shapes_output(self, clause: Clause) -> bool:
        """ "I like my answers short", "I want responses in German": about the assistant's output."""
        words = {t.lower_ for t in clause.tokens} | {t.lemma_.lower() for t in clause.tokens}
        if words & (self.lex["answer_word"] - {"me"}) or words & {"tabs", "spaces"}:
            return True
        return any(t.dep_ == "dobj" and t.lemma_.lower() in self.lex["code_noun"] for t in clause.tokens)

    # -- personal ------------------------------------------------------------------------------------

    def framed(self, clause: Clause, hits: list[FrameHit], role: str) -> list[Fact]:
        facts = []
        about = "speaker" if clause.about == "implied" else clause.about
        for hit in hits:
            frame = hit.frame
            if role not in frame.roles or not clause.has(hit.anchor):
                continue
            if frame.about and about not in frame.about:
                continue
            if clause.mood not in frame.moods and not (
                clause.mood == "fragment" and "statement" in frame.moods
            ):
                continue
            if (frame.negated == "skip" and clause.negated) or (
                frame.negated == "require" and not clause.negated
            ):
                continue
            if frame.transient == "skip" and clause.transient:
                continue
            if clause.mood != "imperative" and (
                not clause.asserted or clause.modal not in (None, "ca", "can")
            ):
                continue
            if clause.tense == "past" and not frame.past:
                continue  # "since i was five": was, not is
            value_token = hit.nodes[frame.value]
            names_someone = (
                frame.span == "name" and frame.key is not None and not frame.key.startswith("home")
            )
            if value_token._.tech is not None and frame.scope == "user" and not names_someone:
                continue  # "we moved to Node 22": a product, not a place ("call me Sam" is a name)
            if value_token.lower_ in self.lex["timezone"]:
                continue  # "I'm in PST": a time zone
            value = _value_of(value_token, frame.span)
            if not value or value.lower() in _DEICTIC:
                continue
            noun = hit.nodes.get("noun")
            names = {"value": value, "noun": noun.lower_ if noun is not None else "", "subject": SUBJECT_MARK}
            key = frame.key.format(**{**names, "value": _slug(value)}) if frame.key else None
            facts.append(
                Fact(
                    kind=frame.kind,
                    scope=frame.scope,
                    key=key,
                    value=value,
                    text=sentence(frame.text.format(**names)),
                    span=plain(clause.tokens),
                    reader=frame.qualified_id,
                    confidence=frame.confidence,
                    anchor=value_token.i,
                    fields={"episode": "1"} if frame.episode else {},
                )
            )
        return facts

    def timezone(self, sent: Span) -> list[Fact]:
        """ "im in singapore, UTC+8", "so IST", "tz: CET", "my time zone is Europe/Berlin"."""
        text = sent.text
        words = {t.lower_ for t in sent}
        found = [m.group(0) for m in _TZ.finditer(text)]
        found += [t.text for t in sent if t.text.isupper() and t.lower_ in self.lex["timezone"]]
        if not found:
            return []
        mine = words & {"i", "i'm", "im", "my", "me", "tz", "timezone", "zone", "based", "m"}
        if ("?" in text and not mine) or (
            not mine and not any(t.dep_ == "ROOT" and t.pos_ != "VERB" for t in sent)
        ):
            return []  # "what is 3pm PST in CET?": a question about time zones
        ordered = sorted(set(found), key=text.find)
        value = ordered[0] if len(ordered) == 1 else f"{ordered[0]} ({', '.join(ordered[1:])})"
        return [
            Fact(
                kind="semantic",
                scope="user",
                key="timezone",
                value=value,
                text=f"{SUBJECT_MARK}'s time zone is {value}.",
                span=text,
                reader="personal.timezone",
                confidence=0.8,
                anchor=sent.start,
            )
        ]

    def exception(self, sent: Span, clauses: list[Clause], qualifier: str | None) -> list[Fact]:
        """An exception to a rule said before: "except release/* branches — those get a merge commit",
        "the CLI tool is the odd one out, it logs plain text", "for tax stuff, though, give me the
        full detail". Kept as said, with what it is limited to, beside the general rule."""
        text = sent.text.strip()
        lowered = text.lower()
        soft = _SOFT_EXCEPTION.search(lowered) and (qualifier or re.match(r"^\W*(?:but\s+)?for\s", lowered))
        if text.endswith("?") or not (_EXCEPTION.search(lowered) or soft):
            return []
        if any(c.reported or c.hedged for c in clauses if c.parent is None):
            return []
        tokens = trim([t for t in sent if not t.is_space])
        if len(tokens) < 3:
            return []
        where = qualifier or _exception_scope(sent)
        body = _EXCEPTION_LEAD.sub("", joined(tokens)).strip(" ,:;\u2014\u2013-")
        if not body:
            return []
        scope = self.rule_scope(tokens)
        return [
            Fact(
                kind="procedural" if scope == "project" else "semantic",
                scope=scope,
                key=None,
                value=body,
                text=f"{SUBJECT_MARK} exception{f' ({where})' if where else ''}: {sentence(body)}",
                span=text,
                reader="rules.exception",
                confidence=0.75,
                anchor=sent.start,
                fields={"exception_for": where} if where else {},
            )
        ]

    def answer(
        self, sent: Span, clauses: list[Clause], asked: tuple[str, str | None, str, dict[str, str]]
    ) -> list[Fact]:
        """A short answer to the question before it: "denver. it's beautiful here" after "where do
        you live?"; "a tiny town in ohio" after "where are you from?"."""
        question_id, key, template, groups = asked
        if any(
            c.subject is not None and c.mood == "statement" and c.head.i < sent.start + 4 for c in clauses
        ):
            return []  # a sentence of its own ("i live in denver") is read as such
        words = []
        for token in sent:
            if token.is_punct or token.lower_ in ("and", "but", "so", "i", "well", "oh", "um", "hmm"):
                if words:
                    break
                continue
            if token.pos_ in ("VERB", "AUX", "PRON") or token.lower_ in self.lex["hedge"]:
                if words:
                    break
                return []
            words.append(token)
        if (
            not words
            or len(words) > 6
            or any(t.lower_ in ("yes", "no", "yeah", "nope", "nothing") for t in words)
        ):
            return []
        value = joined(words)
        names = {"value": value, "subject": SUBJECT_MARK, **groups}
        key_name = key.format(**{**names, "value": _slug(value)}) if key else None
        return [
            Fact(
                kind="semantic",
                scope="user",
                key=key_name,
                value=value,
                text=sentence(template.format(**names)),
                span=plain(list(sent)),
                reader=question_id,
                confidence=0.7,
                anchor=words[0].i,
            )
        ]

    def diet(self, sent: Span, clauses: list[Clause]) -> list[Fact]:
        """ "pescatarian now", "vegetarian since 2019", "not vegan anymore, pescatarian now": a diet
        named anywhere the speaker says it of themselves."""
        facts = []
        for token in sent:
            if token.lower_ not in self.lex["diet_word"]:
                continue
            clause = next((c for c in clauses if c.has(token)), None)
            if clause is not None and (
                clause.about in ("third", "family", "pet", "you", "project")
                or clause.mood == "question"
                or not clause.asserted
            ):
                continue
            window = [t.lower_ for t in sent.doc[max(sent.start, token.i - 3) : token.i]]
            after = [t.lower_ for t in sent.doc[token.i + 1 : min(sent.end, token.i + 3)]]
            if {"not", "n't", "no", "never", "longer"} & set(window) or "anymore" in after:
                continue
            if token.head.lemma_.lower() in (
                "diet",
                "option",
                "options",
                "recipe",
                "recipes",
                "meal",
                "meals",
                "dish",
            ):
                continue  # "a vegan recipe": about food, not the person
            facts.append(
                Fact(
                    "semantic",
                    "user",
                    "diet",
                    token.text,
                    f"{SUBJECT_MARK} is {token.text}.",
                    plain(list(sent)),
                    "personal.diet",
                    0.8,
                    token.i,
                )
            )
        return facts[:1]

    def personal(self, clause: Clause) -> list[Fact]:
        """A durable first-person statement no frame names: "i play the violin", "my mom is a teacher"."""
        if clause.about not in ("speaker", "implied", "family", "pet", "speaker_thing", "group"):
            return []
        if clause.mood not in ("statement",) or not clause.asserted or clause.transient:
            return []
        if clause.modal not in (None, "ca", "can") or _condition(clause):
            return []
        head = clause.head
        lemma = head.lemma_.lower()
        lex = self.lex
        if any(
            t.lemma_.lower() in lex["speech_verb"] | lex["cognition_verb"]
            for t in clause.tokens
            if t.pos_ == "VERB"
        ):
            return []  # "my brother keeps saying ...": what someone says, not what is
        negative_ok = lemma in lex["consume_verb"] or (lemma in lex["preference_verb"] and not clause.negated)
        if clause.negated and not negative_ok:
            return []
        progressive_ok = lemma in ("live", "work", "learn", "study", "train", "volunteer")
        if clause.tense not in ("present", "perfect") and not (
            clause.tense == "progressive" and progressive_ok
        ):
            return []
        if clause.about == "group" and not (self._family_object(clause) or negative_ok):
            return []  # "we have two kids", "we do eat eggs": the household, not the team
        if clause.about == "speaker_thing" and not self._profile(clause):
            return []
        gets = lemma == "get" and any(c.dep_ == "acomp" for c in head.children)  # "I get travel sick"
        allowed = ("have", "be", "do", "make", "speak", "keep", "go", "take")
        if lemma in lex["conversation_verb"] and lemma not in allowed and not gets:
            return []
        if lemma in lex["plan_verb"] or lemma in lex["cognition_verb"] or lemma in lex["speech_verb"]:
            return []
        complements = [
            c
            for c in head.children
            if c.dep_
            in (
                "dobj",
                "attr",
                "acomp",
                "xcomp",
                "prep",
                "oprd",
                "ccomp",
                "npadvmod",
                "advmod",
                "amod",
                "compound",
            )
        ]
        content = [
            c
            for c in complements
            if c.dep_ not in ("advmod",) or c.lower_ in ("home", "abroad", "nights", "remotely")
        ]
        if clause.about == "implied" and head.pos_ in ("ADJ", "NOUN"):
            content = content or [head]
        if not content or not self._durable(clause, content):
            return []
        if any(t.lower_ in lex["timezone"] for c in content for t in c.subtree):
            return []  # "I'm in PST": the time zone reader's
        if clause.about == "implied":
            text = implied_third_person(trim(clause.tokens), head)
        else:
            text = third_person(clause.tokens, clause.subject, clause.referent)
        if not text or len(text.split()) > 30:
            return []
        value = joined([t for c in content for t in sorted(c.subtree, key=lambda t: t.i)])
        key = self._role_key(clause)
        if key == "role":
            value = self.role_value(clause) or value
        indentation, spaces = self._rule_slot(clause.tokens, "user")
        if indentation == "indentation" and spaces:
            key, value, text = indentation, spaces, self._slot_text(indentation, spaces, text)
        return [
            Fact(
                kind="semantic",
                scope="user",
                key=key,
                value=value or plain(clause.tokens),
                text=text,
                span=plain(clause.tokens),
                reader="personal.statement",
                confidence=0.75,
                anchor=content[0].i,
            )
        ]

    def _role_key(self, clause: Clause) -> str | None:
        """ "I'm a senior backend engineer": an occupation is the user's role slot."""
        if clause.about != "speaker" or clause.head.lemma_ != "be":
            return None
        attr = next((c for c in clause.head.children if c.dep_ == "attr" and c.pos_ == "NOUN"), None)
        if attr is None or not any(c.dep_ == "det" for c in attr.children):
            return None
        noun = attr.lower_
        if noun in self.lex["diet_word"] or noun in self.lex["kin_noun"]:
            return None
        suffixes = self.lex["occupation_suffix"]
        whole = noun in suffixes
        return (
            "role"
            if whole or (len(noun) > 4 and any(noun.endswith(s) for s in suffixes if len(s) <= 4))
            else None
        )

    @staticmethod
    def role_value(clause: Clause) -> str:
        attr = next((c for c in clause.head.children if c.dep_ == "attr"), None)
        return _value_of(attr, "role") if attr is not None else ""

    def _family_object(self, clause: Clause) -> bool:
        return any(
            t.lemma_.lower() in self.lex["kin_noun"] or t.lemma_.lower() in self.lex["pet_noun"]
            for t in clause.tokens
            if t.dep_ in ("dobj", "attr")
        )

    def _profile(self, clause: Clause) -> bool:
        subject = clause.subject
        if subject is None:
            return False
        if subject.lemma_.lower() in self.lex["profile_noun"]:
            return True
        return clause.head.lemma_ == "be" and any(
            c.dep_ == "attr" and c.pos_ in ("NOUN", "PROPN", "NUM") for c in clause.head.children
        )

    def _durable(self, clause: Clause, content: list[Token]) -> bool:
        """Not a state of the moment ("I'm tired"), not the task at hand ("I have a question")."""
        lex = self.lex
        head = clause.head
        if head.lower_ in lex["transient_adjective"] or head.lemma_.lower() in lex["transient_adjective"]:
            return False  # "so sorry for typos"
        for c in content:
            words = {t.lower_ for t in c.subtree}
            if c.lower_ in lex["transient_adjective"] or c.lemma_.lower() in lex["transient_adjective"]:
                if c.dep_ in ("acomp",) or c.i == head.i:
                    return False
            if c.dep_ in ("dobj", "attr") and c.lemma_.lower() in lex["nonfact_object"]:
                return False
            if c.dep_ in ("dobj", "attr", "acomp") and c.lower_ in _DEICTIC | {
                "anything",
                "everything",
                "nothing",
            }:
                return False
            if c.dep_ == "prep" and any(t.dep_ == "pobj" and t.lower_ in _DEICTIC for t in c.children):
                return False
            if (
                any(t._.tech for t in c.subtree)
                and clause.about in ("speaker", "implied", "group")
                and head.lemma_ != "love"
            ):
                return False  # a product the speaker uses is the stack reader's
            del words
        if head.lemma_ == "be" and not any(c.dep_ in ("attr", "acomp", "prep") for c in content):
            return clause.about == "implied"
        return True

    def episode(self, clause: Clause, role: str) -> list[Fact]:
        """An event told in passing: "we adopted a puppy in March", "I passed my driving test"."""
        if role != "user" or clause.mood not in ("statement",) or clause.tense != "past":
            if not (clause.about == "implied" and role == "user" and clause.head.tag_ in ("VBD", "VBN")):
                return []
        if clause.about not in ("speaker", "implied", "group", "family") or clause.hedged or clause.reported:
            return []
        if clause.conditional or clause.negated or clause.modal is not None or _condition(clause):
            return []
        head = clause.head
        lemma = head.lemma_.lower()
        if lemma in self.lex["conversation_verb"] and lemma not in (
            "get",
            "go",
            "make",
            "take",
            "find",
            "have",
        ):
            return []
        text_words = " ".join(t.lower_ for t in clause.tokens)
        when = _TIME.search(text_words)
        eventful = lemma in self.lex["life_event_verb"] or (
            lemma in ("get", "be", "marry")
            and any(
                c.lower_ in ("married", "engaged", "promoted", "divorced", "hired", "back")
                for c in head.subtree
            )
        )
        coding = any(t.like_url or "/" in t.text or "`" in t.text for t in clause.tokens)
        direct_tech = any(t._.tech and (t.head.i == head.i or t.head.head.i == head.i) for t in clause.tokens)
        if coding or direct_tech or (any(t._.tech for t in clause.tokens) and not eventful):
            return []  # "I added a column and the migration failed": the task, not a life
        if not eventful and (not when or lemma in ("be", "have", "do", "get", "make")):
            return []
        objects = [
            c
            for c in head.children
            if c.dep_ in ("dobj", "prep", "attr", "acomp", "xcomp", "advmod", "prt", "npadvmod")
        ]
        if not objects:
            return []
        if clause.about == "implied":
            text = implied_third_person(trim(clause.tokens), head)
        else:
            text = third_person(clause.tokens, clause.subject)
        if not text or len(text.split()) > 30:
            return []
        ago = _AGO.search(text_words)
        return [
            Fact(
                kind="episodic",
                scope="user",
                key=None,
                value=joined([t for c in objects for t in sorted(c.subtree, key=lambda t: t.i)])
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

    # -- the agent's own reports --------------------------------------------------------------------

    def report(self, clause: Clause, techs: list[Span], commands: list[tuple[Command, Span]]) -> list[Fact]:
        """What a coding agent says it changed or verified: "I've swapped the ORM to Drizzle", "the service
        now reads its config from environment variables". Advice, options, plans, questions and general
        explanations give nothing."""
        if clause.mood in ("question", "imperative") or clause.negated or clause.hedged or clause.planned:
            return []
        if clause.conditional or clause.tense == "future" or clause.modal is not None:
            return []
        if any(t.lower_ in ("'ll", "will", "gonna", "next", "shall") for t in clause.head.sent):
            return []  # "I'll migrate the rest to vitest next": a plan
        named = clause.subject is not None and clause.subject.pos_ == "PROPN"
        if clause.reported and not (clause.about == "third" and named):
            return []  # an agent's "Procfile", "CI" subjects are things of the project, not people
        sent_lemmas = {t.lemma_.lower() for t in clause.head.sent} | {t.lower_ for t in clause.head.sent}
        if sent_lemmas & (
            self.lex["advice_word"] | {"if", "option", "recommend", "suggest", "consider", "alternative"}
        ):
            return []
        head = clause.head
        lemma = head.lemma_.lower()
        subject = clause.subject
        yours = subject is not None and any(c.lower_ in ("your", "our") for c in subject.children)
        about = "project" if yours or (clause.about == "third" and named) else clause.about
        if (
            about in ("none", "thing")
            and clause.mood in ("statement", "fragment")
            and any(t._.tech for t in clause.tokens)
        ):
            about = "project"  # "Confirmed: CI runs on Node 20" (parsed without its subject)
        changed = lemma in self.lex["report_verb"]
        did = (
            about in ("speaker", "group", "none", "implied")
            and clause.tense in ("past", "perfect")
            and changed
        )
        if about == "implied" and head.tag_ in ("VBD", "VBN") and changed:
            did = True  # "Upgraded to Next.js 15 and React 19."
        state = about == "project" and clause.tense in ("present", "perfect", "past")
        if clause.about == "none" and clause.mood == "fragment":
            state = False
        if not (did or state):
            return []
        quoted = {t.i for _, span in commands for t in span}
        facts = self.stack(
            _as_project(clause), [s for s in techs if s.start not in quoted], reader="report.stack"
        )
        facts += self.named_in_slot(_as_project(clause), {f.anchor for f in facts})
        covered = {f.value.lower() for f in facts}
        for command, tokens in commands:
            if (
                (clause.has(tokens[0]) or clause.has(tokens.root))
                and command.purpose
                and command.text.lower() not in covered
            ):
                fact = self._command_fact(
                    command.text, command.purpose, clause, plain(clause.tokens), "report.command"
                )
                fact.kind = "semantic"
                facts.append(fact)
        if self._concrete(clause, facts):
            body = [t for t in trim(clause.tokens) if t.dep_ not in ("aux",) or t.lemma_ != "have"]
            if did:
                after = [t for t in body if subject is None or t.i > subject.i]
                text = f"{SUBJECT_MARK}: the agent {joined(after)}"
            else:
                text = f"{SUBJECT_MARK}: {joined(body)}"
            text = re.sub(r"\b(?:I|I've|I'm)\b", "the agent", text)
            text = re.sub(r"\byour\b", "the project's", text)
            if len(text.split()) <= 40:
                facts.append(
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
                )
        return facts

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


_EXCEPTION = re.compile(
    r"\b(?:except|exception|excepting|apart\s+from|other\s+than|odd\s+one\s+out|the\s+one\s+place|"
    r"caveat|the\s+only\s+place|only\s+(?:the|in|for)\b|is\s+different|are\s+different|'s\s+different|differs)"
)
# "though", "tho", "still" mark an exception only beside what it is limited to ("for tax stuff, though")
_SOFT_EXCEPTION = re.compile(r"\b(?:tho|though|although|however|still)\b")
_EXCEPTION_LEAD = re.compile(
    r"^(?:(?:one|small|only|the\s+only|big)\s+)?(?:exception|caveat)s?\s*(?:to\s+that|is)?\s*[:,\u2014\u2013-]?\s*|"
    r"^(?:but|although|though|however|heads\s+up)\s*[:,\u2014\u2013-]?\s*",
    re.I,
)


def _exception_scope(sent: Span) -> str | None:
    """What an exception is limited to: the words after "except (for|in)", or the subject of "is the
    odd one out" / "is different"."""
    tokens = list(sent)
    for n, token in enumerate(tokens):
        if token.lower_ in ("except", "excepting") or (token.lower_ == "apart" and n + 1 < len(tokens)):
            words = []
            for t in tokens[n + 1 :]:
                if t.is_punct or t.lower_ in ("which", "where", "those", "that", "there", "because", "since"):
                    break
                if t.lower_ in ("for", "in", "from", "the", "of") and not words:
                    continue
                words.append(t)
                if len(words) >= 5:
                    break
            if words:
                return joined(words)
    root = sent.root
    subject = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if subject is not None and subject.lower_ not in _DEICTIC and subject.pos_ != "PRON":
        return joined([t for t in subject.subtree if t.dep_ != "det"])
    return None


# In a rule, the user the rule speaks of: "without asking me first" -> "without asking the user first".
_THIRD_PERSON = {
    "me": "the user",
    "my": "the user's",
    "i": "the user",
    "i'm": "the user is",
    "myself": "the user",
    "we": "the team",
    "us": "the team",
    "our": "the team's",
}
_FIRST_PERSON_WORDS = re.compile(r"(?<![\w'])(?:me|my|i|i'm|myself|we|us|our)(?![\w'])", re.I)


def _fill(template: str, value: str) -> str:
    return template.replace("{value}", value).replace("{subject}", SUBJECT_MARK)


def _clause_head_of(marker: Token) -> Token:
    """The verb a "before ..." modifier belongs to: "run X before you push" -> "run"."""
    head = marker.head
    if marker.dep_ == "mark" and head.dep_ == "advcl":
        return head.head  # "before you push" is a clause of its own, hanging from "run"
    while head.pos_ not in ("VERB", "AUX") and head.head.i != head.i:
        head = head.head
    return head


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


def _version_in(clause: Clause, span: Span) -> str | None:
    """The version a clause gives a language named as "the X version": "to 3.13", "is 3.12"."""
    if span.root.head.lemma_.lower() != "version":
        return None
    for token in clause.tokens:
        if token.i > span.end and VERSION.match(token.text) and any(ch.isdigit() for ch in token.text):
            if token.head.lower_ in ("to", "is", "be", "at", "on") or token.dep_ in ("attr", "pobj", "dobj"):
                return str(token.text)
    return None


def _clausal(piece: Span) -> bool:
    """A piece that is a clause, not an item: it has a subject or a modal, or it opens with a verb
    that takes an object ("call me Sam", "generate a Dockerfile", "try running npm install")."""
    inside = range(piece.start, piece.end)
    if any(t.text in (":", "=", "->", "=>") for t in piece[:4]):
        return False  # "deploy = ./scripts/deploy.sh": a labeled note
    if any(t.dep_ in ("nsubj", "nsubjpass") and t.head.i in inside for t in piece):
        return True
    if any(t.tag_ == "MD" for t in piece):
        return True
    first = next((t for t in piece if not t.is_punct), None)
    if first is None or first._.tech is not None or first.pos_ != "VERB" or first.tag_ not in ("VB", "VBP"):
        return False
    return any(
        c.dep_ in ("dobj", "xcomp", "ccomp", "dative") or c.lower_ in ("me", "it", "this")
        for c in first.children
    )


def _object_of(token: Token, head: Token) -> bool:
    while token.dep_ == "conj" and token.head.i != token.i:
        token = token.head
    return token.head.i == head.i


def _quoted(span: Span) -> bool:
    """ "\"We use yarn\" is what the old README said": words in quotes are someone else's."""
    before = span.doc[span.sent.start : span.start].text
    return before.count('"') % 2 == 1 or before.count("\u201c") > before.count("\u201d")


def _contiguous(clause: Clause) -> list[Token]:
    """A clause's words from its first to its last, nested clauses inside it included, later
    clauses of the sentence not."""
    doc = clause.head.doc
    end = clause.end
    for child in clause.children:
        if child.head.dep_ not in ("conj", "parataxis"):
            end = max(end, child.end)  # "squash commits when merging": what it is said of goes with it
    for child in clause.children:
        if child.start > clause.head.i and child.head.dep_ in ("conj", "parataxis"):
            end = min(end, child.start)
    start = min(
        [clause.start, *(c.start for c in clause.children if c.head.dep_ not in ("conj", "parataxis"))]
    )
    return [t for t in doc[start:end] if not t.is_space]


def _has_to(head: Token) -> bool:
    """ "branch names have to be ...", "PRs need to pass CI": an obligation without a modal."""
    if head.dep_ == "xcomp" and head.head.lemma_ in ("have", "need", "got"):
        return True
    return head.lemma_ in ("have", "need") and any(c.dep_ == "xcomp" and c.i > head.i for c in head.children)


def _name_like(token: Token) -> bool:
    """A product's name, not a common noun phrase: no article, a proper noun, or a coined word."""
    if any(c.dep_ in ("det", "poss", "nummod") for c in token.children):
        return False
    if token.pos_ in ("PRON", "VERB", "NUM") or token.is_stop:
        return False
    if token.pos_ in ("ADJ", "ADV"):
        # an unknown name is often tagged as anything: "we use quokkadb for caching"
        return token.dep_ in ("dobj", "pobj", "attr") and token.is_alpha and len(token.text) > 3
    text = token.text
    if token.pos_ == "PROPN" or any(ch.isupper() for ch in text[1:]) or any(ch.isdigit() for ch in text):
        return True
    return token.pos_ == "NOUN" and not token.lower_.endswith(("s", "ing", "tion", "ment"))


def _condition(clause: Clause) -> bool:
    """ "when i touch a readme", "while I was at it": a clause that sets a time or condition."""
    marks = ("when", "whenever", "while", "if", "until", "before", "after", "once", "unless")
    return clause.head.dep_ == "advcl" and any(
        c.dep_ == "mark" and c.lower_ in marks for c in clause.head.children
    )


def _after_subject(clause: Clause) -> list[Token]:
    subject = clause.subject
    if subject is None:
        return trim(clause.tokens)
    return [t for t in trim(clause.tokens) if t.i > subject.i]


def _without_please(tokens: list[Token]) -> list[Token]:
    return trim([t for t in tokens if t.lower_ not in ("please", "pls", "plz", "kindly")])


def _named(span: Span) -> str:
    text = str(span.text)
    if span._.version:
        text = f"{text} {span._.version}"
    return text


def _fold(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:40] or "value"


def joined(tokens: list[Token]) -> str:
    """Tokens as text: their own spacing where they touch, a space where words were left out."""
    out = ""
    for n, token in enumerate(tokens):
        out += token.text
        if n + 1 < len(tokens):
            out += token.whitespace_ if tokens[n + 1].i == token.i + 1 else " "
    return out.strip()


def _value_of(token: Token, how: str) -> str:
    """The words of a value: a name with its parts, a role without its article, a phrase."""
    if how == "token":
        return str(token.text)
    if how == "name":
        parts = [
            token,
            *(
                t
                for t in token.children
                if t.dep_ in ("compound", "flat") and t.pos_ in ("PROPN", "NOUN", "X")
            ),
        ]
        names = [c for c in token.children if c.dep_ == "conj" and c.pos_ == "PROPN"]
        if names and any(c.dep_ == "cc" for c in token.children):
            parts += [*names, *(c for c in token.children if c.dep_ == "cc")]
        return joined(sorted(parts, key=lambda t: t.i))
    if how == "role":
        return joined(
            [t for t in token.subtree if t.i <= token.i and t.dep_ not in ("det", "poss", "predet")]
        )
    parts = [
        t
        for t in token.subtree
        if t.dep_ not in ("relcl", "appos")
        and not (t.dep_ == "det" and t.i == token.left_edge.i and t.lower_ == "the")
    ]
    while parts and parts[-1].is_punct:
        parts.pop()
    while parts and parts[0].is_punct:
        parts.pop(0)
    return joined(parts)


def _pieces(sent: Span, cut_plus: bool = True, cut_colon: bool = False) -> list[Span]:
    """A telegraphic line cut at commas, semicolons, slashes and pluses between items."""
    pieces = []
    start = sent.start
    cuts = (",", ";", "|", "+", "/", "&", "·", "\u2014", "\u2013") if cut_plus else (",", ";", "|", "\u2014", "\u2013")
    if cut_colon:
        cuts = (*cuts, ":")
    doc = sent.doc
    for token in sent:
        glued = (
            token.text in ("/", "+")
            and token.i > 0
            and not doc[token.i - 1].whitespace_
            and not token.whitespace_
        )
        if (token.text in cuts and not glued) or (token.text == "-" and token.whitespace_):
            if token.i > start:
                pieces.append(sent.doc[start : token.i])
            start = token.i + 1
    if start < sent.end:
        pieces.append(sent.doc[start : sent.end])
    return [p for p in pieces if len(p)]
