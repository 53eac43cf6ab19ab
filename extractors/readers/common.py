"""What the readers share: the ``Fact`` they produce, the base that holds the word classes and the
vocabulary, and the token helpers more than one reader needs."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from extractors.clauses import Clause
from extractors.lexicon import Lexicon
from extractors.render import SUBJECT_MARK, third_singular
from extractors.shell import Command
from extractors.vocabulary import Vocabulary

Token = Any
Span = Any
# slots whose labeled values are people, places and times of a life, never products ("kids: Leo, Ava")
PERSONAL_LABELS = frozenset(
    {"family", "pet", "name", "nickname", "home_city", "hometown", "age", "role", "employer", "pronouns"}
)
DEICTIC = frozenset(
    {
        "this",
        "that",
        "these",
        "those",
        "it",
        "here",
        "above",
        "below",
        "following",
        "there",
        "them",
        "one",
        "ones",
        "him",
        "her",
        "stuff",
        "something",
        "things",
        "thing",
        "way",
    }
)
_BEFORE = frozenset({"before", "prior", "ahead", "b4"})
_CHECKPOINT_KEYS = {
    "pr": "pr",
    "prs": "pr",
    "pull": "pr",
    "mr": "pr",
    "mrs": "pr",
    "submit": "pr",
    "submitting": "pr",
    "commit": "commit",
    "commits": "commit",
    "committing": "commit",
    "push": "push",
    "pushes": "push",
    "pushing": "push",
    "merge": "push",
    "merges": "push",
    "merging": "push",
    "deploy": "deploy",
    "deploys": "deploy",
    "deploying": "deploy",
    "release": "deploy",
    "releases": "deploy",
    "releasing": "deploy",
    "ship": "deploy",
    "shipping": "deploy",
}
PURPOSE_WORDS: dict[str, str] = {
    "test": "test",
    "tests": "test",
    "testing": "test",
    "lint": "lint",
    "linting": "lint",
    "linter": "lint",
    "build": "build",
    "builds": "build",
    "building": "build",
    "deploy": "deploy",
    "deploys": "deploy",
    "deploying": "deploy",
    "deployment": "deploy",
    "format": "format",
    "formatting": "format",
    "formatter": "format",
    "typecheck": "typecheck",
    "typechecking": "typecheck",
    "type-check": "typecheck",
    "migrate": "migrate",
    "migration": "migrate",
    "migrations": "migrate",
    "start": "dev",
    "serve": "dev",
    "dev": "dev",
    "locally": "dev",  # "to spin up everything locally: docker compose up"
    "spin": "dev",
    "e2e": "e2e",
    "release": "deploy",
    "seed": "seed",
    "install": "install",
    "setup": "install",
    "bench": "bench",
    "benchmarks": "bench",
    "check": "check",
    "checks": "check",
    "codegen": "codegen",
    "generate": "codegen",
    "regenerate": "codegen",
}


def labeled_purpose(doc: Any, at: int) -> str | None:
    """ "tests are `make test` and lint is `make lint`", "lint: `ruff check .`": the word right before
    "is", "are", "=" or ":" right before the command at token ``at`` names what it is for, whatever
    the parser made of the sentence (not an adverb: "to run the suite locally: `./gradlew test`")."""
    if at < 2 or doc[at - 1].lower_ not in ("is", "are", "=", ":", "->"):
        return None
    label = doc[at - 2]
    if label.pos_ == "ADV":
        return None
    return PURPOSE_WORDS.get(label.lower_) or PURPOSE_WORDS.get(label.lemma_.lower())


@dataclass(slots=True)
class Fact:
    """A fact read from a clause, before it becomes a ``Candidate``."""

    kind: str
    scope: str  # project | user
    key: str | None
    value: str
    text: str  # with SUBJECT_MARK
    span: str
    reader: str  # what read it, e.g. "stack.clause" (the version is added on the way out)
    confidence: float
    anchor: int = -1  # token index of the value, for qualifiers and corrections
    previous: str | None = None
    previous_text: str | None = None
    other: str | None = None  # "uses pnpm, not npm": the value named as not used
    when: str | None = None
    category: str | None = None
    fields: dict[str, str] = field(default_factory=dict)
    # a product of a kind named in passing ("C# on .NET 6"), not as what its sentence says: kept
    # in the record of a product or command named beside it (folds.py)
    in_passing: bool = False


class ReaderBase:
    """What every reader reads with: the word classes and the product vocabulary."""

    def __init__(
        self, lexicon: Lexicon, vocabulary: Vocabulary, known_words: frozenset[str] = frozenset()
    ) -> None:
        self.lex = lexicon
        self.vocab = vocabulary
        self.known_words = known_words  # words of ordinary English; a word outside them is coined
        # past tense that brings a new state: "we switched to pnpm", "we adopted Nx"
        self._changes = (
            lexicon["switch_verb"]
            | lexicon["replace_verb"]
            | lexicon["report_verb"]
            | lexicon["drop_verb"]
            | frozenset(
                {"adopt", "standardize", "standardise", "pick", "choose", "settle", "introduce", "rewrite"}
            )
        )


def checkpoint_of(clause: Clause, anywhere: bool = False) -> str | None:
    """ "before opening a PR", "before you push", "prior to committing". ``anywhere``: a marker
    anywhere in the sentence counts (for commands: "before you push anything, run X")."""
    sent = clause.head.sent
    for marker in sent:
        if marker.lower_ not in _BEFORE:
            continue
        owner = _clause_head_of(marker)
        inner = (
            owner.i != clause.head.i and owner.dep_ in ("ccomp", "relcl") and clause.head in owner.ancestors
        )
        if not anywhere and not clause.has(marker) and owner.i != clause.head.i and not inner:
            continue
        key = checkpoint_after(marker)
        if key:
            return key
    return None


def checkpoint_after(marker: Token) -> str | None:
    """The checkpoint named in the few words after "before": "a PR", "every push", "pull requests"."""
    doc = marker.doc
    for token in doc[marker.i + 1 : min(marker.sent.end, marker.i + 6)]:
        lower = token.lower_
        following = doc[token.i + 1].lower_ if token.i + 1 < len(doc) else ""
        if lower in ("pull", "merge") and following in ("request", "requests"):
            return "pr"
        key = _CHECKPOINT_KEYS.get(lower) or _CHECKPOINT_KEYS.get(token.lemma_.lower())
        if key and lower != "pull":
            return key
    return None


_PRE = re.compile(r"\bpre[- ]?(pr|mr|commit|push|merge|deploy|release)\b", re.I)


def checkpoint_in(text: str) -> str | None:
    """ "pre-PR checklist", "pre-commit", "pre push": a checkpoint named as a prefix."""
    match = _PRE.search(text)
    return _CHECKPOINT_KEYS.get(match.group(1).lower()) if match else None


CHECKPOINT_TEXT = {
    "pr": "before opening a pull request",
    "commit": "before committing",
    "push": "before pushing or merging",
    "deploy": "before deploying",
}


def check_fact(value: str, checkpoint: str, span: str, anchor: int, reader: str) -> Fact:
    """A check to run at a checkpoint: "always run make lint before opening a pull request"."""
    text = f"{SUBJECT_MARK}: always run {value} {CHECKPOINT_TEXT[checkpoint]}."
    return _procedure(f"pre_{checkpoint}_check", value, text, span, f"{reader}.before_{checkpoint}", anchor)


def command_fact(value: str, purpose: str, clause: Clause | None, span: str, reader: str) -> Fact:
    """What a command is for: "the test command is pnpm test"."""
    text = f"{SUBJECT_MARK}: the {purpose} command is {value}."
    return _procedure(f"{purpose}_command", value, text, span, reader, clause.head.i if clause else -1)


def _procedure(key: str, value: str, text: str, span: str, reader: str, anchor: int) -> Fact:
    return Fact(
        kind="procedural",
        scope="project",
        key=key,
        value=value,
        text=text,
        span=span,
        reader=reader,
        confidence=0.85,
        anchor=anchor,
    )


def _clause_head_of(marker: Token) -> Token:
    """The verb a "before ..." modifier belongs to: "run X before you push" -> "run"."""
    head = marker.head
    if marker.dep_ == "mark" and head.dep_ == "advcl":
        return head.head  # "before you push" is a clause of its own, hanging from "run"
    while head.pos_ not in ("VERB", "AUX") and head.head.i != head.i:
        head = head.head
    return head


def joined(tokens: list[Token]) -> str:
    """Tokens as text: their own spacing where they touch, a space where words were left out."""
    out = ""
    for n, token in enumerate(tokens):
        out += token.text
        if n + 1 < len(tokens):
            out += token.whitespace_ if tokens[n + 1].i == token.i + 1 else " "
    return out.strip()


def _named_in_parentheses(token: Token) -> str | None:
    """ "i'm in NZ (Auckland)", "from australia (Brisbane)": a name said right after, in parentheses,
    names the same thing more closely and belongs to it."""
    doc = token.doc
    after = token.i + 1
    if after + 2 >= len(doc) or doc[after].text != "(":
        return None
    close = next((t.i for t in doc[after + 1 : after + 6] if t.text == ")"), None)
    if close is None:
        return None
    inside = list(doc[after + 1 : close])
    if not inside or not all(t.pos_ == "PROPN" and t.is_title for t in inside):
        return None
    return " ".join(t.text for t in inside)


def _name_parts(token: Token) -> list[Token]:
    """The words a name is made of besides its head: compounds of compounds ("Ho Chi Minh City"),
    and "of" a name ("University of Bergen", "Bank of America")."""
    parts: list[Token] = []
    for child in token.children:
        if child.dep_ in ("compound", "flat") and child.pos_ in ("PROPN", "NOUN", "X"):
            parts += [child, *_name_parts(child)]
        elif (
            child.dep_ == "prep"
            and child.lower_ == "of"
            and token.is_title
            and child.i == token.i + 1
            and any(g.dep_ == "pobj" and g.pos_ == "PROPN" and g.is_title for g in child.children)
        ):
            named = next(g for g in child.children if g.dep_ == "pobj")
            parts += [child, named, *_name_parts(named)]
    return parts


def _role_place(prep: Token) -> bool:
    """ "in marine biology", "at Spotify": in what or where one works; not "in 2019", "in Pune" (the
    home's fact), "for payments" (the role's own words end before it), nor a long aside."""
    pobj = next((c for c in prep.children if c.dep_ == "pobj"), None)
    if prep.lower_ not in ("in", "at") or pobj is None or len(list(prep.subtree)) > 7:
        return False
    if prep.lower_ == "in" and (pobj.pos_ != "NOUN" or pobj.ent_type_ in ("GPE", "LOC", "FAC")):
        return False  # "a paramedic in nairobi": where one lives is the home's fact, not the role's
    timed = pobj.like_num or any(c.dep_ == "nummod" for c in pobj.children)
    return not timed and pobj.lemma_.lower() not in _TIME_UNITS and pobj.ent_type_ not in ("DATE", "TIME")


_TIME_UNITS = frozenset({"year", "month", "week", "day", "decade", "while", "hour", "yr", "time", "now"})


def value_of(token: Token, how: str) -> str:
    """The words of a value: a name with its parts, a role without its article, a phrase."""
    if how == "token":
        # with the words a hyphen glues to it: "low-sodium", not "sodium"
        doc = token.doc
        start, end = token.i, token.i + 1
        while (
            start >= 2
            and doc[start - 1].text == "-"
            and not doc[start - 2].whitespace_
            and not doc[start - 1].whitespace_
        ):
            start -= 2
        while (
            end + 1 < len(doc)
            and doc[end].text == "-"
            and not doc[end - 1].whitespace_
            and not doc[end].whitespace_
        ):
            end += 2
        return str(doc[start:end].text)
    if how == "name":
        parts = [token, *_name_parts(token)]
        # "Ana and Leo"; but not "Erik and our husky Kaia": a name with its own noun is another's
        names = [
            c
            for c in token.children
            if c.dep_ == "conj"
            and c.pos_ == "PROPN"
            and not any(g.dep_ in ("poss", "compound", "det", "amod") for g in c.children)
        ]
        if names and any(c.dep_ == "cc" for c in token.children):
            parts += [*names, *(c for c in token.children if c.dep_ == "cc")]
        parts.sort(key=lambda t: t.i)
        parts = _hyphened(parts)
        if parts[-1].i - parts[0].i + 1 == len(parts) or _glued(parts):
            name = str(token.doc[parts[0].i : parts[-1].i + 1].text)  # as written: "Mei-Ling", "Jean-Luc"
        else:
            name = joined(parts)
        inside = _named_in_parentheses(token)
        return f"{name} ({inside})" if inside else name
    if how == "role":
        # "PhD student in marine biology at University of Bergen": the field and the place, as said
        where = [t for c in token.children if c.dep_ == "prep" and _role_place(c) for t in c.subtree]
        while where and where[-1].is_punct:
            where.pop()  # "welder in a shipyard in Gdańsk,"
        return joined(
            [t for t in token.subtree if t.i <= token.i and t.dep_ not in ("det", "poss", "predet")]
            + sorted(where, key=lambda t: t.i)
        )
    # without a relative clause or an apposition, whole: "Medellín, freelance dev" is Medellín
    asides = {t.i for c in token.subtree if c.dep_ in ("relcl", "appos") for t in c.subtree}
    # "Dunedin with my wife Margaret", "tennis with my dad": who with is not the value
    asides |= {
        t.i for c in token.children if c.dep_ == "prep" and c.lower_ in ("with", "since") for t in c.subtree
    }
    parts = [
        t
        for t in token.subtree
        if t.i not in asides and not (t.dep_ == "det" and t.i == token.left_edge.i and t.lower_ == "the")
    ]
    opened = next((n for n, t in enumerate(parts) if t.text == "("), None)
    if opened is not None and not any(t.text == ")" for t in parts[opened:]):
        parts = parts[:opened]  # "alcohol (religious reasons": the aside is cut where the parse split it
    while parts and parts[-1].is_punct:
        parts.pop()
    while parts and parts[0].is_punct:
        parts.pop(0)
    if (
        parts
        and parts[0].i > 0
        and token.doc[parts[0].i - 1].lower_ in ("type", "stage", "chronic", "severe")
    ):
        parts.insert(0, token.doc[parts[0].i - 1])  # "type 1 diabetes": the parser hangs it under "type"
    inside = _named_in_parentheses(token) if parts and parts[-1].i == token.i else None
    return f"{joined(parts)} ({inside})" if inside else joined(parts)


def _hyphened(parts: list[Token]) -> list[Token]:
    """A name's parts with those a hyphen glues on ("Ji-yeon" parsed as "Ji" and an apposition)."""
    doc = parts[0].doc
    first, last = parts[0].i, parts[-1].i
    while last + 2 < len(doc) and _hyphen_at(doc, last + 1) and doc[last + 2].is_alpha:
        last += 2
    while first >= 2 and _hyphen_at(doc, first - 1) and doc[first - 2].is_alpha:
        first -= 2
    if (first, last) == (parts[0].i, parts[-1].i):
        return parts
    return sorted({*parts, *(t for t in doc[first : last + 1] if t.is_alpha)}, key=lambda t: t.i)


