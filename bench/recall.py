"""The store under recall: query latency by size and index type, index recall against exact search,
insert throughput, memory, and restart-to-ready."""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import redis
from redisvl.query import FilterQuery, VectorQuery

from bench.common import free_port, percentile, report, spawn, table
from bench.seed import BENCH_SCOPE, BIG_SCOPE, seed
from proxy.memory.embedded import EmbeddedStore
from proxy.memory.embeddings import EmbeddingService, MiniLMOnnxEmbedder
from proxy.memory.redis_schema import visibility_filter
from proxy.memory.redis_store import RedisMemoryStore
from proxy.memory.store import RecallQuery
from proxy.recall import recall
from proxy.settings import RecallSettings

QUESTIONS = [
    "How should I install dependencies, and what do I run before a PR?",
    "Which database does this service talk to?",
    "Who owns the retry queue of the billing service?",
    "What should I check before I push this branch?",
    "Which Python version should the CI image use?",
    "How do I lint the code?",
    "What time zone is the user in?",
    "Where do errors from production end up?",
]
BIG_FRACTION = 0.05
HNSW_EF_RUNTIME = 100  # RediSearch's default of 10 finds under half the true top 10 here


async def _timed(n: int, work: Any) -> list[float]:
    times = []
    for i in range(n):
        started = time.perf_counter()
        await work(i)
        times.append((time.perf_counter() - started) * 1000)
    return times


def _exact_top10(vectors: np.ndarray, ids: list[str], query: np.ndarray) -> set[str]:
    scores = vectors @ query
    return {ids[i] for i in np.argsort(-scores)[:10]}


async def _fetch_vectors(
    store: RedisMemoryStore, scope_filter: Any, limit: int
) -> tuple[np.ndarray, list[str]]:
    """Ids and raw vectors of every record the filter matches (HGET: search replies decode text)."""
    search = FilterQuery(scope_filter, return_fields=["id"], num_results=limit)
    result = await store._index.search(search.query, query_params=search.params)
    ids = [doc.id for doc in result.docs]
    if not ids:
        return np.zeros((0, store.dims), dtype=np.float32), ids
    async with store.client.pipeline(transaction=False) as pipe:
        for key in ids:
            pipe.hget(key, "embedding")
        raw = await pipe.execute()
    return np.vstack([np.frombuffer(blob, dtype=np.float32) for blob in raw]), ids


async def _measure_size(
    store: RedisMemoryStore,
    service: EmbeddingService,
    question_vectors: np.ndarray,
    random_queries: np.ndarray,
    queries: int,
    exact_limit: int,
) -> dict[str, Any]:
    settings = RecallSettings(timeout_s=30)
    figures: dict[str, Any] = {}

    async def product_recall(i: int) -> None:
        # a new text each time: the embedding cache must not flatter the figure
        unique = f"{QUESTIONS[i % len(QUESTIONS)]} (#{time.perf_counter_ns()})"
        await recall(store, service, BENCH_SCOPE, unique, settings)

    times = await _timed(queries, product_recall)
    figures["recall_p50_ms"], figures["recall_p99_ms"] = percentile(times, 50), percentile(times, 99)

    async def store_recall(i: int) -> None:
        await store.recall(
            RecallQuery(
                scope=BENCH_SCOPE,
                text=QUESTIONS[i % len(QUESTIONS)],
                vector=question_vectors[i % len(question_vectors)],
            )
        )

    times = await _timed(queries, store_recall)
    figures["hybrid_p50_ms"], figures["hybrid_p99_ms"] = percentile(times, 50), percentile(times, 99)

    async def knn_probe(scope_filter: Any, prefix: str) -> None:
        found: list[set[str]] = []

        async def knn(i: int) -> None:
            query = VectorQuery(
                random_queries[i % len(random_queries)].tobytes(),
                "embedding",
                return_fields=["id"],
                filter_expression=scope_filter,
                num_results=10,
                ef_runtime=HNSW_EF_RUNTIME
                if store.schema.fields["embedding"].attrs.algorithm.value == "HNSW"
                else None,
            )
            rows = await store._index.query(query)
            found.append({row["id"] for row in rows})

        times = await _timed(queries, knn)
        figures[f"{prefix}_knn_p50_ms"], figures[f"{prefix}_knn_p99_ms"] = (
            percentile(times, 50),
            percentile(times, 99),
        )
        vectors, ids = await _fetch_vectors(store, scope_filter, exact_limit)
        if len(ids) >= exact_limit:
            figures[f"{prefix}_recall_at_10"] = None  # too large to compute exactly here
            return
        hits = [
            len(found[i] & _exact_top10(vectors, ids, random_queries[i % len(random_queries)])) / 10
            for i in range(min(len(found), len(random_queries)))
        ]
        figures[f"{prefix}_recall_at_10"] = float(np.mean(hits))

    await knn_probe(visibility_filter(BIG_SCOPE), "big_scope")
    await knn_probe(None, "unfiltered")
    return figures


RESTART_AT = {100_000}


def _restart_times(data_dir: Path) -> tuple[float, float]:
    """Seconds from start to ready for the store alone, and for `mnemo serve` (store stopped before)."""
    started = time.perf_counter()
    with EmbeddedStore(data_dir) as again:
        _wait_indexed(again.url, "mnemo_memories")
        store_ready_s = time.perf_counter() - started
    port = free_port()
    started = time.perf_counter()
    args = [
        "-m",
        "proxy.cli",
        "serve",
        "--port",
        str(port),
        "--data-dir",
        str(data_dir),
        "--log-level",
        "warning",
    ]
    with spawn(args, f"http://127.0.0.1:{port}/readyz", log_path=data_dir.parent / "serve.log"):
        serve_ready_s = time.perf_counter() - started
    return store_ready_s, serve_ready_s


