"""Stack facts: what a project uses ("we're on rails 7 w/ sidekiq", "db: postgres 16", "next 14 /
tailwind / supabase"); "switched from X to Y" keeps X as the value replaced; a name the vocabulary
lacks still fills the slot its sentence names ("our feature flags come from flagpole")."""

from __future__ import annotations

import re

from extractors.clauses import Clause
from extractors.readers.common import (
    PURPOSE_WORDS,
    Fact,
    ReaderBase,
    Span,
    Token,
    check_fact,
    checkpoint_after,
    checkpoint_in,
    command_fact,
    pieces,
    slug,
    value_of,
)
from extractors.render import SUBJECT_MARK, plain
from extractors.shell import Command
from extractors.vocabulary import VERSION

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


class StackReader(ReaderBase):
    """What a project (or a user, for their own tools) uses: products in clauses,
    labeled lines and telegraphic rundowns, and names the vocabulary lacks in a slot a sentence names."""

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
        mine = [
            s
            for s in techs
            if (clause.has(s.root) or clause.has(s[0]))
            # in a rundown's item the parse across items means nothing: "swift 5.10 / swiftui / TCA"
            and not (self._modifier(s) and (clause.mood != "fragment" or clause.has(s.root.head)))
        ]
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
        subject = clause.subject
        if (
            subject is not None
            and clause.about == "project"
            and clause.head.lemma_ == "be"
            and subject.lemma_.lower() not in self.lex["project_noun"]
        ):
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
                slug(span.kb_id_.lower().replace(".js", "").replace(".net", "dotnet")).replace("_", "")
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
            key = spec.key if spec.single else f"{spec.key}:{slug(group[0].kb_id_)}"
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
        if root.dep_ == "conj" and root.head.i != root.i and root.head._.tech is not None:
            return self._gone(span.doc[root.head.i : root.head.i + 1])  # "ripped out Mocha and Chai"
        leave = lex["drop_verb"] | {
            "cut",
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
        name = value_of(value, "name")
        return [
            Fact(
                kind="semantic",
                scope="project",
                key=spec.key if spec.single else f"{spec.key}:{slug(name)}",
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

    def telegraphic(
        self,
        sent: Span,
        techs: list[Span],
        commands: list[Command],
        question_from: int | None = None,
        clauses: tuple[Clause, ...] = (),
    ) -> list[Fact]:
        """ "db: postgres 16", "ci = buildkite", "next 14 / tailwind / supabase, deployed on vercel":
        the items of a line, each without a clause of its own."""
        facts: list[Fact] = []
        carried: str | None = None  # "languages: pt-br native, english fluent": the label goes on
        for piece in pieces(sent):
            if question_from is not None and piece[-1].i >= question_from:
                continue
            piece_commands = [c for c in commands if piece[0].idx <= c.start < piece[-1].idx + len(piece[-1])]
            labeled = self._labeled_commands(piece, piece_commands)
            if labeled:
                facts += labeled
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
            from_carry = False
            if label_category is None and purpose is None and carried is not None and len(words) <= 5:
                label_category, from_carry = carried, True
            elif label_category is not None and label_end > piece[0].i:
                carried = label_category
            if label_category == "language" and any(t.lower_ in self.lex["language_name"] for t in piece):
                label_category = "spoken_language"
            inside = [s for s in techs if piece[0].i <= s.start <= piece[-1].i and s.start >= label_end]
            if purpose and piece_commands:
                command = piece_commands[0]
                facts.append(command_fact(command.text, purpose, None, plain(list(piece)), "commands.label"))
                continue
            if label_category is None and not inside:
                rundown = any(s for s in techs if sent.start <= s.start < sent.end) or any(
                    t.text in ("/", "+") for t in sent
                )
                if not any(_says_otherwise(c, piece) for c in clauses):
                    facts += self._unknown_item(piece, rundown)
                continue
            if label_category is not None:
                matching = [s for s in inside if s.label_ == label_category]
                if not inside:
                    # "db: postgres", but not "backend dev in pune": a value no product names needs a colon
                    before = piece.doc[label_end - 1] if label_end > piece.start else None
                    at = piece.doc[label_end] if label_end < piece.end else None
                    marked = (
                        before is not None and (before.text in _SEPARATORS or before.lower_ in ("'s", "is"))
                    ) or (at is not None and at.lower_ in ("'s", "is"))  # "Name's Kwame"
                    # "based in gdańsk", "pkg mgr bun", "allergic to peanuts": a label of two words is clear
                    spoken = label_end - piece.start >= 2 and before is not None and not before.is_punct
                    if marked or spoken or from_carry:
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

    def _unknown_item(self, piece: Span, rundown: bool) -> list[Fact]:
        """An item the vocabulary lacks: "Riverpod for state management", "TCA for state", or, among
        other products, a coined name alone ("loom + gradle", "esp-hal, no_std")."""
        if any(t.text in (":", "=") for t in piece):
            return []  # "repo: ledger-svc": a label the vocabulary does not know names something else
        words = [t for t in piece if not t.is_punct]
        while words and words[0].lower_ in ("and", "with", "w", "plus", "also", "then", "using"):
            words = words[1:]
        if any(t.lower_ in self.lex["discourse_marker"] for t in words):
            return []  # "Hallo, I am Jürgen": a greeting, not a tool
        if not words or words[0].i > piece.start + 3:
            return []
        cut = next((n for n, t in enumerate(words) if t.lower_ == "for"), len(words))
        name, purpose = words[:cut], words[cut + 1 :]
        if not 1 <= len(name) <= 3 or not all(self._name_part(t) for t in name):
            return []
        if any(_SOURCE_FILE.search(t.text) for t in name):
            return []  # "foo.test.ts": a file, not a product
        value = piece.doc[name[0].i : name[-1].i + 1].text  # as written: "@wordpress/env", "esp-hal"
        glued = " " not in value and any(ch in value for ch in "-_") and value.lower() not in self.known_words
        coined = glued or any(self._coined(t) for t in name)
        if not coined and not any(t.pos_ == "PROPN" for t in name):
            return []
        category = None
        if purpose:
            purpose = [t for t in purpose if t.pos_ != "DET"]
            category = self.vocab.category_of_label(" ".join(t.lower_ for t in purpose)) or next(
                (c for t in purpose if (c := self.vocab.category_of_label(t.lower_))), None
            )
        elif not rundown or not coined:
            return []
        if category is not None and self.vocab.slot(category).scope == "project" and category != "tool":
            spec = self.vocab.slot(category)
            key = spec.key if spec.single else f"{spec.key}:{slug(value)}"
            text = _fill(spec.template(), value)
        else:
            key = f"tool:{slug(value)}"
            text = (
                f"{SUBJECT_MARK} uses {value} for {plain(purpose)}."
                if purpose
                else f"{SUBJECT_MARK} uses {value}."
            )
        return [
            Fact(
                kind="semantic",
                scope="project",
                key=key,
                value=value,
                text=text,
                span=plain(list(piece)),
                reader="stack.unknown",
                confidence=0.7,
                anchor=name[0].i,
                category=category,
            )
        ]

    def _coined(self, token: Token) -> bool:
        """A word no dictionary of English has: "tuist", "espflash", "zigbee2mqtt", "esp-hal"."""
        text = token.text
        if any(ch.isdigit() for ch in text) and any(ch.isalpha() for ch in text):
            return True
        parts = [p for p in re.split(r"[-_.@/]", text.lower()) if p]
        return (
            bool(self.known_words)
            and bool(parts)
            and any(p.isalpha() and p not in self.known_words for p in parts)
        )

    @staticmethod
    def _name_part(token: Token) -> bool:
        return token.pos_ not in (
            "PRON",
            "DET",
            "VERB",
            "AUX",
            "ADP",
            "CCONJ",
            "SCONJ",
            "PART",
            "INTJ",
        ) and not (token.is_stop and token.pos_ != "PROPN")

    @staticmethod
    def _labeled_commands(piece: Span, commands: list[Command]) -> list[Fact]:
        """ "pre-PR checklist: make lint", "staging deploy = ./ops/deploy.sh", "local preview: hugo
        server -D": commands under a label that says when or what for."""
        separator = next((t for t in piece[1:8] if t.text in (":", "=", "->", "=>")), None)
        if separator is None:
            return []
        after = [c for c in commands if c.start > separator.idx]
        label = [t for t in piece if t.i < separator.i and not t.is_punct]
        if not after or not label:
            return []
        text = plain(list(piece))
        before = next((t for t in label if t.lower_ in ("before", "prior")), None)
        checkpoint = checkpoint_in(" ".join(t.text for t in label)) or (
            checkpoint_after(before) if before is not None else None
        )
        purpose = next(
            (
                PURPOSE_WORDS.get(t.lower_) or PURPOSE_WORDS.get(t.lemma_.lower())
                for t in label
                if PURPOSE_WORDS.get(t.lower_) or PURPOSE_WORDS.get(t.lemma_.lower())
            ),
            None,
        )
        nouns = [t for t in label if t.pos_ in ("NOUN", "PROPN", "VERB") and t.is_alpha]
        # "local preview of the blog: hugo server -D": the label names the purpose when a command is
        # all that follows it (not "style thing: prefer X over `case`")
        right_after = all(c.start <= separator.idx + 3 for c in after[:1])
        if not purpose and nouns and right_after and nouns[0].lemma_.isalpha():
            purpose = nouns[0].lemma_.lower()
        facts = []
        for command in after:
            if checkpoint:
                facts.append(check_fact(command.text, checkpoint, text, separator.i, "commands.label"))
            elif purpose:
                facts.append(command_fact(command.text, purpose, None, text, "commands.label"))
        return facts

    def _labeled_value(self, category: str, piece: Span, start: int) -> list[Fact]:
        """ "queue: dramatiq", "hobbies: bouldering": a value the vocabulary does not know, under a label."""
        value = plain([t for t in piece if t.i >= start and not (t.i == start and t.lower_ in ("'s", "is"))])
        if not value or len(value.split()) > 6:
            return []
        spec = self.vocab.slot(category)
        return [
            Fact(
                kind="semantic",
                scope=spec.scope,
                key=spec.key if spec.single else f"{spec.key}:{slug(value)}",
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
            purpose = PURPOSE_WORDS.get(words) if size == 1 else None
            if words in ("test command", "build command", "lint command", "deploy command", "tests command"):
                purpose = PURPOSE_WORDS.get(words.split()[0])
            # a piece that opens with a label: "ci on bitrise", but "home brewing" is not "home: brewing"
            first = tokens[0].i == piece.sent.start or (
                tokens[0].i == piece.start
                and category is not None
                and not (
                    size == 1
                    and self.vocab.slot(category).scope == "user"
                    and nxt.pos_ in ("NOUN", "VERB")
                    and nxt._.tech is None
                )
            )
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


_SEPARATORS = frozenset({":", "=", "-", "\u2013", "\u2014", "->", "=>"})
_SOURCE_FILE = re.compile(
    r"\.(?:tsx?|jsx?|py|go|rs|rb|java|kt|swift|md|json|ya?ml|toml|txt|html?|css|scss|sh|cfg|ini|lock|sql|"
    r"c|h|cpp|hpp|cs|php|ex|exs|ml|hs|lua|vue|svelte|env|conf|xml|csv|ipynb|gradle|tf)$",
    re.I,
)


def _says_otherwise(clause: Clause, piece: Span) -> bool:
    """Whether a clause the piece belongs to makes it someone else's, asked, denied or wished:
    "my coworker swears by neovim + lazy.nvim" (unless the piece is what the clause is about)."""
    root = piece.root
    if not clause.has(root) or (clause.subject is not None and clause.subject.i == root.i):
        return False
    return clause.about in ("third", "you") or clause.negated or not clause.asserted


def _object_of(token: Token, head: Token) -> bool:
    while token.dep_ == "conj" and token.head.i != token.i:
        token = token.head
    return bool(token.head.i == head.i)


def _quoted(span: Span) -> bool:
    """ "\"We use yarn\" is what the old README said": words in quotes are someone else's."""
    before = span.doc[span.sent.start : span.start].text
    return bool(before.count('"') % 2 == 1 or before.count("\u201c") > before.count("\u201d"))


def _version_in(clause: Clause, span: Span) -> str | None:
    """The version a clause gives a language named as "the X version": "to 3.13", "is 3.12"."""
    if span.root.head.lemma_.lower() != "version":
        return None
    for token in clause.tokens:
        digits = any(ch.isdigit() for ch in token.text)
        versioned = token.i > span.end and VERSION.match(token.text) and digits
        if versioned and (
            token.head.lower_ in ("to", "is", "be", "at", "on") or token.dep_ in ("attr", "pobj", "dobj")
        ):
            return str(token.text)
    return None


def _fold(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def _named(span: Span) -> str:
    text = str(span.text)
    if span._.version:
        text = f"{text} {span._.version}"
    return text


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


def _clausal(piece: Span) -> bool:
    """A piece that is a clause, not an item: it has a subject or a modal, or it opens with a verb
    that takes an object ("call me Sam", "generate a Dockerfile", "try running npm install")."""
    inside = range(piece.start, piece.end)
    colon = next((t for t in piece[:4] if t.text in (":", "=", "->", "=>")), None)
    if colon is not None:
        # "deploy = ./scripts/deploy.sh": a labeled note; "context: i work at Klarna": a clause
        return any(t.dep_ in ("nsubj", "nsubjpass") and t.i > colon.i and t.head.i in inside for t in piece)
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


def _fill(template: str, value: str) -> str:
    return template.replace("{value}", value).replace("{subject}", SUBJECT_MARK)
