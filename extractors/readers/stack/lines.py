"""Telegraphic lines: "db: postgres 16", "ci = buildkite", "next 14 / tailwind / supabase, deployed on
vercel", "pre-PR checklist: make lint": the items of a line, each without a clause of its own."""

from __future__ import annotations

import re
from dataclasses import dataclass

from extractors.clauses import Clause
from extractors.clauses.model import PLEASE
from extractors.readers.common import (
    PERSONAL_LABELS,
    PURPOSE_WORDS,
    Fact,
    Span,
    Token,
    check_fact,
    checkpoint_after,
    checkpoint_in,
    command_fact,
    labeled_purpose,
    named_not_run,
    pieces,
    slug,
)
from extractors.readers.stack.names import NameReader
from extractors.readers.stack.products import fill
from extractors.readers.stack.settings import SettingReader
from extractors.render import plain
from extractors.shell import Command

_SEPARATORS = frozenset({":", "=", "-", "\u2013", "\u2014", "->", "=>"})


# words of the trade no dictionary lists, which name no product: "package manager AND runtime"
_TRADE = frozenset(
    {"runtime", "auth", "backend", "frontend", "infra", "devops", "config", "stack", "monorepo"}
)


@dataclass(frozen=True, slots=True)
class _Label:
    """The label an item opens with ("db:", "favourite editor"), or the one before it carries on."""

    category: str | None
    end: int  # where the value starts
    purpose: str | None  # a command's purpose: "tests: make check"
    carried: bool = False  # "languages: pt-br native, english fluent": the label of the item before


