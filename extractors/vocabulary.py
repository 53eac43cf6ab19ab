"""Tools and products as data: which names exist, what kind of thing each is, and the slot it fills.

``patterns/vocabulary.jsonl``: one product a line (name, aliases, category, ambiguous).
``patterns/slots.jsonl``: one category a line: its slot key, how a record names it, its scope,
whether it holds one current value, and the labels people write before it ("db: postgres").

The spaCy component ``mnemo_tech_v1`` marks products in a parsed doc (``doc.spans["tech"]``, each
span labeled with its category and carrying the canonical name as ``kb_id_``). A name that is also
an ordinary word ("go", "rails", "jest") needs more: a capital letter inside a sentence, a version
beside it, another product in the sentence, or a verb of use governing it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import msgspec

from core.errors import ConfigError
from extractors.ambiguity import (
    among_names,
    anchored_by,
    counted_or_dated,
    inside_a_name,
    named_or_placed,
    used,
)
from extractors.data import load

VERSION = re.compile(r"^v?\d+(?:\.\d+|\.x)*(?:[a-z]{0,3}\d*)?$|^\d+(?:\.\d+)*\+$", re.IGNORECASE)


class SlotSpec(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    category: str
    key: str
    label: str
    scope: Literal["project", "user"]
    single: bool
    labels: list[str] = []
    phrases: list[str] = []  # "deploy to": a verb and its preposition that name the slot
    topics: list[str] = []  # words of a request that make this slot's facts worth giving ("recipe": diet)
    text: str | None = None
    # a kind of product people name in passing beside the stack's main choices ("C# on .NET 6",
    # "make lint runs ruff + mypy", "in docker"): kept in the record of a product named with it,
    # and a record of its own only when it is the one product a message names
    detail: bool = False
    # a kind a label of another slot never takes: in "backend is express + mongodb" mongodb is
    # still the database (but in "queue: dramatiq + redis" redis is the queue)
    apart: bool = False

    def template(self) -> str:
        return self.text or f"{{subject}} uses {{value}} as its {self.label}."


class Product(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    name: str
    category: str
    aliases: list[str] = []
    ambiguous: bool = False
    # forms that name a file of the product ("Dockerfile"): they tell what a sentence is about, but
    # "the agent edited the Dockerfile" says nothing new of what the project uses
    files: list[str] = []
    # a language that rides along with the project's own (SQL, HTML, CSS): "drowning in SQL", "css
    # rebuilds too" say nothing of what the project is written in
    companion: bool = False


@dataclass(frozen=True, slots=True)
class Found:
    """A product named in free text (no parse): for reading a user's "forget that we use yarn"."""

    name: str
    category: str
    said: str


