"""Text that must never be stored or queued: credentials, keys and personal numbers.

The known formats are data (``policies/patterns/secrets.jsonl``, after detect-secrets' plugins and
the providers' own token formats), each a pattern with an id and, where a format alone would cut
ordinary text, a check: ``luhn`` for card numbers, ``secretish`` for a value after a key-like name
("DB_PASS=hunter2x9", not "the token is expired" or "your_key_here"). Two shapes need no name at
all: a private key's body without its armour (in the data) and a long high-entropy run of mixed
letters and digits. Git hashes, UUIDs, digests and build ids (hex or digits only) are never cut, nor
is what the data marks ``public``: certificates, public keys, fingerprints, integrity hashes, etags
look random but are published on purpose.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from importlib import resources
from typing import Literal

import msgspec

from policies.datafile import decode_lines

REDACTED = "[redacted]"
Check = Literal["luhn", "secretish", "made", "mixed"]
# a long unbroken run of base64 letters: a key, unless it is only hex or only digits
_RUN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{32,}={0,2}(?![A-Za-z0-9+/_-])")
_HEX = re.compile(r"^(?:sha\d+:)?[0-9a-fA-F-]+$")
# a value that stands in for a secret in docs and templates
_TEMPLATE = re.compile(
    r"(?i)x{4,}|\*{4,}|your[_-]|[_-]here\b|example|placeholder|changeme|replace[_-]?me|redacted"
)
_PLACEHOLDER = re.compile(
    r"(?i)your[_-]|[_-]here\b|<[^>]*>|^<|^\$\{|^\$[A-Z_]+$|^\{\{|^%\(|x{4,}|\*{4,}|example|placeholder"
    r"|changeme|replace[_-]?me|redacted|dummy|\.\.\."
)


class SecretKind(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One line of a secrets file."""

    id: str
    pattern: str
    source: str
    check: Check | None = None
    public: bool = False  # published material that looks random; nothing inside it is cut


_SAYS = {
    "": "a kind has id, pattern, source and maybe check, nothing else",
    "check": "check must be luhn, secretish, made or mixed",
    "public": "public is true or false",
}


def load_kinds(text: str, name: str) -> tuple[SecretKind, ...]:
    """The kinds of a secrets file, strictly: an unknown field, a bad pattern or a repeated id is an
    error naming the line."""
    kinds: dict[str, SecretKind] = {}
    for where, kind in decode_lines(text, name, SecretKind, _SAYS):
        try:
            re.compile(kind.pattern)
        except re.error as exc:
            raise ValueError(f"{where}: pattern does not compile: {exc}") from exc
        if kind.id in kinds:
            raise ValueError(f"{where}: id {kind.id!r} given twice")
        kinds[kind.id] = kind
    return tuple(kinds.values())


@functools.cache
def shipped_kinds() -> tuple[SecretKind, ...]:
    text = resources.files("policies").joinpath("patterns/secrets.jsonl").read_text(encoding="utf-8")
    return load_kinds(text, "policies/patterns/secrets.jsonl")


class SecretScanner:
    """Finds secrets in text; ``extra``: a policy's own patterns."""

    def __init__(self, kinds: tuple[SecretKind, ...], extra: tuple[str, ...] = ()) -> None:
        secret = [k for k in kinds if not k.public]
        every = [*secret, *(SecretKind(f"policy_{n}", p, "policy") for n, p in enumerate(extra))]
        # one pass finds whether anything may match; then each kind on its own, because in one
        # alternation a short match ('"private_key": "-----BEGIN') hides a longer one (the block)
        self._any = re.compile("|".join(f"(?:{kind.pattern})" for kind in every))
        self._kinds = [(re.compile(kind.pattern), kind.check) for kind in every]
        public = [k.pattern for k in kinds if k.public]
        self._public = re.compile("|".join(f"(?:{p})" for p in public)) if public else None

    def spans(self, text: str) -> list[tuple[int, int]]:
        published = [m.span() for m in self._public.finditer(text)] if self._public else []
        found: list[tuple[int, int]] = []
        for pattern, check in self._kinds if self._any.search(text) else ():
            for match in pattern.finditer(text):
                if any(a <= match.start() and match.end() <= b for a, b in published):
                    continue
                value = match.group(0)
                if len(value) < 120 and "\n" not in value and _TEMPLATE.search(value):
                    continue  # "xoxb-xxxxxxxx", "sk_test_your_key_here": a template, not a key
                if check == "luhn" and not _luhn(value):
                    continue
                if check == "secretish" and not _secretish(_named_value(value)):
                    continue
                if check == "made" and not _made(_named_value(value)):
                    continue
                if check == "mixed" and sum(_letters_and_digits(piece) for piece in value.split()) < 3:
                    continue  # "e7nm daos o46i 5ulq k2np", not "card 4242 4242 4242 4242 with"
                found.append(match.span())
        for match in _RUN.finditer(text):
            if any(a <= match.start() < b for a, b in [*found, *published]):
                continue
            if _random_run(match.group(0)):
                found.append(match.span())
        lone = text.strip()
        if not found and _lone_token(lone):
            start = text.index(lone)
            found.append((start, start + len(lone)))  # a message that is only a made-up token
        return _merged(found)

    def contains(self, text: str) -> bool:
        return bool(self.spans(text))

    def redact(self, text: str) -> str:
        """The text with every secret replaced, so it can be queued and logged safely."""
        out, last = [], 0
        for start, end in self.spans(text):
            out += [text[last:start], REDACTED]
            last = end
        return "".join([*out, text[last:]])


