"""Export: every record a query matches, every version, as JSON Lines read a page at a time."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from dataclasses import replace

from core.model import Memory
from proxy.memory.store import ListQuery, MemoryStore

EXPORT_PAGE = 500


def export_line(memory: Memory, vector: bytes | None, model: str) -> bytes:
    record = memory.to_json()
    if vector is not None:
        # every vector in one index comes from the index's model, whatever an old record says
        record["embedding"] = base64.b64encode(vector).decode("ascii")
        record["embedding_model"] = model
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


async def export_lines(
    store: MemoryStore, query: ListQuery, vectors: bool, model: str
) -> AsyncIterator[bytes]:
    """Every record the query matches, every version, as JSON Lines; read a page at a time.
    With ``vectors``, each line carries its vector, made by ``model``."""
    page_query = replace(query, limit=EXPORT_PAGE, offset=0, after=None)
    while True:
        page = await store.list_memories(page_query)
        stored = await store.vectors([m.id for m in page.memories]) if vectors else {}
        yield b"".join(export_line(memory, stored.get(memory.id), model) for memory in page.memories)
        if page.next_cursor is None:
            return
        page_query = replace(page_query, after=page.next_cursor)