class Vocabulary:
    def __init__(self, products: list[Product], slots: dict[str, SlotSpec]) -> None:
        self.products = products
        self.slots = slots
        self.by_alias: dict[str, Product] = {}
        for product in products:
            for alias in (product.name, *product.aliases):
                self.by_alias.setdefault(_fold(alias), product)
        self.labels: dict[str, str] = {}
        for spec in slots.values():
            for label in spec.labels:
                self.labels.setdefault(_fold(label), spec.category)
        self.phrases: dict[str, str] = {}
        for spec in slots.values():
            for phrase in spec.phrases:
                self.phrases.setdefault(_fold(phrase), spec.category)
        self.topics: dict[str, set[str]] = {}
        for spec in slots.values():
            for word in [*spec.topics, *spec.labels]:
                self.topics.setdefault(_fold(word), set()).add(spec.category)
        self._longest = max((len(a.split()) for a in self.by_alias), default=1)
        self.file_forms = frozenset(_fold(f) for product in products for f in product.files)

    def slot(self, category: str) -> SlotSpec:
        return self.slots.get(category) or self.slots["tool"]

    def product_named(self, said: str) -> Product | None:
        return self.by_alias.get(_fold(said))

    def category_of_label(self, label: str) -> str | None:
        return self.labels.get(_fold(label))

    def categories_asked(self, text: str) -> frozenset[str]:
        """The slots a request is about, by the words it uses ("which db", "a recipe for tonight").
        A product it names ("explain closures in javascript") is not a slot asked about: the records
        that name that product are found by keyword and meaning, not every record of its kind."""
        words = re.findall(r"[\w+#.-]+", text.lower())
        found: set[str] = set()
        for n, _word in enumerate(words):
            for size in (2, 1):
                phrase = " ".join(words[n : n + size]).strip(".")
                found |= self.topics.get(phrase, set())
        return frozenset(found)

    def category_of_phrase(self, verb: str, preposition: str) -> str | None:
        return self.phrases.get(f"{verb.lower()} {preposition.lower()}")

    def find(self, text: str) -> list[Found]:
        """Products named in ``text`` by plain word n-grams (longest first); cheap, for the hot path."""
        words = re.findall(r"[\w.+#/-]+", text.lower())
        found: list[Found] = []
        i = 0
        while i < len(words):
            for size in range(min(self._longest, len(words) - i), 0, -1):
                said = " ".join(words[i : i + size]).strip(".")
                product = self.by_alias.get(said)
                if product is not None:
                    found.append(Found(product.name, product.category, said))
                    i += size
                    break
            else:
                i += 1
        return found


# what is done to a product when a project takes it on: "Sentry is wired up", "renovate is configured"
_SET_UP = frozenset({"set", "wire", "configure", "install", "enable", "integrate", "hook", "add", "deploy"})


def label_words(noun: Any) -> str:
    """A noun with the words before it that name what kind it is: "package manager", "background jobs"."""
    return " ".join([*(c.lower_ for c in noun.children if c.dep_ in ("compound", "amod")), noun.lower_])


def category_of_key(key: str | None) -> str | None:
    """The slot category a record's key belongs to: "database", "language:python" -> "language",
    "python_version" -> "runtime", "family:wife" -> "family", a relative's "son:leo.allergy:peanuts"
    -> "allergy" (slugs hold no dots, so the last dot ends the relative's prefix)."""
    if not key:
        return None
    head = key.rpartition(".")[2].split(":", 1)[0]
    if head.endswith("_version"):
        return "runtime"
    return head


def slots_in(vocabulary: Vocabulary, text: str) -> list[tuple[str, str]]:
    """(slot key, value as said) for each product ``text`` names: "forget that we use yarn"."""
    slots = []
    for found in vocabulary.find(text):
        spec = vocabulary.slot(found.category)
        key = (
            spec.key
            if spec.single
            else f"{spec.key}:{re.sub(r'[^a-z0-9]+', '_', found.name.lower()).strip('_')}"
        )
        slots.append((key, found.said))
    return slots


def _fold(text: str) -> str:
    return " ".join(text.lower().split())


def load_vocabulary(vocabulary: Path | None = None, slots: Path | None = None) -> Vocabulary:
    specs: dict[str, SlotSpec] = {}
    for where, spec in load("slots.jsonl", SlotSpec, slots):
        if spec.category in specs:
            raise ConfigError(f"{where}: category {spec.category!r} given twice")
        if "{subject}" not in spec.template() or "{value}" not in spec.template():
            raise ConfigError(f"{where}: text must name {{subject}} and {{value}}")
        specs[spec.category] = spec
    if "tool" not in specs:
        raise ConfigError("slots: the catch-all category 'tool' is missing")
    products: list[Product] = []
    aliases: dict[str, str] = {}
    for where, product in load("vocabulary.jsonl", Product, vocabulary):
        if product.category not in specs:
            raise ConfigError(f"{where}: unknown category {product.category!r}")
        for alias in (product.name, *product.aliases):
            folded = _fold(alias)
            if not folded:
                raise ConfigError(f"{where}: empty alias")
            if aliases.get(folded, product.name) != product.name:
                raise ConfigError(f"{where}: alias {alias!r} is already {aliases[folded]!r}")
            aliases[folded] = product.name
        products.append(product)
    return Vocabulary(products, specs)


