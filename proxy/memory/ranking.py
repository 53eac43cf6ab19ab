"""Ranking for recall, as pure functions: the keyword query and the fusion of vector and keyword
results. ``proxy.memory.redis_store`` runs the searches."""

from __future__ import annotations

import re
from typing import Any

from core.model import from_hash
from proxy.memory.store import RecallQuery, ScoredMemory

_RRF_K = 10  # small k: candidate lists are short, so ranks near the top should dominate
_WORD = re.compile(r"\w+", re.UNICODE)
_MAX_QUERY_TERMS = 24
# Words that carry no topic; kept short on purpose (BM25's idf handles the rest).
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "can",
        "could",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "how",
        "i",
        "i'm",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "should",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "us",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)


def keyword_query(text: str) -> str:
    """Distinct content words of the query, safe for the text search syntax."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        if word not in STOPWORDS and len(word) > 1:
            seen.setdefault(word, None)
    return " ".join(list(seen)[:_MAX_QUERY_TERMS])


def fuse(
    vector_rows: list[dict[str, Any]], text_rows: list[dict[str, Any]], query: RecallQuery
) -> list[ScoredMemory]:
    """Weighted reciprocal-rank fusion of the vector and keyword result lists, best first.

    Scores are scaled to 0..1 (1 = first in both lists), so a minimum score means the same
    whatever the weights.
    """
    best = query.vector_weight / (_RRF_K + 1) + query.text_weight / (_RRF_K + 1)
    scores: dict[str, float] = {}
    rows: dict[str, dict[str, Any]] = {}
    similarity: dict[str, float] = {}
    keyword_rank: dict[str, int] = {}
    for rank, row in enumerate(vector_rows, start=1):
        scores[row["id"]] = scores.get(row["id"], 0.0) + query.vector_weight / (_RRF_K + rank)
        rows[row["id"]] = row
        similarity[row["id"]] = 1.0 - float(row.get("vector_distance", 1.0))
    for rank, row in enumerate(text_rows, start=1):
        scores[row["id"]] = scores.get(row["id"], 0.0) + query.text_weight / (_RRF_K + rank)
        rows.setdefault(row["id"], row)
        keyword_rank.setdefault(row["id"], rank)
    ranked = sorted(scores, key=lambda doc_id: scores[doc_id], reverse=True)[: query.limit]
    return [
        ScoredMemory(
            memory=from_hash(rows[doc_id]),
            score=scores[doc_id] / best,
            similarity=similarity.get(doc_id),
            keyword_rank=keyword_rank.get(doc_id),
        )
        for doc_id in ranked
    ]
