"""Clauses and what they assert, from spaCy's parse.

A sentence holds one clause per verb that heads one (the root, verbs joined by "and", complement
and adverbial clauses). For each clause this module reads who it is about and how it is said:
asked or stated, ordered (imperative), negated, hedged, planned, wished, reported from someone
else, conditional, momentary, or standing ("always", "every time"). The readers decide what to
keep from these features; nothing here knows about products or slots.

- ``model``: the ``Clause`` and its features;
- ``who``: who a clause is about;
- ``features``: how it is said;
- ``reader``: cutting a sentence into clauses.
"""

from __future__ import annotations

from extractors.clauses.model import PLEASE, Clause
from extractors.clauses.reader import QUESTION_WORDS, ClauseReader

__all__ = ["PLEASE", "QUESTION_WORDS", "Clause", "ClauseReader"]
