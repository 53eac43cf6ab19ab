"""The scope filter inside the store's query, against the real index: it returns exactly what
``is_visible`` allows, whatever characters the scope values hold."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.scope import Scope, is_visible
from harness.helpers import memory_record
from proxy.memory.embedded import EmbeddedStore
from proxy.memory.redis_store import RedisMemoryStore
from proxy.memory.store import ListQuery, RecallQuery

pytestmark = [pytest.mark.integration, pytest.mark.store_contract]

NASTY = st.sampled_from(
    [
        "{",
        "}",
        "|",
        "@",
        "*",
        "-",
        ":",
        '"',
        "'",
        "(",
        ")",
        "\\",
        ",",
        " ",
        "é",
        "ß",
        "東京",
        "a b",
        "x" * 400,
        "acme",
        "ACME",
        "beta",
        "$",
        "%",
        "~",
        "none",
        "$[",
        "\n",
    ]
)
SCOPE_VALUE = st.one_of(st.none(), NASTY, st.text(min_size=1, max_size=40)).map(
    lambda v: None if v is None or not v.strip() else v
)


T = TypeVar("T")


class _Loop:
    """One event loop for the module: the store's client is bound to the loop it first ran on."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(work)


@pytest.fixture(scope="module")
def real_store(store: EmbeddedStore) -> Iterator[tuple[RedisMemoryStore, _Loop]]:
    loop = _Loop()
    token = uuid.uuid4().hex[:6]
    memory_store = RedisMemoryStore(
        store.url, "test-model-4d", 4, timeout_s=5, index_name=f"isolation_{token}", prefix=f"iso{token}"
    )
    loop.run(memory_store.open())
    yield memory_store, loop
    loop.run(memory_store.close())
    loop.loop.close()


_memory = memory_record


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(st.tuples(NASTY, SCOPE_VALUE, SCOPE_VALUE, SCOPE_VALUE), min_size=1, max_size=6),
    st.tuples(NASTY, SCOPE_VALUE, SCOPE_VALUE, SCOPE_VALUE),
)
def test_recall_returns_exactly_the_visible_records(
    real_store: tuple[RedisMemoryStore, _Loop],
    stored: list[tuple[str, str | None, str | None, str | None]],
    asking: tuple[str, str | None, str | None, str | None],
) -> None:
    memory_store, loop = real_store
    marker = uuid.uuid4().hex[:10]
    written = [_memory(Scope(*levels), f"fact {marker} {i}") for i, levels in enumerate(stored)]
    vector = np.array([1, 0, 0, 0], dtype=np.float32)
    for memory in written:
        loop.run(memory_store.put(memory, vector))
    request = Scope(*asking)
    found = loop.run(
        memory_store.recall(
            RecallQuery(scope=request, text=f"fact {marker}", vector=vector, limit=100, candidates=1000)
        )
    )
    found_ids = {m.memory.id for m in found}
    expected = {m.id for m in written if is_visible(m.scope, request)}
    # other examples' records may be visible too; ours must match the rule exactly
    assert found_ids & {m.id for m in written} == expected
    assert all(is_visible(m.memory.scope, request) for m in found)
    listed = loop.run(memory_store.list_memories(ListQuery(org=request.org, visible_to=request, limit=1000)))
    assert all(is_visible(m.scope, request) for m in listed.memories)


def test_an_index_of_another_embedding_model_is_refused(
    real_store: tuple[RedisMemoryStore, _Loop], store: EmbeddedStore
) -> None:
    from core.errors import EmbeddingModelMismatch

    memory_store, loop = real_store
    other = RedisMemoryStore(
        store.url,
        "another-model",
        8,
        timeout_s=5,
        index_name=memory_store.schema.index.name,
        prefix=memory_store.schema.index.prefix,
    )
    with pytest.raises(EmbeddingModelMismatch, match="another-model"):
        loop.run(other.open())
    loop.run(other.close())