class StackReader(NameReader, SettingReader):
    """What a project (or a user, for their own tools) uses: products in clauses, labeled lines and
    telegraphic rundowns, and names the vocabulary lacks in a slot a sentence names."""

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
        items = list(pieces(sent))
        taken = -1  # the last token a personal label's value took
        chained = False  # the items since the label's own are joined to it by "+"
        for number, piece in enumerate(items):
            if question_from is not None and piece[-1].i >= question_from:
                continue
            if piece[0].i <= taken:
                continue
            piece_commands = [c for c in commands if piece[0].idx <= c.start < piece[-1].idx + len(piece[-1])]
            labeled = self._labeled_commands(piece, piece_commands)
            if labeled:
                facts += labeled
                continue
            label = self._item_label(piece, carried)
            colon = label.end > piece.start and piece.doc[label.end - 1].text in _SEPARATORS
            if label.category in PERSONAL_LABELS and not label.carried and colon:
                # "job: lab tech, water treatment plant (Cali)": what follows the label, up to the next
                # label, is the value, however parsed
                end = sent.end
                for following in items[number + 1 :]:
                    if following.doc[following.start : following.start + 4].text.count(":"):
                        end = following.start
                        break
                taken = end - 1
                facts += self._bare_labeled(label.category, sent.doc[piece.start : end], label)
                continue
            if not self._is_item(piece):
                continue
            before = piece.doc[piece.start - 1] if piece.start > 0 else None
            chained = chained and before is not None and before.text in ("+", "&")
            if label.category is not None and not label.carried and label.end > piece[0].i:
                carried, chained = label.category, True
            facts += self._item(sent, piece, techs, piece_commands, clauses, label, joined=chained)
        return facts

    def _is_item(self, piece: Span) -> bool:
        """Whether a piece of a line is an item: not a clause, nothing unsure, not a rule."""
        if _clausal(piece):
            return False  # a clause: the clause readers take it
        words = [t for t in piece if not t.is_punct]
        if not words or any(self._unsure(t) for t in piece):
            return False
        if any(t.lower_ in self.lex["paste_noun"] for t in words):
            return False  # "terraform plan output": about something pasted, not the stack
        family = self.lex["kin_noun"] | self.lex["pet_noun"]
        if any(_named_one_of(t, family) for t in words):
            return False  # "two dogs, Tofu and Mochi": names of the dogs, not products
        # "no `any` in TS": a rule about the code, read as a rule
        return not (
            words[0].lower_ in ("no", "never", "always", "only")
            or any(t.lower_ in (">", "over", "than") for t in words)
        )

    def _item_label(self, piece: Span, carried: str | None) -> _Label:
        category, end, purpose = self._label(piece)
        colon = next((t.i for t in piece[:6] if t.text in (":", "=")), None)
        if category is not None and colon is not None and colon > end:
            category = None  # "work stack: spring boot": the label is "work stack", which names no slot
        doc = piece.doc
        if category is not None and end < len(doc) and doc[end].lemma_.lower() in self.lex["occupation_noun"]:
            category = None  # "backend dev in Wrocław": what the person is, not the backend
        words = [t for t in piece if not t.is_punct]
        described = bool(words) and words[0].lower_ in ("a", "an", "the")  # ", a surf forecast thing"
        if category is None and purpose is None and carried is not None and len(words) <= 5 and not described:
            return _Label(carried, end, purpose, carried=True)
        return _Label(category, end, purpose)

    def _item(
        self,
        sent: Span,
        piece: Span,
        techs: list[Span],
        commands: list[Command],
        clauses: tuple[Clause, ...],
        label: _Label,
        joined: bool = False,
    ) -> list[Fact]:
        """The facts of one item: a command under its purpose, a value under its label, products.
        ``joined``: the item goes on, after a "+", from the one its label was said in ("queue:
        dramatiq + redis"), not from a later item ("backend is supabase, pnpm + vitest")."""
        category = label.category
        if category == "language" and any(t.lower_ in self.lex["language_name"] for t in piece):
            category = "spoken_language"
        inside = [s for s in techs if piece[0].i <= s.start <= piece[-1].i and s.start >= label.end]
        if label.purpose and commands:
            first = piece.doc.char_span(commands[0].start, commands[0].end, alignment_mode="expand")
            if first is not None and named_not_run(commands[0], first, []):
                return []  # "deploy by pushing to the `production` git remote": a name in backticks
            return [command_fact(commands[0].text, label.purpose, None, plain(list(piece)), "commands.label")]
        if category is None and not inside:
            rundown = any(s for s in techs if sent.start <= s.start < sent.end) or any(
                t.text in ("/", "+") for t in sent
            )
            if any(_says_otherwise(c, piece) for c in clauses):
                return []
            return self._unknown_item(piece, rundown)
        if category is not None:
            person = category in PERSONAL_LABELS
            if not inside or person:
                # "kids: Leo (9) and Ava (6)": under a label of one's life a name is no product
                return self._bare_labeled(category, piece, label)
            if (
                not any(s.label_ == category for s in inside)
                and category != "tool"
                and (not label.carried or joined)
            ):
                # "queue: dramatiq + redis" names products of other kinds under the label's slot (up to
                # an aside: "backend is supabase (auth + postgres)"; a label carried on from an item
                # before names no products of the items after it: "..., pnpm + vitest")
                stop = next((t.i for t in piece if t.i >= label.end and t.text in ("(", ";")), piece.end)
                for span in inside:
                    if span.start < stop and not self.vocab.slot(span.label_).apart:
                        span.label_ = category
        own = category is not None and self.vocab.slot(category).scope == "user"
        pseudo = Clause(
            head=piece[0],
            tokens=list(piece),
            subject=None,
            about="speaker" if own else "project",
            mood="fragment",
        )
        in_sentence = [s for s in techs if sent.start <= s.start < sent.end]
        return self.stack(pseudo, in_sentence, reader="stack.rundown")

    def _bare_labeled(self, category: str, piece: Span, label: _Label) -> list[Fact]:
        """ "db: postgres", but not "backend dev in pune": a value no product names needs a colon."""
        label_end = label.end
        before = piece.doc[label_end - 1] if label_end > piece.start else None
        at = piece.doc[label_end] if label_end < piece.end else None
        marked = (before is not None and (before.text in _SEPARATORS or before.lower_ in ("'s", "is"))) or (
            at is not None and at.lower_ in ("'s", "is")
        )  # "Name's Kwame"
        # "based in gdańsk", "pkg mgr bun", "allergic to peanuts": a label of two words is clear
        spoken = label_end - piece.start >= 2 and before is not None and not before.is_punct
        if marked or spoken or label.carried:
            return self._labeled_value(category, piece, label_end)
        return []

    def _labeled_commands(self, piece: Span, commands: list[Command]) -> list[Fact]:
        """ "pre-PR checklist: make lint", "staging deploy = ./ops/deploy.sh", "local preview: hugo
        server -D": commands under a label that says when or what for."""
        separator = next((t for t in piece[1:8] if t.text in (":", "=", "->", "=>", "\u2192")), None)
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
        # ("coffee: black" is no command: a bare word names one only under a label that says what for)
        bare = all(not (c.arguments or c.quoted) for c in after)
        if bare and self.vocab.category_of_label(" ".join(t.lower_ for t in label)) is not None:
            return []  # "test runner: jest": a product under the label of its slot, not a command
        if (
            not purpose
            and nouns
            and right_after
            and nouns[0].lemma_.isalpha()
            and not bare
            and nouns[0].lower_ not in _ANNOUNCING_LABELS
        ):
            purpose = nouns[0].lemma_.lower()  # (but "correction: `./deploy.sh` is deprecated" names none)
        facts = []
        spans = [piece.doc.char_span(c.start, c.end, alignment_mode="expand") for c in commands]
        for command in after:
            placed = piece.doc.char_span(command.start, command.end, alignment_mode="expand")
            if placed is not None and named_not_run(command, placed, [s for s in spans if s is not None]):
                continue  # "php: composer test runs phpunit": what the command runs is no command
            # (the label right before the separator is the piece's own: "e2e tests: npx playwright test")
            given = placed is not None and placed.start - 1 != separator.i
            own = labeled_purpose(piece.doc, placed.start) if given else None
            if own not in (None, purpose):
                continue  # "we build with bazel: bazel build //... and tests are bazel test //...": its own
            if checkpoint:
                facts.append(check_fact(command.text, checkpoint, text, separator.i, "commands.label"))
            elif purpose:
                facts.append(command_fact(command.text, purpose, None, text, "commands.label"))
        return facts

    def _labeled_value(self, category: str, piece: Span, start: int) -> list[Fact]:
        """ "queue: dramatiq", "hobbies: bouldering": a value the vocabulary does not know, under a label."""
        value = plain([t for t in piece if t.i >= start and not (t.i == start and t.lower_ in ("'s", "is"))])
        longest = 10 if category in PERSONAL_LABELS else 6  # "job: ml eng at a fintech in tokyo"
        if not value or len(value.split()) > longest:
            return []
        if category not in PERSONAL_LABELS and re.fullmatch(r"[vV]?\d[\w.]*", value):
            return []  # "infra: tf 1.7": a version left over from a name the vocabulary lacks
        spec = self.vocab.slot(category)
        said = [t for t in piece if t.i >= start and not t.is_punct and t.pos_ != "CCONJ"]
        separated = start > 0 and piece.doc[start - 1].text in _SEPARATORS  # "orm: ent", "router = chi"
        if spec.scope == "user" and (
            any(t.lower_ in ("pls", "please", "plz") for t in said)
            or (len(said) > 2 and said[0].tag_ == "VB")
        ):
            return []  # "allergic to peanuts, pls remember when suggesting recipes": a request, not a value
        if spec.scope == "user" and len(said) == 1 and said[0].is_lower and said[0].lower_.endswith("ly"):
            return []  # "allergic to tree nuts (not peanuts, weirdly)": a comment, not a value
        if spec.scope == "project" and not self._names_a_product(said, separated):
            return []  # "package manager AND runtime", "metrics ..., roughly 2B rows now": no name
        return [
            Fact(
                kind="semantic",
                scope=spec.scope,
                key=spec.key if spec.single else f"{spec.key}:{slug(value)}",
                value=value,
                text=fill(spec.template(), value),
                span=plain(list(piece)),
                reader="stack.label",
                confidence=0.8,
                anchor=start,
                category=category,
            )
        ]

    def _names_a_product(self, said: list[Token], separated: bool) -> bool:
        """A name the vocabulary lacks, said under a stack label: a few words, no adverb or verb,
        not only words of English ("dramatiq", "flagpole", "Lantern"; not "runtime", "auth"), unless
        the label is set off ("orm: ent", "router = chi")."""
        if not said or len(said) > 4:
            return False
        if any(t.pos_ in ("ADV", "AUX", "PRON", "DET", "SCONJ", "ADP") for t in said):
            return False
        if separated:
            return True
        common = self.known_words | self.lex["code_noun"] | self.lex["project_noun"] | _TRADE
        return not all(t.is_lower and (t.lower_ in common or t.lemma_.lower() in common) for t in said)

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
            if nxt.text in ("'s", "\u2019s"):
                continue  # "children's librarian": whose, not a label
            separated = nxt.text in (":", "=", "-", "\u2013", "\u2014", "->", "=>")
            start = tokens[size + 1].i if separated and len(tokens) > size + 1 else nxt.i
            # "to release: tag, push the tag, ...": how to do it, steps or commands, not a slot's name
            category = (
                None
                if tokens[0].i > piece.start and piece[0].lower_ in ("run", "to")
                else (self.vocab.category_of_label(words))
            )
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


