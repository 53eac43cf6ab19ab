"""Corrections: "sorry, I meant Utrecht", "wait, no: pnpm", "typo, it's 3.12". A correction takes
the slot of the fact it corrects, said earlier in the same message or conversation; the wrong value
said in the same batch is dropped, not kept as history."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from extractors.candidates import Read
from extractors.readers import Fact
from extractors.shell import Command
from extractors.vocabulary import VERSION

_CORRECTION = re.compile(
    # ("lol autocorrect, the dog is Rocky not Rex": a filler may come first)
    r"^\W*(?:(?:lol|ugh|argh|gah|oh|ah|damn|dang|haha)\W+(?=\w))?(?:(?:sorry|sry|soz|oops|whoops|wait|hold\s+on|erm|um|my\s+bad|correction|typo|auto-?correct(?:ed)?|scratch\s+that|"
    r"let\s+me\s+correct\s+(?:that|myself)|i\s+misspoke|actually|not\s+quite|rather|i\s+mean|"
    # "no, pnpm" / "nope it's 3.12", but not "no one remembers ...": a word of the sentence
    r"(?:no+|nope)(?=\s*[,:;.!\u2014\u2013-]|\s*$|\s+(?:i|i'?m|it|it'?s|its|we|that|that'?s|wait|sorry|not)\b))"
    r"\b[\s,:;.!\u2014\u2013-]*)+",
    re.IGNORECASE,
)
_MEANT = re.compile(
    r"^\W*(?:i\s+meant|meant|i\s+mean|it'?s|it\s+is|should\s+be|make\s+that|"
    # "oops typo, his name is Mac not Max": the name said again
    r"(?:his|her|their|the\s+\w+'?s)\s+name'?s|(?:his|her|their|the\s+\w+'?s)\s+name\s+is)\b\W*",
    re.I,
)
# "sorry i said heroku but it's render": the speaker's words before, then the value meant
_SAID_BEFORE = re.compile(
    r"^\W*(?:earlier\s+|before\s+)?i\s+(?:said|mentioned|wrote|typed|told\s+you)\b[^,;:\u2014\u2013]*?"
    r"(?:\s+but\b|\s*[,;:\u2014\u2013]|\s+-\s)\s*(?:actually\s+)?",
    re.I,
)


# what follows "sorry" when it only apologises: "sorry, old habit", "sorry for the confusion"
_APOLOGY_ONLY = re.compile(
    r"^(?:old\s+habits?(?:\s+die\s+hard)?|my\s+bad|my\s+mistake|for\s+(?:the|that|this|my)\b.*|"
    r"about\s+(?:that|this)|again|lol|haha)\W*$",
    re.IGNORECASE,
)


def is_correction(text: str) -> bool:
    """ "sorry, I meant ...", but not "No." / "nope, thanks": an answer, not a correction; nor "sorry,
    old habit": an apology."""
    marker = _CORRECTION.match(text)
    if marker is None or _only_no(text):
        return False
    return not _APOLOGY_ONLY.match(text[marker.end() :].strip())


def resolve(reads: list[Read], context_reads: list[Read]) -> list[Read]:
    """Each correction in ``reads`` in place of the fact it corrects, from ``reads`` or ``context_reads``
    (the user's earlier turns)."""
    resolved: list[Read] = []
    for read in reads:
        if not read.correcting:
            resolved.append(read)
            continue
        before = [r.fact for r in context_reads + resolved[:] if r.fact.key and not r.correcting]
        target = _corrected(read, before) if read.bare is not None or read.fact.key else None
        if read.bare is not None:
            if target is None:
                # nothing earlier to correct: the sentence's own fact of the value it names stands
                value = read.bare.value.lower()
                resolved += [
                    replace(read, fact=f, bare=None, fallback=())
                    for f in read.fallback
                    if f.key and (value in f.value.lower() or f.value.lower() in value)
                ]
                continue
            fact = _with_value(target, read.fact.value)
            resolved = [r for r in resolved if r.fact is not target]
            resolved.append(replace(read, fact=fact, bare=None))
        else:
            if target is not None:
                resolved = [r for r in resolved if r.fact is not target]
            resolved.append(read)
    return resolved


def _denied(span: Any, left: frozenset[str]) -> bool:
    """ "it's not capistrano anymore, we deploy with kamal now", "we left heroku in jan, it's render
    now": the value named as the old one (``left``: the verbs by which a product is left)."""
    doc = span.doc
    before = {t.lower_ for t in doc[max(span.sent.start, span.start - 2) : span.start]}
    after = {t.lower_ for t in doc[span.end : min(span.sent.end, span.end + 2)]}
    # "we left heroku in jan, it's render now": what was left is the old value
    gone = span.root.dep_ == "dobj" and span.root.head.lemma_.lower() in left
    # "nope, no graphql anywhere" (but "actually no its pnpm": a "no" that answers, not a determiner)
    right_before = doc[span.start - 1] if span.start > span.sent.start else None
    banned = right_before is not None and right_before.lower_ == "no" and right_before.dep_ == "det"
    denied = before & {"not", "n't", "never"}
    return bool(denied) or banned or "anymore" in after or gone or _once_said(span.root)


def _once_said(token: Any) -> bool:
    """ "oops i said python 3.9 earlier, it's 3.12": what the speaker said before is the value wrong."""
    verb = token.head
    return (
        verb.i != token.i
        and verb.tag_ == "VBD"
        and verb.lemma_.lower() in _SAY
        and any(c.dep_ == "nsubj" and c.lower_ == "i" for c in verb.children)
    )


_SAY = frozenset({"say", "mention", "write", "tell", "type", "put"})


