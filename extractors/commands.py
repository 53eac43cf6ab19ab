"""In-chat memory commands the user gives in plain words ("forget that we use yarn")."""

from __future__ import annotations

import re

_FORGET = re.compile(
    r"^\s*(?:please\s+|and\s+|also\s+|ok(?:ay)?,?\s+)?(?:you\s+(?:can|may|should|could)\s+)?(?:please\s+)?"
    r"(?:forget|stop\s+remembering|don'?t\s+remember|(?:remove|forget|delete|drop)\s+what\s+you\s+know\s+about|"
    r"do\s+not\s+remember|unlearn|remove\s+(?:the\s+|your\s+)?memor(?:y|ies)\s+(?:of|about|that)|"
    r"delete\s+(?:the\s+|your\s+)?memor(?:y|ies)\s+(?:of|about|that))\s+"
    r"(?:(?:that|about|the\s+fact\s+that|what\s+i\s+said\s+about)\s+)?(?P<what>.+?)\s*[.!]?\s*$",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_LINE_SENTENCE_END = re.compile(r"(?<=[.!?])[ \t]+")


def forget_requests(text: str) -> list[str]:
    """What the user asks to be forgotten, one entry per command sentence."""
    found = []
    for sentence in _SENTENCE_END.split(text):
        match = _FORGET.match(sentence)
        if match and len(match.group("what").split()) <= 30:
            found.append(match.group("what"))
    return found


def is_forget_request(sentence: str) -> bool:
    return _FORGET.match(sentence) is not None


def without_forget_requests(text: str) -> str:
    """The text minus its forget commands: what was asked to be forgotten is never queued, not even
    in the sentence that asks."""
    if not forget_requests(text):
        return text
    lines = []
    for line in text.split("\n"):
        kept = [s for s in _LINE_SENTENCE_END.split(line) if s.strip() and not is_forget_request(s)]
        lines.append(" ".join(kept))
    return "\n".join(lines).strip()
