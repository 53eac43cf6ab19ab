"""Fill a store with N memory records fast: a few real facts in the benchmark's scope, the rest in
other scopes (the realistic case for a shared store), with random unit vectors."""

from __future__ import annotations

import asyncio
import random

import numpy as np

from core.model import Memory
from core.scope import Scope
from harness.helpers import memory_record
from proxy.memory.embeddings import Embedder
from proxy.memory.redis_schema import hash_row
from proxy.memory.redis_store import RedisMemoryStore

BENCH_SCOPE = Scope(org="local", project="bench-proj", user="bench-user")
IN_SCOPE_FACTS = [
    "Project bench-proj uses pnpm as its JavaScript package manager, not npm.",
    "Project bench-proj: always run pnpm test before opening a pull request.",
    "Project bench-proj uses Python 3.12.",
    "Project bench-proj uses PostgreSQL.",
    "Project bench-proj uses Sentry for error tracking.",
    "Project bench-proj: the lint command is ruff check.",
    "Project bench-proj rule: Never commit directly to main.",
    "The user prefers concise bullet points.",
    "User bench-user's time zone is UTC+2.",
    "User bench-user is a senior backend engineer.",
    *(
        f"Project bench-proj note {i}: the {w} service owns the {x} queue."
        for i, (w, x) in enumerate(
            [
                (a, b)
                for a in ("billing", "search", "auth", "mail", "upload", "report")
                for b in ("retry", "dead-letter", "audit", "import", "export")
            ]
        )
    ),
]
_WORDS = [
    "deploy",
    "build",
    "test",
    "lint",
    "cache",
    "queue",
    "index",
    "schema",
    "migrate",
    "token",
    "session",
    "worker",
    "proxy",
    "react",
    "vue",
    "django",
    "flask",
    "yarn",
    "npm",
    "pnpm",
    "docker",
    "kubernetes",
    "python",
    "node",
    "rust",
    "go",
    "java",
]


def _memory(scope: Scope, text: str) -> Memory:
    return memory_record(scope, text, policy="bench", extractor="bench.seed")


BIG_SCOPE = Scope(org="local", project="big-proj")


async def seed(
    store: RedisMemoryStore,
    embedder: Embedder,
    total: int,
    start: int = 0,
    batch: int = 2000,
    big_fraction: float = 0.0,
) -> None:
    """Add records until the store holds ``total`` (counting from ``start`` already there).

    ``big_fraction`` of them go to one large project (``BIG_SCOPE``), for queries whose visible
    set is large; the rest spread over 2,000 projects and 5,000 users.
    """
    rng = np.random.default_rng(start + 7)
    pyrng = random.Random(start)
    client = store.client
    prefix = f"{store.schema.index.prefix}{store.schema.index.key_separator}"
    if start == 0:
        vectors = embedder.embed(IN_SCOPE_FACTS)
        for text, vector in zip(IN_SCOPE_FACTS, vectors, strict=True):
            await store.put(_memory(BENCH_SCOPE, text), vector)
        start = len(IN_SCOPE_FACTS)
    remaining = total - start
    while remaining > 0:
        count = min(batch, remaining)
        vectors = rng.standard_normal((count, embedder.dims)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        async with client.pipeline(transaction=False) as pipe:
            for vector in vectors:
                project = f"proj-{pyrng.randrange(2000)}"
                draw = pyrng.random()
                if draw < big_fraction:
                    scope = BIG_SCOPE
                elif draw < 0.7:
                    scope = Scope(org="local", project=project)
                else:
                    scope = Scope(org="local", user=f"user-{pyrng.randrange(5000)}")
                words = " ".join(pyrng.choice(_WORDS) for _ in range(8))
                memory = _memory(scope, f"Project {project} notes: {words}.")
                row = hash_row(memory)
                row["embedding"] = vector.tobytes()
                pipe.hset(prefix + memory.id, mapping=row)  # type: ignore[arg-type]
            await pipe.execute()
        remaining -= count


def seed_sync(url: str, embedder: Embedder, total: int, start: int = 0) -> None:
    async def run() -> None:
        store = RedisMemoryStore(url, embedder.model_id, embedder.dims, timeout_s=30)
        await store.open()
        await seed(store, embedder, total, start)
        await store.close()

    asyncio.run(run())
