"""From what the readers found to ``Candidate`` facts: commands put back in place of their
placeholders, the qualifier that narrows where a fact holds, the time it was said to happen."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from extractors.base import Candidate, Turn
from extractors.qualifiers import QualifierPattern, qualifier_in
from extractors.readers import Fact
from extractors.render import SUBJECT_MARK, keeps_first_person
from extractors.shell import Command

_WHEN = re.compile(
    r"\b(?:yesterday|today|this\s+morning|earlier\s+today|last\s+(?:week|month|year|sprint|quarter)|"
    r"(?:\d+|a|an|one|two|three|four|five|six)\s+(?:day|week|month|year)s?\s+ago)\b",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(r"\bCMD(\d+)\b")


@dataclass(slots=True)
class Read:
    """A fact as read from a sentence of a turn, before corrections are resolved."""

    fact: Fact
    turn: Turn
    sentence: str
    correcting: bool = False
    bare: Any = None  # the corrected value when the correction names no slot ("sorry, I meant Utrecht")
    placed: dict[str, Command] = field(default_factory=dict)  # the line's commands, by placeholder
    # the sentence's own facts of the corrected value's slot: kept when the correction finds nothing
    # earlier to correct ("sorry i meant python 3.12 not 3.11", the 3.11 said in another session)
    fallback: tuple[Fact, ...] = ()


def qualifier_of(qualifiers: list[QualifierPattern], fact: Fact | None, sentence: str) -> str | None:
    """Where a fact holds, if its own clause narrows it ("in docs/ we use npm")."""
    if fact is None:
        return qualifier_in(qualifiers, sentence, -1, -1)
    text = fact.span if fact.span and fact.span in sentence else sentence
    if fact.key and fact.key.endswith("_command"):
        text = re.sub(r"\bfor\s+(?:the\s+)?tests\b", " ", text)  # "X for tests": its purpose
    if fact.key is None:
        return qualifier_in(qualifiers, text, -1, -1)  # a rule as said holds its qualifier
    start = text.lower().find(fact.value.lower())
    end = start + len(fact.value) if start >= 0 else 0
    found = qualifier_in(qualifiers, text, max(start, 0), end)
    return None if found is not None and _names_own_slot(found, fact.key) else found


def _names_own_slot(qualifier: str, key: str) -> bool:
    """ "we use circleci for ci", "pytest for tests": the purpose the slot is, not where the fact
    holds; kept as a qualifier it would keep the fact out of the slot a later change fills."""
    words = [w for w in re.findall(r"[a-z0-9]+", qualifier.lower()) if w not in ("for", "the", "our", "all")]
    slot = set(re.split(r"[_:.]", key.lower()))
    return bool(words) and all(w in slot or w.rstrip("s") in slot for w in words)


# values that name nothing, whatever read them
_NO_CONTENT = frozenset(
    {"hey", "hi", "mostly", "anything", "something", "everything", "nothing", "it", "that", "this", "stuff"}
)


def to_candidate(read: Read, qualifiers: list[QualifierPattern], extractor: str) -> Candidate | None:
    """The fact as a candidate, or None when it names no one, holds first person or lost its value."""
    if _a_command_as_value(read):
        return None
    read = restored(read)
    if not _storable(read.fact):
        return None
    fact = read.fact
    qualifier = None
    if "exception_for" in fact.fields:
        qualifier = fact.fields["exception_for"]
    elif fact.kind in ("semantic", "procedural") and fact.scope == "project":
        qualifier = qualifier_of(qualifiers, fact, read.sentence)
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
        extractor=extractor,
        fields=fields,
        qualifier=qualifier,
        when=when if fact.kind != "episodic" or fact.when else None,
        previous_value=fact.previous,
        previous_text_template=fact.previous_text,
        sentence=read.sentence,
    )


def storable(read: Read) -> bool:
    """Whether the fact can be stored: it names its subject, keeps no first person, holds a value."""
    return not _a_command_as_value(read) and _storable(restored(read).fact)


def _a_command_as_value(read: Read) -> bool:
    # "I start it with `dagster dev`": a command is never a place, a name, a product
    return read.fact.kind == "semantic" and bool(_PLACEHOLDER.fullmatch(read.fact.value.strip()))


def _storable(fact: Fact) -> bool:
    """``fact``, commands put back, names its subject, keeps no first person and holds a value."""
    if not fact.value.strip() or not fact.text or keeps_first_person(fact.text):
        return False
    if fact.value.strip().lower() in _NO_CONTENT:
        return False  # "i enjoy it mostly", "i'd work as anything": a value that names nothing
    if SUBJECT_MARK not in fact.text:
        return False  # "Weirds them out.": a sentence that lost its subject names no one
    # "i'd rather you ...", read as "{subject}'d.": it says nothing of them
    return bool(re.search(r"[^\W\d_]{2,}", fact.text.replace(SUBJECT_MARK, "")))


def unique_slots(facts: list[Fact]) -> list[Fact]:
    """One fact per slot and value in a sentence, when a line's items and its clauses both name it."""
    seen: set[tuple[str | None, str]] = set()
    unique = []
    # the reading that names what it replaced goes first: "replaced flake8, black and isort with ruff"
    changed = {(f.key, f.value.lower()) for f in facts if f.key is not None and f.previous}
    for fact in facts:
        marker = (fact.key, fact.value.lower())
        if fact.key is not None and (marker in seen or (marker in changed and not fact.previous)):
            continue
        if fact.key is not None and any(_inside(fact, other) for other in facts):
            continue  # "Biases" beside "Weights & Biases": a piece of a name read whole
        seen.add(marker)
        unique.append(fact)
    return unique


