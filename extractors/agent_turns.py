"""What an agent's turn tells: something it did or a state that now holds, or nothing (a question,
advice, an explanation, a plan); a turn that tells nothing reports nothing, whatever it names."""

from __future__ import annotations

import re
from typing import Any


def acts(doc: Any, done: frozenset[str]) -> bool:
    """Whether an agent's line tells of something it did ("I switched ...", "Bumped the BOM ...",
    "Checked it: ...") or a state that now holds ("the API now returns 404")."""
    for token in doc:
        if token.lower_ in ("now", "anymore", "longer"):
            return True  # "the API now returns 404", "secrets are no longer in .env"
        if (
            token.pos_ == "VERB"
            and token.tag_ in ("VBD", "VBN")
            and token.dep_ in ("ROOT", "conj", "parataxis")
            and not any(c.dep_ in ("nsubj", "nsubjpass", "auxpass") for c in token.children)
            and not _shares_a_subject(token)
        ):
            return True  # "..., moved them to Doppler": the agent's "I" left out
        if (
            token.tag_ == "VBN"
            and token.lemma_.lower() in done
            and any(c.dep_ == "auxpass" and c.tag_ in ("VBZ", "VBP") for c in token.children)
            and any(c.dep_ == "nsubjpass" and c._.tech is not None for c in token.children)
            and any(c.dep_ == "prt" for c in token.children)  # (not "X is configured through Y": how)
        ):
            return True  # "Sentry is wired up for the API": a product the agent has set up
        if _a_file_says(token) and not doc.text.rstrip().endswith("?"):
            # "The prod Dockerfile uses `node:20.11-alpine`": a state read off a file (but "the
            # Dockerfile uses Python 3.10. Which is right?" asks)
            return True
        if token.lower_ in ("i", "we") and token.dep_ in ("nsubj", "nsubjpass"):
            head = token.head
            if head.tag_ in ("VBD", "VBN") or any(a.lower_ in ("'ve", "have") for a in head.children):
                return True
    for sent in doc.sents:
        opening = [
            t for t in sent if not (t.is_punct or t.like_num or t.is_space or t.lower_ in ("also", "and"))
        ]
        first = opening[0] if opening else None
        if (
            first is not None
            and first.dep_ != "prep"
            and (  # "Given a 3-person team, I'd ...": no act
                (first.pos_ == "VERB" and first.tag_ in ("VBD", "VBN"))
                or (first.tag_ == "VB" and first.lemma_.lower() in done)
                or past_of(first.lower_, done)  # "Swapped image loading ...", however it was tagged
                or past_of(first.lower_, VERIFIED)  # "Checked `template.yaml`: the runtime is ..."
            )
        ):
            # "Bumped the Compose BOM to ...", "Renamed stg_orders_v2 ...": the agent's "I" left out
            return True
    return False


# what a file does that tells how the project is set up
_FILE_VERBS = frozenset(
    {"use", "say", "pin", "target", "set", "specify", "point", "define", "list", "require"}
)
_FILES = frozenset({"dockerfile", "makefile", "lockfile", "config", "manifest", "workflow", "justfile"})


def _a_file_says(verb: Any) -> bool:
    """ "The prod Dockerfile uses `node:20.11-alpine`", "`.nvmrc` says 20.11.0": what a file the agent
    read holds, said in the present."""
    if verb.tag_ != "VBZ" or verb.lemma_.lower() not in _FILE_VERBS:
        return False
    if not any(c.dep_ in ("dobj", "attr", "oprd") for c in verb.children):
        return False  # what it says is not said in a way the readers can keep
    subject = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    return subject is not None and any(
        t.lower_ in _FILES
        or (t.text.startswith("CMD") and t.text[3:].isdigit())
        or re.search(r"\w\.\w", t.text)
        for t in subject.subtree
    )


def _shares_a_subject(verb: Any) -> bool:
    """ "PlanetScale is MySQL-compatible, ... but dropped its free tier": a verb joined to one whose
    subject is someone else's takes that subject, not the agent's left-out "I"."""
    head = verb
    while head.dep_ == "conj" and head.head.i != head.i:
        head = head.head
        subject = next((c for c in head.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subject is not None:
            return subject.lower_ not in ("i", "we")
    return False


def only_asks(doc: Any, done: frozenset[str]) -> bool:
    """An agent's line that ends in a question and reports nothing it did or now holds."""
    sentences = [s for s in doc.sents if s.text.strip()]
    return bool(sentences) and sentences[-1].text.rstrip().endswith("?") and not acts(doc, done)


def past_of(word: str, verbs: frozenset[str]) -> bool:
    """ "swapped", "updated", "added", "verified": the past of one of ``verbs``."""
    if word.endswith("ied") and word[:-3] + "y" in verbs:
        return True
    return word.endswith("ed") and any(word[:-n] in verbs for n in (1, 2, 3))


# what an agent says it checked before it tells the state it found: "Checked `template.yaml`: ..."
VERIFIED = frozenset({"verify", "confirm", "check", "double-check", "inspect", "audit"})


# nouns that advise only as what a sentence is about: "one option is ...", "an alternative would be"
_OFFERS = frozenset({"option", "options", "alternative", "alternatives"})
_OFFERED = frozenset({"nsubj", "attr", "ROOT", "npadvmod", "appos"})


def advises(tokens: Any, advice: frozenset[str]) -> bool:
    """Whether an agent's words advise, offer options or plan ("I'd recommend ...", "one option is
    ...", "if you want ...") rather than report; "fixed the renamed config options" only names some."""
    for token in tokens:
        lemma = token.lemma_.lower()
        if lemma in _OFFERS or token.lower_ in _OFFERS:
            if token.dep_ in _OFFERED:
                return True
        elif lemma in advice or token.lower_ in advice or lemma == "if" or token.lower_ == "alternatively":
            return True
    return False
