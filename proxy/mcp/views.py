"""How the tools show records."""

from __future__ import annotations

from typing import Any

from core.model import Memory


def summary(memory: Memory) -> dict[str, Any]:
    """What a search result shows of a record; show_memory has the rest (source, history)."""
    return {
        "id": memory.id,
        "text": memory.text,
        "kind": memory.kind.value,
        "evidence": memory.evidence.value,
        "confidence": memory.confidence,
        "status": memory.status.value,
        "scope": memory.scope.as_dict(),
        "key": memory.key,
        "value": memory.value,
        "observed_at": memory.observed_at.isoformat(),
    }