def _hyphen_at(doc: Any, i: int) -> bool:
    return bool(doc[i].text in ("-", "/") and not doc[i - 1].whitespace_ and not doc[i].whitespace_)


def _glued(parts: list[Token]) -> bool:
    """Parts of one name written with a hyphen between them ("Mei-Ling": "Mei", "-", "Ling")."""
    doc = parts[0].doc
    between = doc[parts[0].i : parts[-1].i + 1]
    return all(t in parts or (t.text in ("-", "'", "/") and not t.whitespace_) for t in between)


def slug(text: str) -> str:
    text = text.lower().replace("#", "sharp").replace("++", "pp")  # C# is not C, nor C++
    return re.sub(r"[^a-z0-9]+", "_", text).strip("_")[:40] or "value"


def condition(clause: Clause) -> bool:
    """ "when i touch a readme", "while I was at it": a clause that sets a time or condition."""
    marks = ("when", "whenever", "while", "if", "until", "before", "after", "once", "unless")
    return clause.head.dep_ == "advcl" and any(
        c.dep_ == "mark" and c.lower_ in marks for c in clause.head.children
    )


def _listed_parentheses(sent: Span) -> set[int]:
    """The parentheses around a list, which are cuts like commas: "firmware in rust (esp-hal,
    no_std)"; "(self hosted sentry clone)" is an aside about what comes before it, not an item."""
    cuts: set[int] = set()
    opened: int | None = None
    for token in sent:
        if token.text == "(":
            opened = token.i
        elif token.text == ")" and opened is not None:
            inside = sent.doc[opened + 1 : token.i]
            listed = any(t.text in (",", "+", "/", ";") for t in inside)
            if listed and not any(t.pos_ in ("VERB", "AUX", "INTJ") or t.lower_ == "sorry" for t in inside):
                cuts |= {opened, token.i}
            opened = None
    return cuts


