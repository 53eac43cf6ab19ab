"""Products in clauses: "we're on rails 7 w/ sidekiq"; "switched from X to Y" keeps X as the value
replaced, "use pnpm, not npm" keeps npm as the alternative named."""

from __future__ import annotations

import re
from itertools import pairwise

from extractors.clauses import Clause
from extractors.clauses.model import in_quotes
from extractors.folds import guessed_aside
from extractors.readers.common import PERSONAL_LABELS, TITLES, Fact, Span, Token, slug
from extractors.readers.stack.superseded import SupersededProducts
from extractors.readers.stack.versions import upgraded_to, version_fact, versioned
from extractors.render import SUBJECT_MARK, plain
from extractors.vocabulary import SlotSpec, label_words

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
        "upgrade",
        "downgrade",
        "bump",
        "replace",
        "swap",
        "port",
        "rewrite",
        "convert",
        # what one does with a tool named beside it: "I do my analysis in R 4.3", "we track it in Jira"
        "do",
        "analyse",
        "analyze",
        "model",
        "script",
        "query",
        "process",
        "plot",
        "store",
        "keep",
        "track",
        "train",
        "push",
        "bundle",
        "package",
    ]
)


# a product named by its file: ".gitlab-ci.yml", "Jenkinsfile", "docker-compose.yml"
_FILE_NAME = re.compile(r"^\.|\.(?:ya?ml|json|toml|lock|cfg|ini|xml)$|file$", re.I)

_TIMES = frozenset(
    {"week", "weekend", "month", "year", "night", "sprint", "quarter", "day", "time", "summer", "winter"}
)


def _meant(clause: Clause) -> bool:
    """ "i meant python 3.12": a correction that names the value itself (not "I meant to use X")."""
    head = clause.head
    return (
        head.lemma_.lower() == "mean"
        and head.tag_ == "VBD"
        and clause.subject is not None
        and clause.subject.lower_ == "i"
        and (
            (
                any(c.dep_ in ("dobj", "attr", "npadvmod") for c in head.children)
                and not any(c.dep_ in ("xcomp", "ccomp") for c in head.children)
            )
            # "i meant pnpm not npm", parsed as a clause whose verb is the product denied
            or any(
                c.dep_ == "ccomp" and c._.tech is not None and any(g.dep_ == "neg" for g in c.children)
                for c in head.children
            )
        )
    )


