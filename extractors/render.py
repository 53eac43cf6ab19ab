"""A clause as one self-contained third-person sentence: "i'm vegan" -> "{subject} is vegan.".

The speaker becomes the record's subject (filled in once the scope is known), "my" its possessive,
the verb agrees with it; everything else keeps the user's own words, so values stay exact.
"""

from __future__ import annotations

import re
from typing import Any

Token = Any

SUBJECT_MARK = "\x00subject\x00"
_POSSESSIVE = f"{SUBJECT_MARK}'s"
# not "I-80", "the US" or the loop variables "i/j"
_FIRST_PERSON = re.compile(
    r"(?<![\w'/-])(?-i:(?!US\b))(?:i|me|my|mine|myself|we|us|our|ours|ourselves|i'm|i've|i'd|i'll|im|ive)(?![\w'/-])",
    re.I,
)
_TRIM_START = frozenset(
    [
        "btw",
        "fyi",
        "also",
        "oh",
        "and",
        "but",
        "so",
        "well",
        "anyway",
        "anyways",
        "actually",
        "honestly",
        "tbh",
        "ok",
        "okay",
        "alright",
        "yeah",
        "yes",
        "yep",
        "hey",
        "hi",
        "hello",
        "um",
        "uh",
        "hmm",
        "lol",
        "haha",
        "plus",
        "ps",
        "basically",
        "then",
        "just",
    ]
)
_TRIM_END = frozenset(
    [
        "lol",
        "haha",
        "btw",
        "tbh",
        "fyi",
        "too",
        "though",
        "thx",
        "thanks",
        "pls",
        "please",
        "lmao",
        "xd",
        "so",
        "and",
    ]
)
_AGREE = {
    "am": "is",
    "'m": "is",
    "m": "is",
    "are": "is",
    "'re": "is",
    "re": "is",
    "have": "has",
    "'ve": "has",
    "ve": "has",
    "do": "does",
    "was": "was",
    "were": "was",
}


def third_person(tokens: list[Token], subject: Token | None, referent: Token | None = None) -> str:
    """``tokens`` (one clause, in order) with the speaker as ``SUBJECT_MARK``.

    ``subject``: the clause's subject token when it is the speaker ("i", "we") or a speaker's
    possession ("my wife"); its finite verb is made to agree.
    """
    tokens = trim(tokens)
    if not tokens:
        return ""
    finite = _finite_verb(subject) if subject is not None and subject.lower_ in ("i", "we") else None
    in_subject = {t.i for t in subject.subtree} if subject is not None else set()
    together = (
        subject is not None
        and subject.lower_ not in ("i", "we", "me")
        and any(t.lower_ in ("i", "me") and t.i in in_subject for t in tokens)
    )
    if together:
        # "my wife Oluwaseun and I got married" -> "{subject} and their wife Oluwaseun got married"
        others = [t for t in tokens if t.i in in_subject and t.lower_ not in ("i", "me", "and", "&")]
        rest = [t for t in tokens if t.i not in in_subject]
        names = " ".join("their" if t.lower_ == "my" else t.text for t in others)
        return sentence(f"{SUBJECT_MARK} and {names} " + "".join(t.text_with_ws for t in rest).strip())
    parts: list[str] = []
    for token in tokens:
        lower = token.lower_
        word = token.text
        if subject is not None and token.i == subject.i and lower in ("i", "we"):
            word = SUBJECT_MARK
        elif referent is not None and subject is not None and token.i == subject.i:
            word = f"{_POSSESSIVE} {referent.text}"  # "he's a pilot" -> "{subject}'s husband is a pilot"
        elif lower in ("my", "our") and subject is not None and token.head.i == subject.i:
            word = _POSSESSIVE
        elif lower in ("my", "our"):
            # ("I live in Bremen with my partner and our greyhound": the speaker's household)
            word = "their" if lower == "my" or (subject is not None and subject.lower_ == "i") else "its"
        elif lower in ("me", "us"):
            word = "them"
        elif lower in ("myself", "ourselves"):
            word = "themselves"
        elif lower in ("mine", "ours"):
            word = "theirs"
        elif lower == "i" or lower == "we":
            word = "they"
        elif finite is not None and token.i == finite.i:
            word = _agree(token)
        elif lower in ("n't", "nt") and token.head.i == (finite.head.i if finite is not None else -1):
            word = "not"
        if word != token.text and parts and not parts[-1].endswith(" ") and word not in ("'s",):
            parts[-1] += " "
        parts.append(word + token.whitespace_)
    text = "".join(parts).strip()
    text = re.sub(r"\s+([,.;:!?])", r"\1", text)
    return sentence(text)