def bare_value(
    sent: Any, techs: list[Any], commands: list[tuple[Command, Any]], left: frozenset[str] = frozenset()
) -> Fact | None:
    """What a correction names when it names no slot: "sorry, I meant Utrecht", "typo, `pnpm test`",
    "it's sesame she's allergic to, not peanuts", "scratch that, ops bumped it to 3.12"."""
    marker = _CORRECTION.match(sent.text)
    rest_start = sent.start_char + (marker.end() if marker else 0)
    said = _SAID_BEFORE.match(sent.doc.text[rest_start : sent.end_char]) if marker else None
    if said:
        rest_start += said.end()
    meant = _MEANT.match(sent.doc.text[rest_start : sent.end_char])
    if meant:
        rest_start += meant.end()
    for command, span in commands:
        if span.start_char >= rest_start:
            return Fact(
                "procedural", "project", None, command.text, "", sent.text, "correction", 0.8, span.start
            )
    for span in techs:
        if span.start_char >= rest_start and sent.start <= span.start < sent.end and not _denied(span, left):
            value = span.text + (f" {span._.version}" if span._.version else "")
            fact = Fact("semantic", "project", None, value, "", sent.text, "correction", 0.8, span.start)
            fact.category = span.label_
            if meant:
                fact.fields["meant"] = "1"  # "I meant postgres 14": the value named as the one meant
            return fact
    # the version of a value said before is no value meant: "i said python 3.9 earlier, it's 3.12"
    wrong = {t.i for span in techs if _denied(span, left) for t in sent.doc[span.start : span.end + 2]}
    rest = [t for t in sent if t.idx >= rest_start and not t.is_punct]
    versions = [
        t
        for t in rest
        if VERSION.match(t.text) and any(ch.isdigit() for ch in t.text) and t.i not in wrong and _alone(t)
    ]
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
    # "staging is stg.kraken-app.io now", "staging moved to stg.acme.internal": what comes first
    # names the slot, the value follows (but "English is fine" names the value first)
    named: list[Any] = []
    for n, token in enumerate(rest):
        if phrase and token.lower_ in ("last", "this", "next", "since", "yesterday", "today", "now"):
            break  # "moved to stg.acme.internal last week": when, not what
        between = sent.doc[phrase[-1].i : token.i] if phrase else []
        glue = [t for t in between[1:] if t.text in ("-", "_", ".", "/")]
        if phrase and glue and all(not t.whitespace_ for t in between):
            phrase.append(token)  # "eu-central-1": one word, however the tokenizer cut it
            continue
        if phrase and any(t.is_punct for t in sent.doc[phrase[-1].i + 1 : token.i]):
            break  # "Kat is fine, Katie feels too formal": a comma ends what is said of the value
        if token.pos_ in ("PROPN", "NOUN", "ADJ", "NUM") or (phrase and token.pos_ == "X"):
            phrase.append(token)
        elif phrase and not named and (token.lemma_ == "be" or _moved_to(token, rest[n + 1 : n + 2])):
            phrase, named = [], phrase
        elif phrase and token.pos_ == "VERB" and not named:
            return None  # "the team agreed on 2 spaces": a sentence of its own, not a value
        elif phrase:
            break
        elif named and token.lower_ == "to":
            continue
        elif token.pos_ in ("VERB", "AUX", "PRON") and token.lower_ not in ("it", "'s", "is"):
            return None  # a sentence of its own, not a bare value
    if named and (not phrase or all(t.pos_ == "ADJ" for t in phrase)):
        phrase = named
    if not phrase or len(phrase) > 4:
        return None
    not_after = [t for t in rest if t.i > phrase[-1].i]
    other = None
    if len(not_after) >= 2 and not_after[0].lower_ in ("not", "instead"):
        other = next((t.text for t in not_after[1:] if t.pos_ in ("PROPN", "NOUN", "ADJ", "NUM")), None)
    # as written: "plat-stg-euw1" is one value, though the tokenizer split it at its hyphens
    value = sent.doc[phrase[0].i : phrase[-1].i + 1].text
    fact = Fact("semantic", "user", None, value, "", sent.text, "correction", 0.75, phrase[0].i, other=other)
    return fact


def _alone(number: Any) -> bool:
    """A number said as a value of its own: not a count of what follows ("2 spaces indent"), nor a
    piece of a longer word ("eu-central-1")."""
    doc = number.doc
    after = doc[number.i + 1] if number.i + 1 < len(doc) else None
    glued = number.i > 0 and not doc[number.i - 1].whitespace_ and not doc[number.i - 1].is_space
    counts = after is not None and after.is_alpha and after.pos_ in ("NOUN", "PROPN")
    return not glued and not counts


def _moved_to(token: Any, following: list[Any]) -> bool:
    """ "moved to", "changed to", "switched to": the value is what follows."""
    return token.lemma_.lower() in ("move", "change", "switch", "migrate") and [
        t.lower_ for t in following
    ] == ["to"]


def _only_no(text: str) -> bool:
    """ "No." / "nope, thanks": an answer, not a correction."""
    return len(text.split()) <= 2


def _corrected(read: Read, before: list[Fact]) -> Fact | None:
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
    # "I mean Tartu" after "Tallinn" and "EET": a value written the same way (a name, not capitals)
    shaped = [b for b in personal if _shape(b.value) == _shape(fact.value)]
    if shaped:
        return shaped[-1]
    return personal[-1] if personal else (before[-1] if before else None)


def _shape(value: str) -> str:
    if value.isupper():
        return "capitals"
    return "name" if value[:1].isupper() else "word"


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