class ProductReader(SupersededProducts):
    """What a project (or a user, for their own tools) uses, from the products its clauses name."""

    def states_stack(self, clause: Clause) -> bool:
        """Whether a clause can say what the project (or the user, for their own tools) uses."""
        if clause.about in ("third", "you", "family", "pet", "speaker_thing") or not clause.asserted:
            return False
        head = clause.head
        if _meant(clause):
            return True  # "sorry i meant python 3.12 not 3.11": the value said again, as it is
        if clause.about in ("speaker", "implied"):
            if head.lemma_.lower() not in _TOOL_VERBS:
                return False  # "I work at Razorpay", "I'm teaching myself Python": not the stack
            preps = {c.lower_ for c in head.children if c.dep_ == "prep"}
            if head.lemma_ == "work" and not preps & {"with", "in", "on"}:
                return False
            if head.lemma_ == "be" and not preps & {"on", "using"}:
                return False  # "I'm at Klarna now": where they work, not what they use
        if clause.mood == "imperative":
            return head.lemma_ in ("use", "stick", "prefer") or head.lemma_ in _WRITING
        tokens = clause.tokens
        if (
            len(tokens) > 2
            and tokens[1].text == ":"
            and self.vocab.category_of_label(tokens[0].lower_) in PERSONAL_LABELS
        ):
            return False  # "kids: Leo and Ava": the label reader's, and no product
        return clause.mood in ("statement", "fragment")

    def stack(self, clause: Clause, techs: list[Span], reader: str = "stack.clause") -> list[Fact]:
        """Products a clause says the project uses (or the user, for their own tools)."""
        mine = self._said_in(clause, techs)
        if _meant(clause):  # "i meant postgres 14 not 16, the RDS instance is ancient": the one meant
            # (however the parser hangs "i meant vitest not jest": the one not denied)
            meant = [s for s in mine if s.start > clause.head.i and not self._is_other(s)]
            mine = meant[:1] or [s for s in mine if s.root.head.i == clause.head.i]
        if not mine:
            return []
        if (
            clause.tense == "past"
            and clause.head.lemma_.lower() not in self._changes
            and clause.mood != "fragment"
            and not _meant(clause)
        ):
            return []  # "we used Jest back then": not what it uses now
        sentence_techs = [s for s in techs if s.sent.start == clause.head.sent.start]
        gone = [s for s in sentence_techs if self._gone(s)]
        previous = [s for s in mine if self._is_previous(s, clause)] + [s for s in gone if s not in mine]
        # "use yarn, not npm": the named alternative, anywhere in the sentence
        others = [s for s in sentence_techs if s not in previous and self._is_other(s)]
        current = [
            s
            for s in mine
            if s not in previous
            and s not in gone
            and s not in others
            and not clause.negated
            and not guessed_aside(s.root, self.lex["hedge"])  # "sqlite (for now, postgres later)"
        ]
        previous += [s for s in gone if s in mine and s not in previous]
        for span in current:
            span._.version = upgraded_to(span) or span._.version  # "Bumped Gradle to 8.7"
        self._name_by_subject(clause, current)
        kinds = {p.label_ for p in previous}
        if len(current) == 1 and len(kinds) == 1 and clause.head.lemma_.lower() in self._changes:
            # "replaced sentry with datadog for error tracking": the new one takes the old one's slot
            (kind,) = kinds
            if current[0].label_ != kind and self.vocab.slot(kind).scope == "project":
                current[0].label_ = kind
        by_category: dict[str, list[Span]] = {}
        for span in current:
            if self.vocab.slot(span.label_).scope == "user" and clause.about not in ("speaker", "implied"):
                continue  # an editor or an OS is the user's own, said as "I use ..."
            by_category.setdefault(span.label_, []).append(span)
        facts: list[Fact] = []
        for category, spans in by_category.items():
            facts.extend(self._product_facts(category, spans, clause, previous, others, reader))
        return facts

    def _said_in(self, clause: Clause, techs: list[Span]) -> list[Span]:
        """The products among a clause's own words that it can say are used."""
        mine = [
            s
            for s in techs
            if (clause.has(s.root) or clause.has(s[0]))
            # ("fails with 'JavaScript heap out of memory'": words of a message quoted, not the stack)
            and not _in_a_quoted_message(s)
            # in a rundown's item the parse across items means nothing: "swift 5.10 / swiftui / TCA"
            and not (self._modifier(s) and (clause.mood != "fragment" or clause.has(s.root.head)))
        ]
        if any(
            t.dep_ == "poss"
            and (t.lower_ in ("their", "his", "her", "your") or t.lemma_.lower() in self.lex["person_noun"])
            for t in clause.tokens
        ):
            return []  # "the vendor's API runs on Java 8", "their frontend is Angular"
        if clause.mood == "imperative":
            # "use pnpm, not npm" names the tool; "use type hints in new Python code" does not
            mine = [
                s
                for s in mine
                if (
                    clause.head.lemma_ not in _WRITING
                    and s.root.dep_ in ("dobj", "conj", "appos")
                    and _object_of(s.root, clause.head)
                )
                or _written_in(s, clause.head)
            ]
        return [
            s
            for s in mine
            if not in_quotes(s[0], single=False) and not _in_a_name(s) and not self._employer(s)
        ]

    def product_meant(self, meant: Fact) -> Fact:
        """The product a correction names when no reader read it from the sentence ("sorry i meant pnpm
        not npm", parsed as a clause of its own), as a fact of its slot."""
        category = meant.category or ""
        spec = self.vocab.slot(category)
        text = fill(spec.template(), meant.value)
        if meant.other:
            text = text[:-1] + f", not {meant.other}."
        return Fact(
            kind="semantic",
            scope=spec.scope,
            key=spec.key if spec.single else f"{spec.key}:{slug(meant.value)}",
            value=meant.value,
            text=text,
            span=meant.span,
            reader="stack.meant",
            confidence=0.8,
            anchor=meant.anchor,
            other=meant.other,
            category=category,
        )

    def _employer(self, span: Span) -> bool:
        """ "Raj, PM at Zendesk", "data engineer @ Spotify": where someone works, not what is used."""
        prep = span.root.head
        if span.root.dep_ != "pobj" or prep.lower_ not in ("at", "@", "for") or prep.head.i == prep.i:
            return False
        occupations = self.lex["occupation_noun"]
        # the word said just before, past an aside: "PM (not a dev) at Zendesk", however parsed
        depth, before = 0, None
        for token in reversed(span.doc[max(0, prep.i - 8) : prep.i]):
            depth += (token.text == ")") - (token.text == "(")
            if depth == 0 and not token.is_punct:
                before = token
                break
        return any(
            t is not None and (t.lower_ in occupations or t.lemma_.lower() in occupations or t.text in TITLES)
            for t in (prep.head, before)
        )

    def _name_by_subject(self, clause: Clause, current: list[Span]) -> None:
        """A clause whose subject names a slot puts its products in that slot."""
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
                said_of = span.root.head if span.root.dep_ != "pobj" else span.root.head.head
                if (
                    span.root.dep_ in ("attr", "dobj", "pobj", "appos")
                    and said_of.i == clause.head.i  # (not "the model is NorESM (Fortran plus some C)")
                    and span.label_ != named
                ):
                    span.label_ = named  # "our package manager is bun now": bun, as the package manager

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
        versions = versioned(category, spans, clause)
        facts = [version_fact(span, category, clause, reader) for span in versions]
        rest = [s for s in spans if s not in versions]
        groups = [rest] if spec.single else [[s] for s in rest]
        for group in groups:
            if group:
                facts.append(_product_fact(spec, category, group, clause, previous, others, reader))
        return facts

    def _project_label(self, noun: Token) -> bool:
        category = self.vocab.category_of_label(label_words(noun))
        return category is not None and self.vocab.slot(category).scope == "project"

    def _modifier(self, span: Span) -> bool:
        """A product that only names something else: "the github API gives me a 401" (unless that
        thing is the project's own: "our postgres database", "the rails app"); a person's name
        ("my wife Hana")."""
        root = span.root
        people = self.lex["kin_noun"] | self.lex["pet_noun"] | self.lex["person_noun"]
        if (
            root.dep_ in ("appos", "compound", "npadvmod")
            and root.head.lemma_.lower() in people
            and not self._project_label(root.head)  # ("package manager: pnpm": a slot of the stack)
        ):
            return True
        if any(c.dep_ in ("appos", "compound") and c.lemma_.lower() in people for c in root.children):
            return True  # (and "our kelpie Ruby", the parser hanging the kind on the name)
        if root.dep_ not in ("compound", "amod", "nmod", "poss") or root.head._.tech is not None:
            return False
        if span._.version is not None and root.head.i == span.end:
            return False  # "next 14 app router": the parser hung the name on its version
        opening = span.end + (1 if span._.version is not None else 0)
        if (
            opening < root.head.i
            and span.doc[opening].text == "("
            and ")" not in {t.text for t in span.doc[opening : root.head.i]}
        ):
            return False  # "yarn 1 (classic)": the parser hung the name on its aside
        noun = root.head.lemma_.lower()
        if noun in ("version", "runtime", "toolchain", "interpreter", "sdk"):
            return False  # "bumped the Python version to 3.13"
        if noun in _TIMES:
            return False  # "replaced celery with dramatiq last week": the parser hung it on the time
        return not (noun in self.lex["project_noun"] or self.vocab.category_of_label(noun) is not None)

    def _label_of(self, noun: Token) -> str | None:
        """The slot a noun names: "feature flags", "the queue driver", "deploys", "our ci"."""
        compounds = [c for c in noun.children if c.dep_ in ("compound", "amod") and c.i < noun.i]
        candidates = []
        if compounds:
            candidates.append(" ".join([*(c.lower_ for c in compounds), noun.lower_]))
        # the noun before what describes it: "our frontend tests" are tests
        candidates += [noun.lower_, noun.lemma_.lower(), *(c.lower_ for c in compounds)]
        for words in candidates:
            category = self.vocab.category_of_label(words)
            if category is not None and category != "tool":
                return category
        return None


