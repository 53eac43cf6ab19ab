"""Pattern data: JSON Lines files, each line decoded into a declared row type (a msgspec Struct).

Every row type forbids unknown fields, and lines are decoded strictly (no "1" for 1), so a typo
or a wrong type is an error, not a default. Every error names the file and line, then the problem
as msgspec words it, ending with the field (``... - at `$.ambiguous```); a whole file fails on its
first bad line: a rule that does not load must never be silently skipped. Checks across rows (an
alias naming two products, a duplicate id) stay with each loader, after decoding.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TypeVar

import msgspec

from core.errors import ConfigError

T = TypeVar("T")


def load(shipped: str, into: type[T], path: Path | None = None) -> list[tuple[str, T]]:
    """(``file:line``, row) for each non-blank line of a shipped pattern file, or of ``path``."""
    if path is None:
        text = resources.files("extractors").joinpath(f"patterns/{shipped}").read_text(encoding="utf-8")
        name = f"extractors/patterns/{shipped}"
    else:
        text, name = path.read_text(encoding="utf-8"), str(path)
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            where = f"{name}:{number}"
            rows.append((where, _decode(line, into, where)))
    return rows


def _decode(line: str, into: type[T], where: str) -> T:
    try:
        return msgspec.json.decode(line, type=into, strict=True)
    except msgspec.ValidationError as exc:  # a field missing, unknown, or of the wrong type
        raise ConfigError(f"{where}: {exc}") from exc
    except msgspec.DecodeError as exc:
        raise ConfigError(f"{where}: not valid JSON: {exc}") from exc
