"""Names the vocabulary lacks: "our feature flags come from flagpole", "Riverpod for state
management", a coined name in a rundown ("loom + gradle", "esp-hal, no_std")."""

from __future__ import annotations

import re

from extractors.ambiguity import MONTHS, WEEKDAYS
from extractors.clauses import Clause
from extractors.readers.common import Fact, Span, Token, slug, value_of
from extractors.readers.stack.products import ProductReader, fill
from extractors.render import SUBJECT_MARK, plain
from extractors.shell_words import PURPOSE_ALIASES
from extractors.vocabulary import label_words

_SOURCE_FILE = re.compile(
    r"\.(?:tsx?|jsx?|py|go|rs|rb|java|kt|swift|md|json|ya?ml|toml|txt|html?|css|scss|sh|cfg|ini|lock|sql|"
    r"c|h|cpp|hpp|cs|php|ex|exs|ml|hs|lua|vue|svelte|env|conf|xml|csv|ipynb|gradle|tf)$",
    re.I,
)


class NameReader(ProductReader):
    """Products the vocabulary does not know, in a slot a sentence names or among other products."""

    def named_in_slot(self, clause: Clause, taken: set[int]) -> list[Fact]:
        """A name the vocabulary lacks, in a slot the sentence names: "our feature flags come from
        flagpole", "deploys go through shipyard", "deployed with SST", "we use Nx for the monorepo"."""
        if clause.about not in ("group", "project", "thing", "pointing", "none") or not clause.asserted:
            return []
        if clause.mood not in ("statement", "fragment") or clause.negated:
            return []
        head = clause.head
        category = self._names_a_slot(clause.subject) if clause.subject is not None else None
        value: Token | None = None
        for child in head.children:
            if child.dep_ == "prep":
                pobj = next((c for c in child.children if c.dep_ in ("pobj", "pcomp")), None)
                if child.lower_ == "for" and pobj is not None:
                    named = self._names_a_slot(pobj)
                    if named is not None:
                        category = named
                        value = next((c for c in head.children if c.dep_ == "dobj"), value)
                        continue
                phrase = self.vocab.category_of_phrase(head.lemma_, child.lower_)
                if pobj is not None and phrase and value is None:
                    category = category or phrase
                    value = pobj
            # "CI only does chromium now": what the slot's thing does is done to the object, not what
            # the thing is (but "the db is cockroach", "the registry uses harbor")
            elif (
                child.dep_ in ("attr", "dobj", "oprd")
                and category is not None
                and value is None
                and (child.dep_ != "dobj" or head.lemma_.lower() in ("be", "use"))
            ):
                value = child
        if category is None or value is None or value.i in taken or value._.tech is not None:
            return []
        if value.lower_ in self.lex["person_noun"] | self.lex["checkpoint"] | self.lex[
            "project_noun"
        ] and not any(c.dep_ == "compound" for c in value.children):
            return []  # "embedded guy at ...", "on PRs we run ...", "fine on the cli": no product's name
        if (
            value.is_lower
            and value.lower_ in self.vocab.labels
            and not any(c.dep_ == "compound" for c in value.children)
        ):
            return []  # "frontend is react 18, server state w/ ...": a slot's own name, not a product
        if value.text.startswith("CMD") and value.text[3:].isdigit():
            return []  # "CI now runs `ruff check .`": a command CI runs, not the CI
        if value.lower_ in self.lex["language_name"]:
            return []  # "code comments keep in english": a language people speak, not a product
        if value.lower_ in self.lex["branch_name"] and category != "vcs_host":
            return []  # "CI only runs on master": a branch, not where the project is hosted
        if clause.subject is not None and any(c.lower_ == "no" for c in clause.subject.children):
            return []  # "no public cloud allowed (patient data)": the slot is denied, nothing fills it
        if value.dep_ == "pobj" and any(c.dep_ == "dobj" and c.pos_ == "PRON" for c in head.children):
            return []  # "keep that in mind", "put it in writing": an idiom about "that", not a slot
        if any(t._.tech is not None for t in value.subtree) or re.fullmatch(r"v?\d[\w.]*", value.text):
            return []  # "runs on bun + discord.js v14": the products are named; "v14" is a version
        after = value.doc[value.i + 1] if value.i + 1 < len(value.doc) else None
        glued = after is not None and not after.whitespace_ and after.i + 1 < len(value.doc)
        if (
            after is not None
            and not value.whitespace_
            and (after.text in ("/", ":") or (after.text == "." and glued))
        ):
            return []  # "app/models/": a path, not a name (but "... through unleash." ends a sentence)
        if not _name_like(value) or value.lower_ in self.lex["timezone"] | WEEKDAYS | MONTHS:
            return []  # "the CronJob ran on UTC": a time zone, not a host; "no deploys on friday": a day
        described = any(c.dep_ == "amod" and c.pos_ in ("ADJ", "VERB") and c.is_lower for c in value.children)
        if described or (value.dep_ == "dobj" and any(c.dep_ == "auxpass" for c in head.children)):
            return []  # "logs must be structured json" (however parsed): a description, not a name
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
                text=fill(spec.template(), name),
                span=plain(clause.tokens),
                reader="stack.named_in_slot",
                confidence=0.75,
                anchor=value.i,
                category=category,
            )
        ]

    def _names_a_slot(self, noun: Token) -> str | None:
        """The slot a noun names by itself (with its compounds): "our package manager", "the db";
        not "for documentation purposes" (a compound only), not a loose label ("client", "pm")."""
        compounds = [c for c in noun.children if c.dep_ in ("compound", "amod") and c.i < noun.i]
        if not compounds and noun.lower_ in _LOOSE_LABELS:
            return None
        category = self.vocab.category_of_label(label_words(noun))
        if category is None and not compounds:
            category = self.vocab.category_of_label(noun.lower_) or self.vocab.category_of_label(
                noun.lemma_.lower()
            )
        return category if category != "tool" else None

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
        trade = (
            self.lex["code_noun"]
            | self.lex["project_noun"]
            | self.lex["work_noun"]
            | self.lex["business_noun"]
        )
        if any(t.lower_ in trade or t.lemma_.lower() in trade for t in name):
            return []  # "dockerfiles + .nvmrc updated", "(auth + postgres)", "SaaS for dentists": no names
        if name[0].text[:1] in "~<>≈" or name[0].like_num or name[0].text[:1].isdigit():
            return []  # "~400k LOC", "3 repos": a count, not a name
        if any(re.fullmatch(r"[a-z]+(?:_[a-z0-9]+)+", t.text) for t in name):
            return []  # "(customer_id + event_date)": names in the code, not products
        if any(t.text.startswith("CMD") and t.text[3:].isdigit() for t in name):
            return []  # "`yarn e2e` runs headless": a command and what it does, not a product
        if name[0].lower_ in _ORDERS:
            return []  # "Use 2 spaces for indentation.": an order the tagger took for a name
        if len(name) > 1 and name[-1].tag_ in ("JJ", "JJR", "JJS") and name[-1].lower_ in self.known_words:
            return []  # "(they make refactors + grep painful)": what something is made, not a name
        value = piece.doc[name[0].i : name[-1].i + 1].text  # as written: "@wordpress/env", "esp-hal"
        if not _latin(value):
            return []  # "아 sorry, jenkins was my old company": a word of another language
        if len(name) > 1 and all(t.is_lower and t.is_alpha and self._coined(t) for t in name):
            return []  # "bhai ek baat, in our repo ...": a phrase of another language, not a product
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
        if purpose and category is None and not coined:
            return []  # "dinner party for 8 next week": a name and what for, but no part of a stack
        if category is not None and self.vocab.slot(category).scope == "project" and category != "tool":
            spec = self.vocab.slot(category)
            key = spec.key if spec.single else f"{spec.key}:{slug(value)}"
            text = fill(spec.template(), value)
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
        if token.ent_type_ in _NOT_PRODUCTS or token.lower_ in PURPOSE_ALIASES:
            return False  # "(Kyoto + Hokkaido)", "lint + typecheck + unit": a place, a task
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


# what the named entity recognizer knows is no product: places, peoples, languages, times
_NOT_PRODUCTS = frozenset({"GPE", "LOC", "NORP", "LANGUAGE", "DATE", "TIME", "MONEY", "PERCENT", "QUANTITY"})

# verbs that open an order, capitalized at a sentence's start and then tagged as names
_ORDERS = frozenset({"use", "prefer", "avoid", "keep", "put", "add", "run", "make", "try", "stick", "always"})

# labels too loose to name a slot for a name the vocabulary lacks: "client is northwind coffee",
# "pm is ana" (the project manager), "the primary site server is BRG-CM01"
_LOOSE_LABELS = frozenset(
    {"client", "server", "pm", "api", "framework", "web", "ui", "content", "site", "be", "fe"}
)


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


def _latin(text: str) -> bool:
    """Whether every letter of a name is in the Latin script (product names are)."""
    return all(ord(ch) < 0x250 for ch in text if ch.isalpha())