def _in_a_quoted_message(span: Span) -> bool:
    """ "fails with 'JavaScript heap out of memory'": a product among the words of a quoted message
    (but "bumped 'Requires PHP' to 8.0": a name quoted)."""
    if not in_quotes(span[0]):
        return False
    sent = span.sent
    marks = [t.i for t in sent if t.text in ("'", '"', "\u2018", "\u2019", "\u201c", "\u201d")]
    opening = max((i for i in marks if i < span.start), default=None)
    closing = min((i for i in marks if i >= span.end), default=sent.end)
    return opening is not None and closing - opening - 1 >= 4


def _joined_as_said(group: list[Span]) -> str:
    """Products of one slot: "postgres and redis", but "rds postgres" as written, one thing said in
    two names with nothing between them."""
    value = named(group[0])
    for before, span in pairwise(group):
        value += (" " if span.start == before.end else " and ") + named(span)
    return value


def _product_fact(
    spec: SlotSpec,
    category: str,
    group: list[Span],
    clause: Clause,
    previous: list[Span],
    others: list[Span],
    reader: str,
) -> Fact:
    """One fact for products of one slot: the value, the value it replaced, the alternative named."""
    value = _joined_as_said(group)
    canonical = [s.kb_id_ for s in group if _fold(s.kb_id_) not in _fold(named(s))]
    shown = f"{value} ({', '.join(canonical)})" if canonical else value
    if len(group) == 1 and _FILE_NAME.search(value) and _fold(group[0].kb_id_) != _fold(value):
        shown = f"{group[0].kb_id_} ({value})"  # ".gitlab-ci.yml": the product, by the file that names it
    text = fill(spec.template(), shown)
    same = [p for p in previous if p.label_ == category]
    other = [o for o in others if o.label_ == category]
    previous_value = named(same[0]) if same else None
    if other and not previous_value:
        text = text[:-1] + f", not {named(other[0])}."
    # "swapped the esp8266 for an esp32-c3": the new one takes the slot of the one it replaced
    key = spec.key if spec.single else f"{spec.key}:{slug((same[0] if same else group[0]).kb_id_)}"
    return Fact(
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
        previous_text=fill(spec.template(), previous_value) if previous_value else None,
        other=named(other[0]) if other else None,
        category=category,
    )