def _says_otherwise(clause: Clause, piece: Span) -> bool:
    """Whether a clause the piece belongs to makes it someone else's, asked, denied or wished:
    "my coworker swears by neovim + lazy.nvim" (unless the piece is what the clause is about)."""
    root = piece.root
    if not clause.has(root) or (clause.subject is not None and clause.subject.i == root.i):
        return False
    return clause.about in ("third", "you") or clause.negated or not clause.asserted


_JOB_MOVES = frozenset({"start", "join", "leave", "quit", "begin"})


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
    # "please stop suggesting jquery", "dont suggest X": a request, however it opens
    first = next((t for t in piece if not t.is_punct and t.lower_ not in _OPENERS), None)
    if first is not None and first.tag_ == "VBD" and first.lemma_.lower() in _JOB_MOVES:
        return True  # "left stripe, started at Datadog on monday": a job changed, not a rundown
    if first is None or first._.tech is not None or first.pos_ != "VERB" or first.tag_ not in ("VB", "VBP"):
        return False
    return any(
        c.dep_ in ("dobj", "xcomp", "ccomp", "dative") or c.lower_ in ("me", "it", "this")
        for c in first.children
    )


_OPENERS = PLEASE | {"dont", "don't", "do", "n't", "never", "always", "just", "also", "ever"}


def _named_one_of(token: Token, family: frozenset[str]) -> bool:
    """A name said in apposition to kin or pets ("my kids, Ava and Leo"), or joined to one that is."""
    if token.pos_ != "PROPN":
        return False
    while token.dep_ == "conj" and token.head.i != token.i:
        token = token.head
    return token.pos_ == "PROPN" and token.dep_ == "appos" and token.head.lemma_.lower() in family


# labels that announce what follows rather than name what a command is for
_ANNOUNCING_LABELS = frozenset(
    {"correction", "update", "note", "fyi", "edit", "ps", "reminder", "heads", "context", "question", "tip"}
)