def implied_third_person(tokens: list[Token], head: Token) -> str:
    """A note with the "I" left out: "moved to Kraków in march", "allergic to peanuts"."""
    body = "".join(t.text_with_ws for t in tokens).strip()
    if not body:
        return ""
    # "allergic to peanuts", "studying for the CPA exam": the left-out "I'm"
    opens_with_ing = head.tag_ == "VBG" and tokens[0].i == head.i
    verb = "is " if head.pos_ in ("ADJ", "NOUN", "PROPN") or opens_with_ing else ""
    body = re.sub(r"(?<![\w'])my(?![\w'])", "their", body, flags=re.I)
    body = re.sub(r"(?<![\w'])me(?![\w'])", "them", body, flags=re.I)
    return sentence(f"{SUBJECT_MARK} {verb}{body[:1].lower() + body[1:]}")


def trim(tokens: list[Token]) -> list[Token]:
    """Without the discourse words and punctuation that open or close a clause in chat."""
    tokens = list(tokens)
    while tokens and (
        tokens[0].is_punct or tokens[0].lower_ in _TRIM_START or tokens[0].dep_ in ("intj", "cc")
    ):
        tokens.pop(0)
    while tokens and (
        (tokens[-1].is_punct and not glued_symbol(tokens))
        or tokens[-1].lower_ in _TRIM_END
        or tokens[-1].dep_ == "cc"
    ):
        if tokens[-1].text in (")", '"', "'") and any(t.text in ("(", '"', "'") for t in tokens[:-1]):
            break
        tokens.pop()
    return tokens


def glued_symbol(tokens: list[Token]) -> bool:
    """ "kbt_", "bugfix/", "C++": a symbol that ends a name or a path is part of it."""
    last = tokens[-1]
    return (
        len(tokens) > 1
        and last.text in ("_", "/", "+", "++", "#", "*", "%")
        and not tokens[-2].whitespace_
        and tokens[-2].i == last.i - 1
    )


def plain(tokens: list[Token]) -> str:
    """Tokens as written, with a space where tokens between them were left out."""
    kept = trim(tokens)
    out = ""
    for n, token in enumerate(kept):
        out += token.text
        if n + 1 < len(kept):
            out += token.whitespace_ if kept[n + 1].i == token.i + 1 else " "
    return out.strip()


def sentence(text: str) -> str:
    text = _closed(" ".join(text.split()))
    text = re.sub(r"\.\.+$", ".", text)
    if not text:
        return text
    body = text if text.startswith(SUBJECT_MARK) else text[:1].upper() + text[1:]
    return body if body.endswith((".", "!", "?")) else body + "."


def _closed(text: str) -> str:
    """ "started eating fish again (pescatarian now": an aside cut off by the clause's end is dropped."""
    depth, opened = 0, -1
    for n, ch in enumerate(text):
        if ch == "(" and (depth or n == 0 or text[n - 1] == " "):  # ("set.seed(42": code, kept)
            depth, opened = depth + 1, n if depth == 0 else opened
        elif ch == ")" and depth:
            depth -= 1
    if depth == 0 or len(text[:opened].split()) < 3:
        return text
    return text[:opened].rstrip(" ,;:-") + text[len(text.rstrip(".!?")) :]


def keeps_first_person(text: str) -> bool:
    """Whether a rendered sentence still speaks as "I" or "we" (then it is not self-contained)."""
    return bool(_FIRST_PERSON.search(text.replace(SUBJECT_MARK, "")))


def _finite_verb(subject: Token) -> Token | None:
    head = subject.head
    auxes = [c for c in head.children if c.dep_ in ("aux", "auxpass") and c.i > subject.i]
    if auxes:
        return auxes[0] if auxes[0].tag_ != "MD" else None
    return head if head.i > subject.i else None


def _agree(token: Token) -> str:
    lower = token.lower_
    if lower in _AGREE:
        return _AGREE[lower]
    if token.tag_ != "VBP" and not (token.tag_ == "VBD" and habit_misread(token)):
        return str(token.text)
    return third_singular(token.text)


def third_singular(verb: str) -> str:
    lower = verb.lower()
    if lower in ("be",):
        return "is"
    if lower == "have":
        return "has"
    if re.search(r"(?:s|sh|ch|x|z|o)$", lower):
        return verb + "es"
    if re.search(r"[^aeiou]y$", lower):
        return verb[:-1] + "ies"
    return verb + "s"


# how often one does a thing: with one of these, a verb in its bare form is the present tense
_HABITUAL = frozenset({"always", "usually", "normally", "typically", "generally", "often", "never", "mostly"})


def habit_misread(head: Token) -> bool:
    """ "I always book aisle seats": the tagger took the bare verb for a past tense; its form is its
    lemma and an adverb of habit goes with it (not "I always put ...", whose past is its form too)."""
    return (
        head.lower_ == head.lemma_.lower()
        and not head.lower_.endswith("ed")
        and head.lower_ not in _SAME_IN_THE_PAST
        and any(c.dep_ == "advmod" and c.lower_ in _HABITUAL for c in head.children)
    )


# verbs whose past is their bare form: "I always put", "we never set"
_SAME_IN_THE_PAST = frozenset(
    {
        "put",
        "set",
        "cut",
        "hit",
        "let",
        "read",
        "quit",
        "shut",
        "spread",
        "cost",
        "hurt",
        "bet",
        "split",
        "cast",
    }
)