# "write the examples in Kotlin, not Java": an order to write names the language written in
_WRITING = frozenset({"write", "code"})


def _written_in(span: Span, head: Token) -> bool:
    root = span.root
    while root.dep_ == "conj" and root.head.i != root.i:
        root = root.head
    prep = root.head
    # things of every answer ("the code examples", "all snippets"), not one task ("write it in rust")
    every = any(c.dep_ == "dobj" and c.tag_ == "NNS" for c in head.children)
    return (
        every
        and head.lemma_ in _WRITING
        and span.label_ == "language"
        and root.dep_ == "pobj"
        and prep.lower_ in ("in", "with")
        and prep.head.i == head.i
    )


def _object_of(token: Token, head: Token) -> bool:
    while token.dep_ == "conj" and token.head.i != token.i:
        token = token.head
    return bool(token.head.i == head.i)


def _fold(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def named(span: Span) -> str:
    text = str(span.text)
    if span._.version:
        text = f"{text} {span._.version}"
    return text


def fill(template: str, value: str) -> str:
    return template.replace("{value}", value).replace("{subject}", SUBJECT_MARK)


def _in_a_name(span: Span) -> bool:
    """A product's word inside a name given after "called": "the restaurant is called Salt & Ember"."""
    doc = span.doc
    for n in range(span.start - 1, max(span.sent.start, span.start - 5) - 1, -1):
        word = doc[n]
        if word.lower_ in ("called", "named"):
            return True
        if not (word.is_title or word.text in ("&", "and", "of", "the", "de")):
            return False
    return False