def pieces(sent: Span, cut_plus: bool = True, cut_colon: bool = False) -> list[Span]:
    """A telegraphic line cut at commas, semicolons, slashes and pluses between items."""
    pieces = []
    start = sent.start
    cuts: tuple[str, ...] = (",", ";", "|", "\u2014", "\u2013")
    if cut_plus:
        cuts = (*cuts, "+", "/", "&", "·")
    if cut_colon:
        cuts = (*cuts, ":")
    doc = sent.doc
    listed = _listed_parentheses(sent) if cut_plus else set()
    for token in sent:
        if token.i in listed:
            if token.i > start:
                pieces.append(sent.doc[start : token.i])
            start = token.i + 1
            continue
        glued = (
            token.text in ("/", "+")
            and token.i > 0
            and not doc[token.i - 1].whitespace_
            and not token.whitespace_
        )
        if (token.text in cuts and not glued) or (token.text == "-" and token.whitespace_):
            if token.i > start:
                pieces.append(sent.doc[start : token.i])
            start = token.i + 1
    if start < sent.end:
        pieces.append(sent.doc[start : sent.end])
    return [p for p in pieces if len(p)]


def with_borrowed_subject(clause: Clause, text: str) -> str:
    """``text`` (a clause in the third person) given the subject it borrows from the clause before:
    "I'm 52 and recovering from a knee replacement", "I travel light and prefer trains"."""
    head, subject = clause.head, clause.subject
    if subject is None or subject.lower_ not in ("i", "we") or clause.has(subject):
        return text
    verb = "is " if head.tag_ == "VBG" else ""
    if head.tag_ in ("VB", "VBP"):  # "... and use NVDA": the borrowed "I" made "{subject} uses"
        text = re.sub(rf"\b{re.escape(head.text)}\b", third_singular(head.lower_), text, count=1, flags=re.I)
    return f"{SUBJECT_MARK} {verb}{text[:1].lower()}{text[1:]}"