def _wait_indexed(url: str, index: str) -> None:
    client = redis.Redis.from_url(url)
    while True:
        try:
            info = client.ft(index).info()  # type: ignore[no-untyped-call]
            if int(info.get("indexing", 0)) == 0 and float(info.get("percent_indexed", 1)) >= 1:
                return
        except redis.BusyLoadingError:
            pass
        time.sleep(0.05)


def main(quick: bool, record: bool) -> None:
    asyncio.run(_main(quick, record))


async def _main(quick: bool, record: bool) -> None:
    plan = (
        {"flat": [1_000, 10_000, 100_000], "hnsw": [1_000, 10_000]}
        if quick
        else {"flat": [1_000, 10_000, 100_000, 1_000_000], "hnsw": [1_000, 10_000, 100_000]}
    )
    queries = 100 if quick else 400
    embedder = MiniLMOnnxEmbedder()
    service = EmbeddingService(embedder)
    question_vectors = embedder.embed(QUESTIONS)
    rng = np.random.default_rng(1)
    random_queries = rng.standard_normal((50, embedder.dims)).astype(np.float32)
    random_queries /= np.linalg.norm(random_queries, axis=1, keepdims=True)
    rows: list[list[Any]] = []
    restart_rows: list[list[Any]] = []
    figures: dict[str, Any] = {}
    for algorithm, sizes in plan.items():
        with tempfile.TemporaryDirectory() as tmp:
            data_dir = Path(tmp) / "data"
            embedded = EmbeddedStore(data_dir)
            embedded.start()
            store = RedisMemoryStore(
                embedded.url, embedder.model_id, embedder.dims, timeout_s=60, algorithm=algorithm
            )
            await store.open()
            seeded = 0
            try:
                for size in sizes:
                    started = time.perf_counter()
                    await seed(store, embedder, size, start=seeded, big_fraction=BIG_FRACTION)
                    _wait_indexed(embedded.url, store.schema.index.name)
                    insert_s = time.perf_counter() - started
                    inserts_per_s = (size - seeded) / insert_s
                    seeded = size
                    used_mb = redis.Redis.from_url(embedded.url).info("memory")["used_memory"] / 2**20
                    measured = await _measure_size(
                        store, service, question_vectors, random_queries, queries, exact_limit=200_001
                    )
                    rows.append(
                        [
                            algorithm,
                            size,
                            inserts_per_s,
                            used_mb,
                            measured["recall_p50_ms"],
                            measured["recall_p99_ms"],
                            measured["hybrid_p50_ms"],
                            measured["hybrid_p99_ms"],
                            measured["big_scope_knn_p50_ms"],
                            measured["big_scope_knn_p99_ms"],
                            _ratio(measured["big_scope_recall_at_10"]),
                            measured["unfiltered_knn_p50_ms"],
                            measured["unfiltered_knn_p99_ms"],
                            _ratio(measured["unfiltered_recall_at_10"]),
                        ]
                    )
                    figures[f"{algorithm}_{size}"] = {
                        "inserts_per_s": round(inserts_per_s),
                        "used_mb": round(used_mb, 1),
                        **{k: (round(v, 3) if isinstance(v, float) else v) for k, v in measured.items()},
                    }
                    if size in RESTART_AT or size == sizes[-1]:
                        # restart to ready: the store alone, then all of `mnemo serve` on the data dir
                        await store.close()
                        embedded.stop()
                        store_ready_s, serve_ready_s = _restart_times(data_dir)
                        restart_rows.append([algorithm, size, store_ready_s, serve_ready_s])
                        figures[f"restart_{algorithm}_{size}"] = {
                            "store_ready_s": round(store_ready_s, 2),
                            "serve_ready_s": round(serve_ready_s, 2),
                        }
                        embedded.start()
                        store = RedisMemoryStore(
                            embedded.url, embedder.model_id, embedder.dims, timeout_s=60, algorithm=algorithm
                        )
                        await store.open()
            finally:
                await store.close()
                embedded.stop()
    sections = [
        (
            "Store at each size (recall = the proxy's recall for a scope with 40 visible records, embedding "
            "included; hybrid = store query only; big scope = KNN top 10 within one project holding 5% of "
            "records; unfiltered = KNN top 10 over all records; recall@10 against exact search by numpy; "
            f"HNSW with EF_RUNTIME {HNSW_EF_RUNTIME}; vectors are random unit vectors, a hard case for HNSW)",
            table(
                [
                    "index",
                    "records",
                    "inserts/s",
                    "used MB",
                    "recall p50",
                    "recall p99",
                    "hybrid p50",
                    "hybrid p99",
                    "big-scope KNN p50",
                    "p99",
                    "recall@10",
                    "unfiltered KNN p50",
                    "p99",
                    "recall@10",
                ],
                rows,
            ),
        ),
        (
            "Restart to ready (seconds): the store alone (AOF loaded, index built), and `mnemo serve` on the "
            "same data dir until /readyz answers 200",
            table(["index", "records", "store", "mnemo serve"], restart_rows),
        ),
    ]
    report("recall", quick, sections, figures, record)


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"
