"""What an extractor takes and gives. Extractors are pure over their input: no store, no clock."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Turn:
    """One message of the exchange, as text, with its position in the request."""

    role: str
    text: str
    index: int


@dataclass(frozen=True, slots=True)
class Candidate:
    """A fact the rules found, before policy decides whether and where to keep it.

    ``text_template`` still holds ``{subject}``: who or what the fact is about is only known
    once the policy has chosen the scope it is written to.
    """

    kind: str
    scope_level: str
    key: str | None
    value: str
    text_template: str
    span: str
    turn: Turn
    confidence: float
    rule_id: str
    extractor: str
    fields: dict[str, str] = field(default_factory=dict)
    qualifier: str | None = None  # "in the docs/ folder": the fact holds only there
    when: str | None = None  # "last week": when the fact began to hold, as said
    previous_value: str | None = None  # "switched from npm to pnpm": the value it replaced
    previous_text_template: str | None = None
    sentence: str = ""  # the whole sentence the span came from


class Extractor(Protocol):
    name: str

    def extract(self, turns: list[Turn]) -> list[Candidate]:
        """Blocking and CPU-bound: run it in a worker thread, never on the event loop."""
        ...

    def extract_many(self, batches: list[list[Turn]]) -> list[list[Candidate]]: ...