def named_not_run(command: Command, tokens: Span, spans: list[Span]) -> bool:
    """A program's name used as a word, not a command: a noun with its article ("the checkout
    flow", "the `production` git remote"), a label ("flutter tests: flutter test --coverage"), or
    what another command runs ("composer test runs phpunit", "./gradlew check runs ... detekt")."""
    doc = tokens.doc
    before = doc[tokens.start - 1] if tokens.start > 0 else None
    if before is not None and before.is_punct and before.text in ("`", "'", '"') and tokens.start > 1:
        before = doc[tokens.start - 2]
    if (
        before is not None
        and before.lower_ in ("the", "a", "an", "our", "my", "this", "that")
        and not command.arguments
    ):
        return True
    if any(
        c.dep_ in ("det", "poss", "compound", "amod") and c.i < tokens.start and len(c) > 1  # (not "w")
        for c in tokens.root.children
    ):
        return not command.arguments and not command.quoted
    after = doc[tokens.end] if tokens.end < len(doc) else None
    if after is not None and after.text == ":" and not command.quoted:
        return True
    if command.arguments or command.quoted:
        return False
    if tokens.root.dep_ in ("nsubj", "nsubjpass"):
        return True  # "rspec is slow af on my m1": the program talked about, not run
    others = [span for span in spans if span.start != tokens.start]
    for verb in tokens.root.ancestors:
        if verb.pos_ in ("VERB", "AUX"):
            subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
            return subject is not None and any(s.start <= subject.i < s.end for s in others)
    return False


