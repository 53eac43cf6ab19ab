"""Pattern data: JSON Lines files validated line by line against declared types (msgspec Structs).

Every error names the file and line, and a whole file fails on its first bad line: a rule that
does not load must never be silently skipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from core.errors import ConfigError

T = TypeVar("T")


def read_jsonl(shipped: str, path: Path | None = None) -> Iterator[tuple[str, Any]]:
    """(``file:line``, parsed object) for each non-blank line of a shipped pattern file or ``path``."""
    if path is None:
        text = resources.files("extractors").joinpath(f"patterns/{shipped}").read_text(encoding="utf-8")
        name = f"extractors/patterns/{shipped}"
    else:
        text, name = path.read_text(encoding="utf-8"), str(path)
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        try:
            yield where, json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{where}: not valid JSON: {exc.msg}") from exc


def convert(raw: Any, into: type[T], where: str) -> T:
    """``raw`` as ``into``, strictly: unknown fields, wrong types and missing fields are errors."""
    try:
        return msgspec.convert(raw, into, strict=True)
    except msgspec.ValidationError as exc:
        raise ConfigError(f"{where}: {exc}") from exc


def load(shipped: str, into: type[T], path: Path | None = None) -> list[tuple[str, T]]:
    return [(where, convert(raw, into, where)) for where, raw in read_jsonl(shipped, path)]
