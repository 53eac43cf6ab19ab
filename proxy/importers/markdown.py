"""Reading an instructions file (CLAUDE.md, AGENTS.md, Cursor rules, Copilot instructions) into
blocks: each bullet or paragraph, with the line it starts on.

What is not a statement of the user's is left out, as the proxy leaves it out of conversations:
headings, fenced code, quoted (``>``) text, tables, HTML comments (Mnemo's own section markers
among them) and ``@file`` references. Front matter (``.mdc`` rules, ``*.instructions.md``) is read
for the globs the rules apply to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_BULLET = re.compile(r"^\s{0,12}(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?(?P<text>.*)$")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_SKIPPED = re.compile(r"^\s{0,3}(?:#{1,6}(?:\s|$)|>|\||@\S+\s*$|[-*_=]{3,}\s*$)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
MAX_BLOCK_CHARS = 2000


@dataclass(frozen=True, slots=True)
class Block:
    """One bullet or paragraph: its text on one line, and the line (1-based) it starts on."""

    line: int
    text: str


@dataclass(frozen=True, slots=True)
class Document:
    blocks: list[Block]
    front_matter: dict[str, str | list[str]] = field(default_factory=dict)

    @property
    def globs(self) -> list[str]:
        """The paths the rules apply to (Cursor ``globs``, Copilot ``applyTo``); none: everywhere."""
        raw = self.front_matter.get("globs") or self.front_matter.get("applyTo") or []
        globs = [raw] if isinstance(raw, str) else raw
        return [g for g in (part.strip() for glob in globs for part in glob.split(",")) if g and g != "**"]


def read_document(text: str) -> Document:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    front, start = _front_matter(lines)
    return Document(blocks=_blocks(_without_comments(lines), start), front_matter=front)


def _front_matter(lines: list[str]) -> tuple[dict[str, str | list[str]], int]:
    """``key: value`` lines between a leading pair of ``---``. Cursor's front matter is not always
    YAML (``globs: *.ts`` is an alias there), so each line is read on its own, lists included."""
    if not lines or lines[0].strip() != "---":
        return {}, 0
    found: dict[str, str | list[str]] = {}
    key = ""
    for number, line in enumerate(lines[1:], start=1):
        if line.strip() == "---":
            return found, number + 1
        item = re.match(r"^\s+-\s+(.*)$", line)
        if item and key:
            previous = found.get(key)
            found[key] = [*(previous if isinstance(previous, list) else []), _unquote(item.group(1))]
            continue
        name, sep, value = line.partition(":")
        if sep and name.strip():
            key = name.strip()
            found[key] = _value(value.strip())
    return {}, 0  # no closing line: not front matter


def _value(raw: str) -> str | list[str]:
    if raw.startswith("[") and raw.endswith("]"):
        return [_unquote(part) for part in raw[1:-1].split(",") if part.strip()]
    return _unquote(raw) if raw else []


def _unquote(raw: str) -> str:
    raw = raw.strip()
    return raw[1:-1] if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"" else raw


def _without_comments(lines: list[str]) -> list[str]:
    """The lines with HTML comments blanked, line numbers kept."""
    joined = "\n".join(lines)
    blanked = _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), joined)
    return blanked.split("\n")


def _blocks(lines: list[str], start: int) -> list[Block]:
    blocks: list[Block] = []
    current: list[str] = []
    first = 0
    fenced = False

    def close() -> None:
        nonlocal current
        text = clean(" ".join(current))
        if text:
            blocks.append(Block(line=first, text=text[:MAX_BLOCK_CHARS]))
        current = []

    for number, line in enumerate(lines[start:], start=start + 1):
        if _FENCE.match(line):
            close()
            fenced = not fenced
            continue
        if fenced or not line.strip() or _SKIPPED.match(line):
            close()
            continue
        bullet = _BULLET.match(line)
        if bullet:
            close()
            current, first = [bullet.group("text")], number
        elif current:
            current.append(line.strip())
        else:
            current, first = [line.strip()], number
    close()
    return blocks


def clean(text: str) -> str:
    """A block as a sentence: links as their words, no emphasis marks, one space between words."""
    text = _LINK.sub(r"\1", text)
    text = _EMPHASIS.sub(r"\2", text)
    return " ".join(text.split())