# -- the spaCy component ---------------------------------------------------------------------------


def _part_of_a_hyphened_name(span: Any) -> bool:
    """ "ts-jest", "next-auth", "pg-boss": a product's name inside a longer name the vocabulary lacks
    (but "node-18", "python-3.11": a version)."""
    doc = span.doc
    after = span.end + 1 < len(doc) and doc[span.end].text == "-" and not doc[span.end - 1].whitespace_
    after = after and not doc[span.end].whitespace_ and doc[span.end + 1].is_alpha
    before = span.start >= 2 and doc[span.start - 1].text == "-" and not doc[span.start - 1].whitespace_
    before = before and not doc[span.start - 2].whitespace_ and doc[span.start - 2].is_alpha
    return bool(after or before)


def _named_whole(span: Any, whole: Any, named: set[tuple[int, int]]) -> bool:
    """Whether the vocabulary names the hyphened name itself ("pg-boss"), not only its part."""
    return any(
        start <= whole.start and whole.end <= end and (start, end) != (span.start, span.end)
        for start, end in named
    )


def _whole_name(span: Any) -> Any:
    """The hyphened name a product's span is part of, with the span's label and product."""
    from spacy.tokens import Span

    doc, start, end = span.doc, span.start, span.end
    while (
        start > 0
        and not doc[start - 1].whitespace_
        and (doc[start - 1].text == "-" or doc[start - 1].text.isalnum())
    ):
        start -= 1
    while (
        end < len(doc) and not doc[end - 1].whitespace_ and (doc[end].text == "-" or doc[end].text.isalnum())
    ):
        end += 1
    while end > start + 1 and doc[end - 1].text == "-":
        end -= 1
    return Span(doc, start, end, label=span.label_, kb_id=span.kb_id_)