def _inside(fact: Fact, other: Fact) -> bool:
    """``fact``'s value is a part of ``other``'s, in the same slot: a shorter reading of one name."""
    if other is fact or other.key != fact.key or len(other.value) <= len(fact.value):
        return False
    if not (fact.reader.startswith("stack.") and other.reader.startswith("stack.")):
        return False  # ("stack test" beside "stack test --fast": two commands)
    words, longer = fact.value.lower().split(), other.value.lower().split()
    return any(longer[i : i + len(words)] == words for i in range(len(longer) - len(words) + 1))


def put_back(text: str, placed: dict[str, Command] | None) -> str:
    """A line with its commands back in place of their placeholders."""
    if not placed:
        return text
    return _PLACEHOLDER.sub(lambda m: placed[m.group(0)].text if m.group(0) in placed else m.group(0), text)


def restored(read: Read) -> Read:
    """The commands put back in place of their placeholders, everywhere the fact quotes its line."""
    placed = read.placed
    if not placed:
        return read

    def back(text: str | None) -> str | None:
        return None if text is None else put_back(text, placed)

    fact = replace(
        read.fact,
        value=back(read.fact.value) or "",
        text=back(read.fact.text) or "",
        span=back(read.fact.span) or "",
        previous=back(read.fact.previous),
        previous_text=back(read.fact.previous_text),
        fields={k: put_back(v, placed) if k == "exception_for" else v for k, v in read.fact.fields.items()},
    )
    return replace(read, fact=fact, sentence=back(read.sentence) or "")


def dedupe(candidates: list[Candidate]) -> list[Candidate]:
    """One candidate per scope, slot and text; and a free-form one that says just what a slotted one
    says ("{s} is from izmir." twice) is the slotted one."""
    seen: set[tuple[str, str | None, str]] = set()
    slotted = {(c.scope_level, c.text_template.lower()) for c in candidates if c.key is not None}
    unique: list[Candidate] = []
    for candidate in candidates:
        marker = (candidate.scope_level, candidate.key, candidate.text_template.lower())
        if candidate.key is None and marker[::2] in slotted:
            continue
        if marker not in seen:
            seen.add(marker)
            unique.append(candidate)
    return unique
