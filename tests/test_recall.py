"""Recall against the real index and model: relevance when a request sees more than the budget."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from core.scope import Scope
from harness.helpers import memory_record
from proxy.memory.embedded import EmbeddedStore
from proxy.memory.embeddings import EmbeddingService, MiniLMOnnxEmbedder
from proxy.memory.redis_store import RedisMemoryStore
from proxy.recall import recall
from proxy.settings import RecallSettings

pytestmark = [pytest.mark.integration, pytest.mark.store_contract]

FILLER = [
    f"Project p note {i}: the {a} service owns the {b} queue."
    for i, (a, b) in enumerate(
        (a, b)
        for a in ("billing", "search", "auth", "mail", "upload")
        for b in ("retry", "audit", "import", "export")
    )
]
RELEVANT = "Project p uses pnpm as its JavaScript package manager, not npm."


_memory = memory_record


def test_hybrid_recall_ranks_the_relevant_record_first_within_the_budget(store: EmbeddedStore) -> None:
    async def run() -> None:
        embedder = MiniLMOnnxEmbedder()
        service = EmbeddingService(embedder)
        token = uuid.uuid4().hex[:6]
        memory_store = RedisMemoryStore(
            store.url,
            embedder.model_id,
            embedder.dims,
            timeout_s=5,
            index_name=f"recall_{token}",
            prefix=f"rc{token}",
        )
        await memory_store.open()
        scope = Scope("local", project=f"p-{token}")
        texts = [*FILLER, RELEVANT]
        for text, vector in zip(texts, embedder.embed(texts), strict=True):
            await memory_store.put(_memory(scope, text), vector)
        settings = RecallSettings(max_memories=5, timeout_s=5)
        for question in (
            "Which package manager should I use to install dependencies?",
            "npm or pnpm here?",
            "how do I add a JavaScript library",
        ):
            outcome = await recall(memory_store, service, scope, question, settings)
            assert outcome.status == "ok"
            # within the budget; the fillers, about other things, stay out
            assert 1 <= len(outcome.memories) <= 5
            assert outcome.memories[0].memory.text == RELEVANT, (
                question,
                [m.memory.text for m in outcome.memories],
            )
        # however few the records, a request about something else gets none of them
        few_scope = Scope("local", project=f"few-{token}")
        for text, vector in zip(texts[:3], embedder.embed(texts[:3]), strict=True):
            await memory_store.put(_memory(few_scope, text), vector)
        outcome = await recall(memory_store, service, few_scope, "unrelated question about cats", settings)
        assert outcome.memories == []
        outcome = await recall(memory_store, service, few_scope, "who owns the retry queue?", settings)
        assert [m.memory.text for m in outcome.memories][:1] == [texts[0]]
        await memory_store.close()

    asyncio.run(run())