class TechMarker:
    """Marks products in a parsed doc. Runs after the parser: ambiguity is decided on tags."""

    def __init__(self, nlp: Any, vocabulary: Vocabulary) -> None:
        from spacy.matcher import PhraseMatcher
        from spacy.tokens import Span, Token

        if not Token.has_extension("tech"):
            Token.set_extension("tech", default=None)
        if not Span.has_extension("version"):
            Span.set_extension("version", default=None)
        self.vocabulary = vocabulary
        self.matcher = PhraseMatcher(nlp.vocab, attr="LOWER")
        self._ambiguous: dict[str, bool] = {}
        for product in vocabulary.products:
            patterns = [nlp.make_doc(alias) for alias in {product.name, *product.aliases}]
            self.matcher.add(product.name, patterns)
            self._ambiguous[product.name] = product.ambiguous
        self._category = {p.name: p.category for p in vocabulary.products}
        self._forms = {p.name: [f.lower() for f in (p.name, *p.aliases)] for p in vocabulary.products}
        self._word_forms: dict[str, frozenset[str]] = {}
        self._labels = frozenset(vocabulary.labels)
        # set by the pipeline: words of ordinary English. An ambiguous product is ambiguous only as
        # such a word: "next" may be a word, "nextjs" is the product
        self.known_words: frozenset[str] = frozenset()
        self.discourse: frozenset[str] = frozenset()  # set by the pipeline: "btw", "nvm"

    def __call__(self, doc: Any) -> Any:
        from spacy.tokens import Span
        from spacy.util import filter_spans

        found = []
        for match_id, start, end in self.matcher(doc):
            name = doc.vocab.strings[match_id]
            found.append(Span(doc, start, end, label=self._category[name], kb_id=name))
        # "nvm, it's 3.12": a word that carries nothing, not the product (but "we use nvm": a noun
        # where a product goes)
        found = [
            s
            for s in found
            if not (len(s) == 1 and s[0].lower_ in self.discourse and s.root.dep_ not in _NOUN_ROLES)
        ]
        # sentences that name a product unambiguously lend the ambiguous names in them some trust
        anchors = [span for span in found if not self._is_ambiguous(span)]
        # two names of one kind set against each other vouch for each other: "bun now instead of yarn"
        # (of the project's stack only: "assume fish not bash" is the user's own, read as a rule)
        paired = [
            s
            for s in found
            if s not in anchors
            and self.vocabulary.slot(s.label_).scope == "project"
            and any(_set_against(s, o) for o in found if o is not s)
        ]
        products = {i for span in found for i in range(span.start, span.end)}
        spans = [
            s
            for s in found
            if not self._is_ambiguous(s)
            or s in paired
            or self._plausible(s, anchored_by(s, anchors), products)
        ]
        # an ambiguous name taken as a product lends that trust on: "from Ruby to Go"
        lent = [s for s in spans if s not in anchors]
        if lent:
            spans += [
                s for s in found if s not in spans and self._plausible(s, anchored_by(s, lent), products)
            ]
        # "composer stan", "npm run lint": a script a build tool runs is named after it, not the product
        spans = [
            s
            for s in spans
            if not (
                self._ambiguous[s.kb_id_]
                and s.text.islower()
                and any(o.end == s.start and o.label_ in _SCRIPT_RUNNERS for o in spans)
            )
        ]
        # "node:test", "react/jsx-runtime": a module of the product, named as a path, not the product
        spans = [
            s
            for s in spans
            if not (
                s.end + 1 < len(doc)
                and not doc[s.end - 1].whitespace_
                and doc[s.end].text in (":", "/")
                # (but "switched the ORM from Prisma to Drizzle: replaced ...": what a move went to,
                # before a colon that ends the clause)
                and not (
                    doc[s.end].whitespace_
                    and s.start > 0
                    and doc[s.start - 1].lower_ in ("to", "onto", "into")
                )
            )
        ]
        # "arm-none-eabi-gcc", "pg-boss": the product named in a longer name is that name, kept whole
        # as typed; a language inside one ("ts-jest", "py-spy") is no statement of the language
        whole = {(s.start, s.end) for s in spans}
        spans = [self._in_a_hyphened_name(s, whole) if _part_of_a_hyphened_name(s) else s for s in spans]
        spans = [s for s in spans if s is not None]
        kept = filter_spans(spans)
        for span in kept:
            after = doc[span.end] if span.end < len(doc) else None
            if after is not None and VERSION.match(after.text):
                span._.version = after.text
            for token in span:
                token._.tech = span.label_
        doc.spans["tech"] = kept
        return doc

    def _in_a_hyphened_name(self, span: Any, named: set[tuple[int, int]]) -> Any:
        """A product named inside a hyphened word: "arm-none-eabi-gcc" and "MISRA-C" are named whole;
        "Tailwind-free" is without it; "docker-based" is docker; "ts-jest", "py-spy" name no language;
        "pg-boss", a product of its own, is read as that."""
        whole = _whole_name(span)
        rest = [t for t in whole if t.i not in range(span.start, span.end) and t.text != "-"]
        if _named_whole(span, whole, named) or any(t.lower_ in _NOT_USING for t in rest):
            return None
        described = all(
            t.lower_ in self.known_words
            or t.lemma_.lower() in self.known_words
            or t.tag_ in ("VBN", "VBD", "JJ")
            for t in rest
        )
        if described and span.start == whole.start:
            return span  # "docker-based", "numba-jitted": the product, described
        if span.label_ == "language" and not all(t.is_upper for t in rest):
            return None
        return whole

    def _is_ambiguous(self, span: Any) -> bool:
        if not self._ambiguous[span.kb_id_]:
            return False
        if not self.known_words:
            return True
        # the forms of this product that are ordinary words; when there are some, only they are ambiguous
        words = self._word_forms.get(span.kb_id_)
        if words is None:
            words = frozenset(
                f for f in self._forms[span.kb_id_] if all(w in self.known_words for w in f.split())
            )
            self._word_forms[span.kb_id_] = words
        return not words or span.text.lower() in words

    def _named_for_slot(self, root: Any, category: str) -> bool:
        """ "our warehouse is snowflake", "we're on drizzle now": the copula says what the name is."""
        head = root.head
        if head.i == root.i and any(c.dep_ in ("aux", "auxpass") and c.lemma_ == "be" for c in root.children):
            # "Our package manager is bun now.": the tagger took the name for a verb after "is"
            subject = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)
            if (
                subject is not None
                and subject.lower_ in ("it", "everything")
                and any(c.lower_ == "now" for c in root.children)
            ):
                return True  # "we left heroku in january. it's render now": what it is now
            return subject is not None and label_words(subject) in self._labels
        if root.dep_ == "xcomp" and head.lemma_ == "be" and head.i < root.i:
            # "it's render now", parsed as a verb after "is"
            subject = next((c for c in head.children if c.dep_ == "nsubj"), None)
            now = any(c.lower_ == "now" for c in [*head.children, *root.children])
            return subject is not None and subject.lower_ in ("it", "everything") and now
        if root.dep_ not in ("attr", "acomp", "pobj") or head.i == root.i:
            return False
        if root.dep_ == "pobj":
            if head.lower_ not in ("on", "in") or head.head.lemma_ not in ("be", "run", "deploy", "host"):
                return False  # "we're on drizzle now", "everything runs on render now"
            subject = next((c for c in head.head.children if c.dep_ == "nsubj"), None)
            if subject is None:
                return False
            if head.lower_ == "on" and subject.lower_ in ("we", "i", "it", "everything"):
                return True
            # "our frontend tests are in jest": the slot's own word, then a product of that slot
            labels = self.vocabulary.labels
            return (labels.get(subject.lower_) or labels.get(subject.lemma_.lower())) == category
        if head.lemma_ != "be":
            return False
        subject = next((c for c in head.children if c.dep_ == "nsubj"), None)
        if subject is None:
            return False
        return label_words(subject) in self._labels or subject.lemma_.lower() in self._labels

    def _plausible(self, span: Any, anchored: bool, products: set[int]) -> bool:
        """An ordinary word that is also a product name ("go", "rails") is taken as the product when
        something around it says so."""
        root = span.root
        doc = span.doc
        before = doc[span.start - 1].lower_ if span.start > 0 else ""
        if counted_or_dated(span, before):
            return False
        if (
            root.dep_ == "nsubj"
            and root.head.lemma_ == "be"
            and not _versioned(span)
            and any(
                c.i in products and not any(g.dep_ == "neg" for g in c.children)
                for c in root.head.children
                if c.dep_ in ("attr", "acomp")
            )
        ):
            return False  # "stack is kotlin + ktor": a label that other products fill
        if (
            root.dep_ in ("nsubj", "nsubjpass")
            and root.head.i in products
            and root.head.i != root.i
            and any(c.dep_ in ("aux", "auxpass") and c.lemma_ == "be" for c in root.head.children)
        ):
            return False  # "stack is go 1.22 + postgres": the tagger took the product after "is" for a verb

        if (
            root.pos_ in ("VERB", "AUX")
            and root.tag_ == "VBZ"
            and any(c.dep_ == "nsubj" for c in root.children)
        ):
            return False  # "the pom still targets 17": a verb with its subject, whatever follows it
        after = doc[span.end : span.end + 4]
        opens = span.start == span.sent.start or doc[span.start - 1].is_punct  # a label opens its line
        if (
            opens
            and len(after) > 1
            and after[0].text in (":", "=")
            and any(t.i in products and t.i > after[0].i for t in after[1:])
        ):
            return False  # "stack = python 3.11, pytorch": a label that the products after it fill

        if inside_a_name(span) or among_names(span, products):
            return False  # "a small biotech called Helix Forge", "my mod Tea Garden Expanded", "Leo 9, Ava 6"
        if (
            len(span) == 1
            and root.dep_ != "ROOT"
            and any(
                c.dep_ == "compound"
                and (
                    (c.pos_ == "NOUN" and c.is_lower)
                    or (c.is_upper and len(c) > 1 and span.text.islower())  # "the CI matrix"
                )
                and c._.tech is None
                and c.i == span.start - 1
                for c in root.children
            )
        ):
            return False  # "the sensor node", "the CI matrix" (not "use yarn": a verb read as a noun)
        if named_or_placed(span, before):
            return used(root)  # "call me Sam", "a consultant from Cairo", but "moved from Ruby to Go"
        if self._named_for_slot(root, self._category[span.kb_id_]):
            return True  # "everything's on render now", however the tagger read "render"
        if _moved_onto(span, before):
            return True  # "we moved the whole thing to render last sprint"
        if root.dep_ == "nsubjpass" and root.head.lemma_.lower() in _SET_UP:
            return True  # "Sentry is wired up for the API", "Renovate is configured": what was set up
        if self._category[span.kb_id_] == "language" and _what_it_is_built_in(root):
            return True  # "the bot is rust w/ tokio", "our api is go with chi"
        # "a proper team project", "quick rundown": a word that describes the next noun is a word
        describes = (
            root.dep_ in ("amod", "compound", "nmod") and root.head._.tech is None and root.head.i > root.i
        )
        if root.dep_ == "advmod" and root.pos_ == "ADJ" and root.head.pos_ == "NOUN" and root.head.i > root.i:
            return False  # "quick rundown": however parsed, an adjective before its noun
        if (
            anchored
            and not describes
            and (
                root.pos_ in ("NOUN", "PROPN", "X", "ADJ")
                or (root.pos_ == "VERB" and root.dep_ in ("xcomp", "pobj", "dobj", "appos", "npadvmod"))
                or (root.pos_ == "VERB" and root.dep_ in ("advcl", "ccomp") and before == "to")
            )
        ):
            return True  # "switched from pnpm to yarn": misparsed as a verb, but among products
        if _versioned(span):
            return True  # "legacy rails 6 monolith", "go 1.22": a word is not followed by its version
        if len(span) > 1 and span[-1].lower_ in _TRADE_HEADS:
            return True  # "Zephyr RTOS on nRF5340": the name with the kind of thing it is
        if root.pos_ in ("VERB", "AUX", "ADP", "DET", "PRON", "CCONJ", "SCONJ", "PART", "ADV"):
            return False
        first = span[0]
        if any(c.isupper() for c in first.text) and not first.is_sent_start:
            return True
        if anchored:
            return True
        if before == "in" and self._category[span.kb_id_] == "language":
            return True  # "firmware in rust", "written in go"
        following = [t.lower_ for t in doc[span.end : span.end + 4] if t.pos_ != "DET"]
        if following[:1] == ["for"] and len(following) > 1 and following[1] in self._labels:
            return True  # "temporal for the workflows": a product, named for its slot
        head = root.head.lower_
        if describes and head in self.known_words and head not in self._labels and head not in _TRADE_HEADS:
            return False  # "i use a screen reader": the word describes the thing used
        return used(root)


