"""Text that must never be stored: credentials and keys. Checked on every field before a write."""

from __future__ import annotations

import functools
import re

_BUILTIN = (
    r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}",  # OpenAI / Anthropic API keys
    r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}",  # GitHub tokens
    r"\bAKIA[0-9A-Z]{16}\b",  # AWS access key ids
    r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}",  # Stripe keys
    r"\b(?:glpat|gldt|glrt)-[A-Za-z0-9_-]{16,}",  # GitLab tokens
    r"\bnpm_[A-Za-z0-9]{30,}",  # npm tokens
    r"\bhf_[A-Za-z0-9]{30,}",  # Hugging Face tokens
    r"\b(?:SG|xkeysib)[.-][A-Za-z0-9_-]{16,}",  # SendGrid, Brevo keys
    # dotted tokens named as such
    r"\b[A-Za-z0-9]{8,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{20,}\b(?=.*(?:token|key|secret))",
    r"\bxox[abprs]-[A-Za-z0-9-]{10,}",  # Slack tokens
    r"\bAIza[0-9A-Za-z_-]{35}\b",  # Google API keys
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----",
    r"\b[Bb]earer\s+[A-Za-z0-9._~+/-]{16,}=*",
    r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",  # JWTs
    r"\b[a-z][a-z0-9+.-]*://[^\s:/@]+:[^\s@/]+@",  # URLs with user:password
    # "password: ...", and environment-style names around the word: AWS_SECRET_ACCESS_KEY=..., DB_PASSWORD=...
    r"(?i:\b(?:[a-z0-9]+_)*(?:password|passwd|pwd|passphrase|secret|api[_ -]?key|token|access[_-]?key)"
    r"(?:_[a-z0-9]+)*\s*(?:is|=|:)\s*\S{4,})",
    r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b",  # email addresses
    r"\+\d{1,3}(?:[\s.-]?\(?\d{2,4}\)?){2,4}\b",  # phone numbers, international
    r"(?<![\w+-])\(?\d{3}\)?[\s.-]?\d{3}[\s.-]?\d{4}\b",  # phone numbers, 3-3-4
    r"\b(?:\d[ -]?){13,19}\b",  # card numbers
)


@functools.lru_cache(maxsize=16)
def secret_matcher(extra: tuple[str, ...] = ()) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in (*_BUILTIN, *extra)))


def contains_secret(text: str, matcher: re.Pattern[str]) -> bool:
    return matcher.search(text) is not None


REDACTED = "[redacted]"


def redact(text: str, matcher: re.Pattern[str]) -> str:
    """The text with every secret replaced, so it can be queued and logged safely."""
    return matcher.sub(REDACTED, text)
