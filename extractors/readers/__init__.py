"""Readers: from a parsed sentence and its clauses to facts.

Each reader knows one kind of fact and reads it from structure, never from a list of sentences:
- ``stack``: products a project (or a user) uses, from clauses, labeled lines and rundowns;
- ``commands``: a command and what it is for;
- ``rules``: standing imperatives, habits, norms about code, how answers should look, exceptions;
- ``personal``: the frames of ``patterns/frames.jsonl``, answers, and durable first-person statements;
- ``events``: events of a life or a project, outcomes, and what a coding agent reports it did.

``Readers`` puts them together for the pipeline; the word classes and the vocabulary are shared.
"""

from __future__ import annotations

from extractors.readers.commands import CommandReader
from extractors.readers.common import Fact
from extractors.readers.context import ContextNotes
from extractors.readers.events import EventReader
from extractors.readers.intro import Introductions
from extractors.readers.personal import PersonalReader
from extractors.readers.reports import ReportSentences

__all__ = ["Fact", "Readers"]


class Readers(PersonalReader, EventReader, CommandReader, ReportSentences, ContextNotes, Introductions):
    """Every reader, over one lexicon and one vocabulary."""