# "Tailwind-free", "heroku-specific": said of the product, no statement of using it
_NOT_USING = frozenset({"free", "less", "specific", "agnostic"})
_NOUN_ROLES = frozenset(
    {"nsubj", "nsubjpass", "dobj", "pobj", "attr", "appos", "conj", "compound", "poss", "oprd"}
)
# things of a project that are written in a language: "the bot is rust", "our backend is go"
_BUILT_THINGS = frozenset(
    {"bot", "app", "api", "backend", "frontend", "service", "server", "cli", "tool", "firmware", "game"}
    | {"site"}
)


def _what_it_is_built_in(root: Any) -> bool:
    """A language named as what a thing of the project is: "the bot is rust", "the server is go"."""
    head = root.head
    if root.dep_ not in ("attr", "acomp") or head.lemma_ != "be":
        return False
    subject = next((c for c in head.children if c.dep_ == "nsubj"), None)
    return subject is not None and subject.lemma_.lower() in _BUILT_THINGS


_SCRIPT_RUNNERS = frozenset({"build_tool", "package_manager"})
_AGAINST = frozenset({"instead", "not", "rather", "vs", "versus", "over"})


def _set_against(span: Any, other: Any) -> bool:
    """Two names of one kind, one set against the other: "bun instead of yarn", "yarn, not npm"."""
    if span.label_ != other.label_ or span.sent.start != other.sent.start:
        return False
    if span.root.pos_ in ("VERB", "AUX") or other.root.pos_ in ("VERB", "AUX"):
        return False  # ("built w cabal not stack": read as a verb, the sentence turns on it)
    first, second = (span, other) if span.start < other.start else (other, span)
    between = span.doc[first.end : second.start]
    return (
        0 < len(between) <= 4
        and any(t.lower_ in _AGAINST for t in between)
        and all(t.is_punct or t.pos_ in ("ADP", "ADV", "PART") or t.lower_ in _AGAINST for t in between)
    )