# roles written as capitals only ("Raj, PM at Zendesk"; "6pm" is a time)
TITLES = frozenset({"PM", "EM", "TPM"})


# the trouble verbs that only ever tell of a failure ("ignore vendor/ always" is a rule)
BREAKING = frozenset(
    {
        "fail",
        "crash",
        "hang",
        "flake",
        "timeout",
        "die",
        "leak",
        "freeze",
        "stall",
        "choke",
        "explode",
        "spike",
    }
)
# what does not work, said with "not": "types dont resolve in vscode", "jest can't resolve it"
_WORKS = frozenset(
    {"resolve", "work", "load", "compile", "build", "start", "run", "connect", "rebuild", "find"}
)


_GONE_WRONG = frozenset({"nan", "haywire", "wrong", "black", "blank", "white", "missing", "offline", "crazy"})
_TROUBLED = frozenset({"slow", "broken", "flaky", "down", "sluggish", "laggy", "buggy"})


def goes_wrong(verb: Token) -> bool:
    """A verb telling of a failure: "my widget tests time out", "a form action returns 405", "types
    dont resolve in vscode"."""
    lemma = verb.lemma_.lower()
    told = verb.tag_ != "VB" or any(c.dep_ == "aux" for c in verb.children)  # not "freeze time with X"
    if told and (lemma in BREAKING or (lemma == "time" and any(c.lower_ == "out" for c in verb.children))):
        return True
    if lemma in _WORKS and any(c.dep_ == "neg" for c in verb.children):
        return True
    if lemma == "go" and verb.tag_ != "VB" and any(c.lower_ in _GONE_WRONG for c in verb.children):
        return True  # "loss goes nan around epoch 3", "the screen goes black"
    if (
        lemma == "be"
        and verb.tag_ in ("VBZ", "VBP")
        and any(c.dep_ == "acomp" and c.lower_ in _TROUBLED for c in verb.children)
    ):
        return True  # "rspec is slow af on my m1" (but "jest was too slow": why it was left)
    return lemma == "return" and any(re.fullmatch(r"[45]\d\d", c.text) for c in verb.children)


