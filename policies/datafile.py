"""Data files of declared records, one JSON object a line: each line is decoded by msgspec against a
Struct, and an error names the file, the line and what is wrong (``says``: what each field must be)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TypeVar

import msgspec

T = TypeVar("T")


def decode_lines(text: str, name: str, kind: type[T], says: Mapping[str, str]) -> Iterator[tuple[str, T]]:
    """Each non-blank line as ``kind``, with where it is (``name:line``); ValueError names a line that
    is not. ``says[""]`` is said of a line whose shape is wrong, ``says[field]`` of a wrong field."""
    decoder = msgspec.json.Decoder(kind)
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        try:
            yield where, decoder.decode(line)
        except msgspec.ValidationError as exc:
            field = str(exc).partition(" - at `$.")[2].rstrip("`")
            raise ValueError(f"{where}: {says.get(field) or says['']}") from exc
        except msgspec.DecodeError as exc:
            raise ValueError(f"{where}: not valid JSON: {exc}") from exc
