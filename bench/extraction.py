"""Learning: messages per second through extract -> decide -> write, and extraction quality on the
labeled set under tests/data/."""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common import ROOT, cpu_seconds, report, table
from extractors import Candidate, RuleExtractor, Turn
from extractors.evaluation import load_labeled, score
from policies import DEFAULT_POLICY, PolicyHolder, decide
from proxy.jobs import ExtractionJob, Learner
from proxy.memory.embedded import EmbeddedStore
from proxy.memory.embeddings import EmbeddingService, MiniLMOnnxEmbedder
from proxy.memory.redis_store import RedisMemoryStore
from proxy.scope import Scope

LABELED = ROOT / "tests" / "data" / "extraction_labeled.jsonl"
BATCH = 32


def _quality(extractor: RuleExtractor) -> tuple[dict[str, Any], list[list[Any]]]:
    request = Scope("local", project="bench-proj", user="bench-user")
    now = datetime.now(UTC)

    def stored(texts: list[str]) -> list[list[Candidate]]:
        found = extractor.extract_many([[Turn("user", text, 0)] for text in texts])
        return [[d.candidate for d in decide(c, request, DEFAULT_POLICY, now)[0]] for c in found]

    result = score(load_labeled(LABELED), stored)
    figures = {
        "turns": result.turns,
        "expected_facts": result.expected,
        "records": result.extracted,
        "precision": round(result.precision, 3),
        "recall": round(result.recall, 3),
        "junk_rate": round(result.junk_rate, 3),
    }
    rows = [
        [
            result.turns,
            result.empty_turns,
            result.expected,
            result.extracted,
            result.precision,
            result.recall,
            result.junk_rate,
        ]
    ]
    return figures, rows


async def _throughput(extractor: RuleExtractor, messages: int, data_dir: Path) -> dict[str, Any]:
    embedder = MiniLMOnnxEmbedder()
    labeled = [t.text for t in load_labeled(LABELED)]
    with EmbeddedStore(data_dir) as embedded:
        store = RedisMemoryStore(embedded.url, embedder.model_id, embedder.dims, timeout_s=30)
        await store.open()
        learner = Learner(extractor, EmbeddingService(embedder), store, PolicyHolder(DEFAULT_POLICY))
        # Each message in its own project, so every fact is new and written (the costly path);
        # the labeled set's mix of fact-bearing and empty turns sets the ratio of writes.
        jobs = [
            ExtractionJob(
                request_id=f"b{i}",
                scope=Scope("local", project=f"p{i}", user="u"),
                turns=[Turn("user", labeled[i % len(labeled)], 0)],
                observed_at=datetime.now(UTC),
                api="bench",
            )
            for i in range(messages)
        ]
        await learner.learn(jobs[:BATCH])  # warm up
        store_cpu_before = cpu_seconds(embedded.pid or 0)
        cpu_before = time.process_time()
        started = time.perf_counter()
        written = merged = 0
        for i in range(BATCH, len(jobs), BATCH):
            outcome = await learner.learn(jobs[i : i + BATCH])
            written += outcome.written
            merged += outcome.merged
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu_before
        store_cpu = cpu_seconds(embedded.pid or 0) - store_cpu_before
        await store.close()
    done = len(jobs) - BATCH
    return {
        "messages": done,
        "records_written": written,
        "merged": merged,
        "wall_s": round(wall, 2),
        "messages_per_s": round(done / wall, 1),
        "worker_cpu_s": round(cpu, 2),
        "store_cpu_s": round(store_cpu, 2),
        "messages_per_cpu_s": round(done / (cpu + store_cpu), 1),
    }


def main(quick: bool, record: bool) -> None:
    extractor = RuleExtractor()
    quality, quality_rows = _quality(extractor)
    with tempfile.TemporaryDirectory() as tmp:
        speed = asyncio.run(_throughput(extractor, 1_000 if quick else 5_000, Path(tmp) / "store"))
    sections = [
        (
            "Quality on tests/data/extraction_labeled.jsonl (extract -> decide; the rules were tuned on this "
            "set, so it overstates unseen phrasing)",
            table(
                ["turns", "empty turns", "expected facts", "records", "precision", "recall", "junk rate"],
                quality_rows,
            ),
        ),
        (
            f"Throughput, one worker process, batches of {BATCH} (extract -> decide -> embed -> write; "
            f"per CPU-second counts the worker and the store; machine has {os.cpu_count()} cores)",
            table(
                [
                    "messages",
                    "records written",
                    "wall s",
                    "messages/s",
                    "worker CPU s",
                    "store CPU s",
                    "messages per CPU-second",
                ],
                [
                    [
                        speed["messages"],
                        speed["records_written"],
                        speed["wall_s"],
                        speed["messages_per_s"],
                        speed["worker_cpu_s"],
                        speed["store_cpu_s"],
                        speed["messages_per_cpu_s"],
                    ]
                ],
            ),
        ),
    ]
    report("extraction", quick, sections, {"quality": quality, "throughput": speed}, record)