def points_elsewhere(
    tokens: Sequence[Token], head: Token | None = None, subject: Token | None = None
) -> bool:
    """ "use them when possible", "code has to pass that", "never skip 2": what a rule is about is
    named elsewhere (by a pronoun, by a number in a list), so the rule alone says nothing. Only the
    main verb's object counts ("stop apologizing so much, just fix it" is about the apologies)."""
    if not tokens:
        return False
    inside = {t.i for t in tokens}
    root = head or next((t for t in tokens if t.head.i not in inside or t.head.i == t.i), tokens[0])
    main = {root.i} | {c.i for c in root.children if c.dep_ == "xcomp"}
    objects = [t for t in tokens if t.dep_ == "dobj" and t.head.i in main]
    if not objects or not all(t.lower_ in _POINTERS or t.like_num for t in objects):
        return False
    if any(
        c.dep_ in ("advcl", "ccomp") and any(s.dep_ == "nsubj" for s in c.children)
        for t in objects
        for c in t.head.children
    ):
        return False  # "flag it if something is off-label": "it" is what the condition says
    # ("use unknown and narrow it": what the order makes of "it" is said)
    return not any(
        (t.pos_ in ("NOUN", "PROPN") or (t.pos_ == "ADJ" and t.dep_ in ("acomp", "oprd", "conj")))
        and t != subject
        and t not in objects
        for t in tokens
    )


_POINTERS = frozenset({"this", "that", "these", "those", "it", "them", "him", "her", "one", "ones"})

# a set of pronouns said together: "she/her", "they/them"
PRONOUN_SET = re.compile(r"(?:she|he|they|xe|ze|it)/(?:her|hers|him|his|them|theirs|they|she|he|xem|zir|its)")
