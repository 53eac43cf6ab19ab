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
import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from importlib import resources
from typing import Literal

REDACTED = "[redacted]"
Check = Literal["luhn", "secretish"]
_KEYS = frozenset({"id", "pattern", "source", "check", "public"})
# a long unbroken run of base64 letters: a key, unless it is only hex or only digits
_RUN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{32,}={0,2}(?![A-Za-z0-9+/_-])")
_HEX = re.compile(r"^(?:sha\d+:)?[0-9a-fA-F-]+$")
# a value that stands in for a secret in docs and templates
_PLACEHOLDER = re.compile(r"(?i)your[_-]|[_-]here\b|<[^>]*>|x{4,}|\*{4,}|example|placeholder|changeme|\.\.\.")


@dataclass(frozen=True, slots=True)
class SecretKind:
    id: str
    pattern: str
    source: str
    check: Check | None = None
    public: bool = False  # published material that looks random; nothing inside it is cut


def load_kinds(text: str, name: str) -> tuple[SecretKind, ...]:
    """The kinds of a secrets file, strictly: an unknown field, a bad pattern or a repeated id is an
    error naming the line."""
    kinds: list[SecretKind] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: not valid JSON: {exc.msg}") from exc
        if not isinstance(raw, dict) or set(raw) - _KEYS or not {"id", "pattern", "source"} <= set(raw):
            raise ValueError(f"{where}: a kind has id, pattern, source and maybe check, nothing else")
        if raw.get("check") not in (None, "luhn", "secretish"):
            raise ValueError(f"{where}: check must be luhn or secretish")
        if raw.get("public", False) not in (True, False):
            raise ValueError(f"{where}: public is true or false")
        try:
            re.compile(raw["pattern"])
        except re.error as exc:
            raise ValueError(f"{where}: pattern does not compile: {exc}") from exc
        if any(k.id == raw["id"] for k in kinds):
            raise ValueError(f"{where}: id {raw['id']!r} given twice")
        kinds.append(
            SecretKind(raw["id"], raw["pattern"], raw["source"], raw.get("check"), raw.get("public", False))
        )
    return tuple(kinds)


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
                if check == "luhn" and not _luhn(value):
                    continue
                if check == "secretish" and not _secretish(_named_value(value)):
                    continue
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
    """The value in "DB_PASS=hunter2", "password is hunter2", "token: 'abc'"."""
    value = re.split(r"\s*(?:=|:=|:|\bis\b)\s*", match, maxsplit=1)[-1]
    return value.strip("\"' ").rstrip(".,;:!?)")


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
    if re.search(r"[=:]\S", text.rstrip("=")) or _wordy(text):
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
