"""What an import of an instructions file did (or, dry, would do), line by line."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

MAX_LISTED = 500


def _text(description: str) -> Meta:
    return Meta(description=description)


class LineRefusal(msgspec.Struct):
    line: int
    reason: str


class LineOutcome(msgspec.Struct):
    """One record a line gave, and what became of it."""

    line: Annotated[int, _text("the line of the file its bullet or paragraph starts on")]
    action: Annotated[
        str,
        _text(
            "insert, supersede (a new value for its slot), merge (a near-duplicate), unchanged "
            "(already held), quarantined (held for review), refused, close (no longer in the file)"
        ),
    ]
    kind: str
    text: str
    scope: dict[str, str | None]
    key: str | None = None
    value: str | None = None
    qualifier: str | None = None
    id: str | None = None


class FileImportResult(msgspec.Struct, kw_only=True):
    """An instructions file (CLAUDE.md, AGENTS.md, Cursor rules, Copilot instructions) imported:
    each bullet or paragraph read into facts and rules, each through the policy."""

    object: Literal["import"] = "import"
    format: str
    file: Annotated[str, _text("the file as the records' source names it")]
    file_sha256: str
    project: str | None
    dry_run: bool
    blocks: Annotated[int, _text("bullets and paragraphs read")]
    imported: int = 0
    superseded: int = 0
    merged: int = 0
    unchanged: Annotated[int, _text("records the file gives that were already held as they are")] = 0
    quarantined: int = 0
    refused: int = 0
    closed: Annotated[int, _text("records imported from this file before that it no longer states")] = 0
    refusals: list[LineRefusal] = msgspec.field(default_factory=list)
    records: Annotated[list[LineOutcome], _text(f"the first {MAX_LISTED} outcomes")] = msgspec.field(
        default_factory=list
    )

    def add(self, outcome: LineOutcome) -> None:
        counter = {
            "insert": "imported",
            "supersede": "superseded",
            "merge": "merged",
            "unchanged": "unchanged",
            "quarantined": "quarantined",
            "refused": "refused",
            "close": "closed",
        }[outcome.action]
        setattr(self, counter, getattr(self, counter) + 1)
        if len(self.records) < MAX_LISTED:
            self.records.append(outcome)