@functools.lru_cache(maxsize=16)
def secret_matcher(extra: tuple[str, ...] = ()) -> SecretScanner:
    return SecretScanner(shipped_kinds(), extra)


def contains_secret(text: str, matcher: SecretScanner) -> bool:
    return matcher.contains(text)


def redact(text: str, matcher: SecretScanner) -> str:
    return matcher.redact(text)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Overlapping spans as one: a block cut from its first byte to its last."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _luhn(value: str) -> bool:
    digits = [int(c) for c in value if c.isdigit()]
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for n, digit in enumerate(reversed(digits)):
        doubled = digit * 2 if n % 2 else digit
        total += doubled - 9 if doubled > 9 else doubled
    return total % 10 == 0


def _named_value(match: str) -> str:
    """The value in "DB_PASS=hunter2", "password is hunter2", "token: 'abc'", "auth token to `abc`"."""
    value = re.split(r"\s*(?:=|:=|:|\bis\b)\s*", match, maxsplit=1)[-1]
    if any(c.isspace() for c in value.strip()):
        value = value.split()[-1]
    return value.strip("\"'` ").rstrip(".,;:!?)")


def _made(value: str) -> bool:
    """A value named as a secret in prose that looks generated: a long hex string, or letters and
    digits mixed, but not a version, date, number, path or address."""
    if len(value) < 8 or _PLACEHOLDER.search(value) or "/" in value or "://" in value:
        return False
    if re.fullmatch(r"[0-9a-fA-F]{16,}", value):
        return True
    letters, digits = sum(c.isalpha() for c in value), sum(c.isdigit() for c in value)
    if not letters or not digits or re.fullmatch(r"v?\d+(?:[.-]\d+)+\w*", value):
        return False
    if re.fullmatch(r"[a-z]+\d+(?:\.\d+)*[a-z]*", value) or re.search(r"\.[a-z]{2,}(?:\.[a-z]{2,}|$)", value):
        return False  # a name with a version ("argon2id", "python3.11") or a host ("x.dkr.ecr.amazonaws.com")
    return _entropy(value) >= 2.75


def _letters_and_digits(piece: str) -> bool:
    return any(c.isalpha() for c in piece) and any(c.isdigit() for c in piece)


def _secretish(value: str) -> bool:
    """A value that looks made, not said: long enough and not a plain word ("expired", "required")."""
    if len(value) < 6 or value.lower() in ("none", "null", "required", "missing", "invalid"):
        return False
    if _PLACEHOLDER.search(value):
        return False
    mixed = (
        any(c.isdigit() for c in value) + any(c.isupper() for c in value) + any(c.islower() for c in value)
    )
    symbols = any(not c.isalnum() for c in value)
    return mixed >= 2 or symbols or _entropy(value) >= 3.5


def _lone_token(text: str) -> bool:
    """A whole message that is one made-up string ("fqmG0fn#H1LzlQ"): a password pasted alone."""
    if len(text) < 10 or any(c.isspace() for c in text) or "/" in text or "." in text:
        return False
    if re.search(r"[=:]\S", text.rstrip("=")) or _wordy(text) or _identifier(text):
        return False  # an assignment (the named kinds judge its value) or an identifier ("arn:aws:...")
    classes = (
        any(c.isdigit() for c in text)
        + any(c.isupper() for c in text)
        + any(c.islower() for c in text)
        + any(not c.isalnum() for c in text)
    )
    return classes >= 3 and _entropy(text) >= 3.3


def _random_run(run: str) -> bool:
    """A long run of letters and digits that reads like key material: both cases, digits, and the
    spread of a random string. Hex (git hashes, digests, UUIDs) and plain words are not."""
    body = run.rstrip("=")
    if _HEX.match(body) or body.isdigit():
        return False
    if "/" in body and (("-" in body or "_" in body) or _wordy(body)):
        return False  # a path: base64 has "/" but not "-" or "_" beside it, nor words between them
    parts = re.split(r"[-_]", body)
    if len(parts) > 1 and all(_HEX.match(p) or (p.isalpha() and len(p) <= 12) for p in parts if p):
        return False  # words and a digest ("Linux-pnpm-store-22fda6dd..."): a cache key, not a secret
    if not (
        any(c.isdigit() for c in body) and any(c.isupper() for c in body) and any(c.islower() for c in body)
    ):
        return False
    return _entropy(body) >= 4.3


def _entropy(value: str) -> float:
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _wordy(text: str) -> bool:
    """Two or more lowercase words between separators: a path or an identifier, not key material."""
    return (
        sum(
            1
            for part in re.split(r"[^A-Za-z0-9]+", text)
            if len(part) >= 4 and part.isalpha() and part.islower()
        )
        >= 2
    )


def _identifier(text: str) -> bool:
    """Words and numbers joined by dashes, dots or underscores ("A-commands-001", "Fix_123")."""
    parts = [part for part in re.split(r"[-_.]", text) if part]
    plain = all(part.isalpha() or part.isdigit() or len(part) <= 3 for part in parts)
    return len(parts) > 1 and plain and any(part.isalpha() and len(part) >= 3 for part in parts)
