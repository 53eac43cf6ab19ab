"""Chat as people type it, made readable for a parser trained on edited text: shorthand spelled out
("w/" as "with"), the "I" and the "my"
chat leaves out put back ("originally from Kenya", "wife Ingrid is vegan"), and a run-on cut at the
"so" that opens its second clause ("I'm type 1 diabetic so meal plans need carb counts") or at a dash
before a new subject ("..., not just a diff — i copy paste the entire thing")."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from extractors.ambiguity import MONTHS, WEEKDAYS

# where a sentence starts in a line: its beginning, or after ". ", "! ", "? "
_START = r"(?:^|[.!?]\s+)"
# a sentence opening on a noun then a capitalised name: "wife Ingrid is vegan", "also son Kofi ..."
_OWNER_FIRST = re.compile(r"((?:^|[.!?,;]\s+)(?:(?:and|also|btw|oh)\s+)?)([A-Za-z]+) ([A-Z][a-z]+)\b")
# "halo, my name Rizky from Surabaya": the "is" left out
_MY_NAME = re.compile(r"\b(my name)\s+(?=[A-Z][a-z]+\b)")
_SUBJECTLESS = re.compile(
    r"((?:^|[.!?,;]\s+)(?:but\s+|and\s+)?)((?:originally from|born (?:n|and|&) raised|born in|"
    r"been (?:living|based|working)|"
    r"grew up|got (?:a|an|two|three|four|\d+) |got married|training for |work as |working as |"
    r"just moved |just got |just finished |just started |diagnosed with ))",
    re.I,
)
# "the restaurant's called Salt & Ember": the parser reads a possessive before "called"
_CALLED_IS = re.compile(r"\b(\w+)'s\s+(?=(?:called|named)\s+[A-Z])")
# "in our team the rule is: all comments in English": the rule after the colon, a sentence of its own
_RULE_IS = re.compile(
    rf"({_START}[^:.!?]{{0,40}}?\b(?:(?:the\s+)?(?:rule|policy|convention)\s+is|is\s+(?:a\s+)?rule))\s*:\s+",
    re.I,
)
# "my partner's vegan": what a relative is, said with a contraction the parser takes for a possessive
_KIN_IS = re.compile(r"\b((?:my|our)\s+(\w+))'s\s+(?=(\w+)(?:\s+(\w+))?)", re.I)
_NAME_IS = re.compile(r"\b((?:my|our|his|her|their)\s+(?:nick)?name)'s\b", re.I)
# "name's Tomasz btw": whose name goes without saying
_BARE_NAME = re.compile(rf"({_START})(name(?:'s|\s+is))(?=\s+[A-Z])", re.I)
# "hi its Tomasz, embedded guy from Gdańsk", "Hola! soy Andrés": a name given after a greeting
_GREETED_NAME = re.compile(
    r"^((?:hi|hey|hello|hiya|heya|yo|hola|ola|hallo|moin|ciao|salut|bonjour)\b[\s,!.]*)"
    r"(?:it'?s|its|soy|sou|sono|ich bin|je suis)\s+(?=[A-ZÀ-Ý][a-zà-ÿ]+\b)"
    rf"(?!(?:{'|'.join(sorted(WEEKDAYS | MONTHS))})\b)",  # ("hi, it's Monday again")
    re.I,
)
# "before opening a PR we run X — can you write me a hook ...": the question after a dash starts anew
_DASHED_QUESTION = re.compile(
    r"\s+[\u2014\u2013-]+\s+(?=(?:can|could|would|will|how|what|whats|why|where|which|is|are|does|do|any)"
    r"\s+(?:you|u|i|we|it|this|that|there|the|a|to|one|way|ideas?|tips?)\b)",
    re.I,
)
_NEW_I = re.compile(r"(\b(?:I'm|I am|im|i'm|name is|this is) [A-Z][a-z]+) I (?=[a-z])")
# "from Nottingham but living in Fukuoka": the "I" before the second half
_BUT_LIVING = re.compile(r"\b(but|and)\s+(?=(?:living|based)\s+in\b)", re.I)
_SAID_I = re.compile(r"\b(?:i|i'm|im)\b", re.I)


def _kin_is(match: re.Match[str], owned: frozenset[str], states: frozenset[str]) -> str:
    """ "my partner's vegan", "my son's lactose intolerant": the relative is, not has."""
    kin, state, then = match.group(2).lower(), match.group(3).lower(), (match.group(4) or "").lower()
    if kin in owned and (state in states or f"{state}-{then}" in states):
        return f"{match.group(1)} is "
    return match.group(0)


def _living_said_alone(match: re.Match[str]) -> str:
    """ "from Nottingham but living in Fukuoka" gets its "I'm" (not "i am from izmir but living in")."""
    before = re.split(r"[.!?]", match.string[: match.start()])[-1]
    return match.group(0) if _SAID_I.search(before) else f"{match.group(1)} I'm "


_SHORTHAND = re.compile(r"(?<![\w/])(?:w/o|w/|b/c|thru|dx'd|dxd|wanna|gonna|gotta)(?=\s)", re.I)
_WERE_ON = re.compile(
    rf"({_START})were (?=(?:on|using|moving|switching|migrating|running|still|now|all|mostly)\b)", re.I
)
_WHEN_THEN_PLEASE = re.compile(
    rf"({_START}(?:when|whenever|if)\b[^,.;]{{3,60}}?)\s+(pls|please|plz)\s+(?=[a-z])", re.I
)
_FOR_THEN_ORDER = re.compile(
    rf"({_START}(?:(?:but|and|oh|also)\s+)?(?:for|in|with)\s+(?:[\w'/.+#-]+\s+){{1,4}}?)"
    r"(?=(?:use|write|give|answer|keep|reply|show|stick|assume|skip|put|prefer|always|never|"
    r"do not|don't|dont)\b)",
    re.I,
)
_CLAUSE_WORD = re.compile(r"\b(?:who|that|which|we|i|you|u|they|it|is|are|was|be)\b", re.I)
_TITLE = re.compile(r"\b(prof|dr|mr|mrs|ms)\.\s+(?=[A-Za-z])")
_BECAUSE = re.compile(r"\b(?:cuz|coz|cos|bc|cause)\s+(?=(?:i|im|i'm|we|we're|my|it|it's|its)\b)", re.I)
_ITS_IS = re.compile(
    r"\bits (?=(?:a|an|the|not|just|fine|ok|okay|only|all|always|never|still|been|gonna|going|so|too|"
    r"very|really|literally|basically|probably)\b|[A-Z]\w*\s+not\b)",  # "Its WooCommerce not shopify"
    re.I,
)
# "weekends i restore old vespas": a time frame said first, then its clause; the parser takes the
# frame for the head of a fragment without the comma
_FRAME_FIRST = re.compile(
    rf"({_START}(?:on\s+)?(?:weekends|evenings|mornings|nights|sundays|saturdays|most days|most weekends)"
    r")\s+(?=(?:i|im|i'm|we|we're)\b)",
    re.I,
)
# "User lives in Porto", "User's name is Katarzyna": a profile note about oneself, written in the
# third person the way memory tools export it; said by the user, it is the speaker's own
_PROFILE_NOTE = re.compile(
    rf"({_START})(?:The )?User(?:'s| (is|has|was|'s|\w+s)\b)(?=\s)",
)
_PROFILE_VERBS = frozenset(
    (
        "lives",
        "works",
        "prefers",
        "wants",
        "likes",
        "loves",
        "hates",
        "speaks",
        "owns",
        "drives",
        "plays",
        "studies",
        "teaches",
        "eats",
        "avoids",
        "needs",
        "uses",
        "codes",
        "writes",
        "runs",
        "travels",
        "goes",
        "keeps",
        "follows",
        "volunteers",
        "trains",
        "grows",
        "cooks",
        "reads",
    )
)


def _as_said_by_oneself(match: re.Match[str]) -> str:
    start, verb = match.group(1), match.group(2)
    if verb is None:
        return f"{start}My"
    if verb in ("is", "'s"):
        return f"{start}I'm"
    if verb in ("has", "was"):
        return f"{start}I {'have' if verb == 'has' else 'was'}"
    if verb in _PROFILE_VERBS:
        return f"{start}I {verb[:-2] if verb.endswith(('oes', 'ches', 'shes')) else verb[:-1]}"
    return match.group(0)  # "User sessions expire after 30 minutes": the product's users


_SPELLED = {
    "w/": "with",
    "w/o": "without",
    "b/c": "because",
    "thru": "through",
    "dx'd": "diagnosed",
    "wanna": "want to",  # "one day i wanna build a tiny house": a wish, read as one
    "gonna": "going to",
    "gotta": "got to",
    "dxd": "diagnosed",
}
_SUBJECTS = {
    "originally": "I'm ",
    "born": "I was ",
    "been": "I've ",
    "grew": "I ",
    "got": "I've ",
    "training": "I'm ",
    "work": "I ",
    "working": "I'm ",
    "just": "I ",
    "got married": "I ",
    "diagnosed": "I was ",
}


def _subject_key(said: str) -> str:
    lowered = said.lower()
    return "got married" if lowered.startswith("got married") else lowered.split()[0]


_NEW_SUBJECTS = frozenset(("i", "we", "it", "its", "it's", "they", "he", "she", "that", "this", "im", "i'm"))
_NOT_AFTER_SO = frozenset(("and", "or", "not", "just", "even", "do", "is", "think", "hope"))


_SLASHED = re.compile(r"(?<![\w./~:-])[A-Za-z0-9][\w.+#-]*(?:/[A-Za-z0-9][\w.+#-]*)+(?![\w/])")
_VERSION_OR_GLUED = re.compile(r"(?:v?\d[\w.]*|[a-z]+\d[\d.]*)", re.IGNORECASE)


def slashed_rundown(line: str, is_product: Callable[[str], bool]) -> str:
    """ "py3.11/django 4.2/celery w redis", "php 8.2/laravel 10/mysql 8": products run together by
    slashes, spaced out so each is an item of the rundown (not "src/app/page.tsx", "she/her")."""

    def spaced(match: re.Match[str]) -> str:
        parts = match.group(0).split("/")
        products = [p for p in parts if is_product(p.rstrip("."))]
        if not products or not all(p in products or _VERSION_OR_GLUED.fullmatch(p) for p in parts):
            return match.group(0)
        return " / ".join(parts)

    return _SLASHED.sub(spaced, line)


def spoken_in_full(line: str, owned: frozenset[str], states: frozenset[str] = frozenset()) -> str:
    """``line`` with the owner of a relative or pet named first put back ("my wife Ingrid ...";
    ``owned``: the kin and pet nouns), and the "I" before what a person says of their life
    (``states``: diets and conditions a relative is, "my partner's vegan")."""

    def mine(match: re.Match[str]) -> str:
        if match.group(2).lower() in owned:
            return f"{match.group(1)}my {match.group(2)} {match.group(3)}"
        return match.group(0)

    # "we went w/ deno fresh": the parser reads "w/" as a name and loses the clause
    line = _SHORTHAND.sub(lambda m: _SPELLED[m.group(0).lower()], line)
    line = _PROFILE_NOTE.sub(_as_said_by_oneself, line)
    line = _WERE_ON.sub(r"\1we're ", line)  # "were on unity 2022.3": "we're", its apostrophe lost
    line = _ITS_IS.sub("it's ", line)  # "unless its a sev1 hotfix": "it's", not a possessive
    line = _BECAUSE.sub("because ", line)  # "packs my meals cause im type 2 diabetic"
    line = _FRAME_FIRST.sub(r"\1, ", line)
    # "my advisor is prof. lindqvist": a title's period ends no sentence (the tokenizer knows "Prof.")
    line = _TITLE.sub(lambda m: m.group(1).capitalize() + ". ", line)
    # "when u explain R stuff pls use base R": the order after its condition, set off
    line = _WHEN_THEN_PLEASE.sub(r"\1, \2 ", line)
    # "for woodworking stuff use inches": the parser takes "use" for a noun without the comma
    line = _FOR_THEN_ORDER.sub(
        lambda m: m.group(0) if _CLAUSE_WORD.search(m.group(1)) else f"{m.group(1).rstrip()}, ", line
    )
    line = _OWNER_FIRST.sub(mine, line)
    line = _GREETED_NAME.sub(r"\1I'm ", line)
    line = _DASHED_QUESTION.sub(". ", line)
    line = _BARE_NAME.sub(r"\1my name is", line)
    line = _NAME_IS.sub(r"\1 is", line)
    line = _MY_NAME.sub(r"\1 is ", line)
    line = _CALLED_IS.sub(r"\1 is ", line)
    line = _KIN_IS.sub(lambda m: _kin_is(m, owned, states), line)
    line = _BUT_LIVING.sub(_living_said_alone, line)
    line = _RULE_IS.sub(r"\1. ", line)  # "my name's Tomasz": the parser reads a possessive
    # "ok so I'm Dave I run a little landscaping business": dictated, an "I" after one's name starts anew
    line = _NEW_I.sub(r"\1. I ", line)
    return _SUBJECTLESS.sub(
        lambda m: (
            m.group(1) + _SUBJECTS[_subject_key(m.group(2))] + re.sub(r"\b(?:n|&)\b", "and", m.group(2))
        ),
        line,
    )


def run_on_cut(line: str, doc: Any) -> str | None:
    """``line`` (as parsed into ``doc``) cut at each "so" that starts a clause (not "so good", "so
    much"), or None when there is none: the small parser reads such a "so" as a preposition and
    loses the statement before it."""
    cuts = [
        t.idx
        for t in doc
        if t.lower_ == "so"
        and 2 <= t.i < len(doc) - 2
        and doc[t.i + 1].pos_ not in ("ADJ", "ADV", "PUNCT", "SCONJ")
        and doc[t.i - 1].lower_ not in _NOT_AFTER_SO
        and doc[t.i - 1].pos_ != "PUNCT"
        and not (t.head.i > t.i and t.head.pos_ in ("ADJ", "ADV"))  # "so good": an intensifier
    ]
    # "show me the whole file ..., not just a diff — i copy paste the entire thing": after an order, a
    # dash before a new subject ends the sentence (the reason is not part of the rule)
    dashes = [
        t.idx
        for t in doc
        if t.text in ("\u2014", "\u2013", "-", "--")
        and 2 <= t.i < len(doc) - 2
        and t.whitespace_
        and doc[t.i + 1].lower_ in _NEW_SUBJECTS
        and (doc[t.i + 2].pos_ in ("VERB", "AUX") or doc[t.i + 1].lower_ in ("its", "it's", "im", "i'm"))
        and _opens_with_order(doc[t.sent.start : t.i])
    ]
    if not cuts and not dashes:
        return None
    for at in sorted(cuts + dashes, reverse=True):
        if at in dashes:
            after = line[at:].split(None, 1)  # the dash, then what follows it
            rest = after[1] if len(after) > 1 else ""
            line = f"{line[:at].rstrip()}. {rest[:1].upper()}{rest[1:]}"  # capitalised, or the parser runs on
        else:
            line = f"{line[:at].rstrip()}. {line[at:]}"
    return line


def _opens_with_order(span: Any) -> bool:
    skipped = (
        "pls",
        "please",
        "plz",
        "also",
        "and",
        "do",
        "dont",
        "don't",
        "nt",
        "n't",
        "not",
        "never",
        "always",
    )
    words = [t for t in span if not t.is_punct and t.lower_ not in skipped]
    return bool(words) and words[0].tag_ == "VB" and words[0].dep_ in ("ROOT", "advcl")