def _versioned(span: Any) -> bool:
    """The name is followed by a version: "rails 6", "godot 4.2", "python 3.x"; not a count ("go 2
    times", "next 3 weeks") nor a number that starts something else ("go 2 more rounds")."""
    doc = span.doc
    if span.end >= len(doc):
        return False
    version = doc[span.end]
    if not VERSION.match(version.text) or (version.text.isdigit() and len(version.text) > 2):
        return False
    after = doc[span.end + 1] if span.end + 1 < len(doc) else None
    if "." in version.text or "x" in version.text.lower():
        return after is None or after.lemma_.lower() not in _COUNTED  # "unity 2022.3 lts"
    return (
        after is None
        or after.is_punct
        or (after.tag_ in ("NN", "CC", "IN", "TO", "HYPH", "-LRB-") and after.lower_ not in _UNITS)
        or after.lower_ in _WHEN_AFTER  # "bumped everything to node 20 last week"
    )


_WHEN_AFTER = frozenset({"last", "now", "yesterday", "today", "already", "recently"})


# nouns a product names a part or kind of: "godot engine", "bun runtime", "supabase client"
_TRADE_HEADS = frozenset(
    {
        "engine",
        "server",
        "app",
        "client",
        "library",
        "framework",
        "cli",
        "sdk",
        "api",
        "runtime",
        "plugin",
        "cluster",
        "instance",
        "db",
        "database",
        "project",
        "repo",
        "stack",
        "setup",
        "service",
        "bot",
        "site",
        "rtos",
        "os",
    }
)
# what a decimal counts: "go 1.5 hours"
_COUNTED = frozenset({"hour", "minute", "second", "day", "week", "month", "year", "time", "percent", "point"})
# what follows a count, not a version: "go 5 min", "go 2 more"
_UNITS = frozenset(
    {"more", "min", "mins", "hr", "hrs", "sec", "secs", "km", "mi", "kg", "lb", "lbs", "am", "pm", "of"}
)


_MOVE_VERBS = frozenset({"move", "migrate", "switch", "port", "transition"})


def _moved_onto(span: Any, before: str) -> bool:
    """The name a move goes to: "moved the whole thing to render", not "moved on to render the
    page" (an infinitive with its object)."""
    if before not in ("to", "onto") or len(span) != 1:
        return False
    root = span.root
    if any(c.dep_ in ("dobj", "prep") and not _a_time(c) for c in root.children):
        return False
    head = root.head
    while head.pos_ != "VERB" and head.head.i != head.i:
        head = head.head
    return head.i != root.i and head.lemma_.lower() in _MOVE_VERBS


def _a_time(token: Any) -> bool:
    """ "last sprint", "this week": a time the parser hung on a name taken for a verb."""
    return any(c.lower_ in ("last", "this", "next", "past") for c in token.children)
