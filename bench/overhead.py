"""What Mnemo adds to every call: direct to the upstream vs through Mnemo (memory off, memory on),
measured pair by pair in one run, at several concurrencies, non-streamed and streamed."""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import cpu_seconds, mnemo, percentile, report, table, upstream
from bench.loadgen import Connection
from bench.seed import BENCH_SCOPE, seed_sync
from proxy.memory.embedded import EmbeddedStore
from proxy.memory.embeddings import MiniLMOnnxEmbedder

QUESTIONS = [
    "How should I install dependencies, and what do I run before a PR?",
    "Which database does this service talk to?",
    "What should I check before I push this branch?",
    "Where do errors from production end up?",
    "Can you summarise the open issues for me?",
    "Which Python version should the CI image use?",
]
TARGETS = ("direct", "off", "on")
SYSTEM = "You are a coding agent working in the user's repository. Follow the project's conventions."


@dataclass
class Cell:
    latencies_ms: list[float] = field(default_factory=list)
    wall_s: float = 0.0
    cpu_s: float = 0.0
    ttfb_ms: list[float] = field(default_factory=list)
    gaps_ms: list[float] = field(default_factory=list)
    errors: int = 0
    overhead_ms: list[float] = field(default_factory=list)
    error_kinds: Counter[str] = field(default_factory=Counter)

    @property
    def rps(self) -> float:
        return len(self.latencies_ms) / self.wall_s if self.wall_s else 0.0


def _body(i: int, stream: bool) -> dict[str, Any]:
    # A new question each time: no embedding cache hits flatter the "on" figures.
    question = f"{QUESTIONS[i % len(QUESTIONS)]} (ticket {i})"
    return {
        "model": "bench",
        "stream": stream,
        "messages": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}],
    }


async def _batch(
    connections: list[Connection],
    headers: dict[str, str],
    n: int,
    stream: bool,
    cell: Cell,
    counter: list[int],
) -> None:
    """``len(connections)`` workers, one keep-alive connection each, share ``n`` requests."""

    async def one(connection: Connection) -> None:
        while counter[0] < n:
            counter[0] += 1
            body = json.dumps(_body(counter[0], stream)).encode()
            try:
                result = await connection.post(body, headers)
            except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
                cell.error_kinds[type(exc).__name__] += 1
                cell.errors += 1
                continue
            if result.status != 200:
                cell.error_kinds[f"HTTP {result.status}"] += 1
                cell.errors += 1
                continue
            cell.latencies_ms.append(result.elapsed_ms)
            if "x-mnemo-overhead-ms" in result.headers:
                cell.overhead_ms.append(float(result.headers["x-mnemo-overhead-ms"]))
            if stream and result.chunk_times:
                cell.ttfb_ms.append((result.chunk_times[0] - result.started) * 1000)
                cell.gaps_ms.extend(
                    (b - a) * 1000 for a, b in zip(result.chunk_times, result.chunk_times[1:], strict=False)
                )

    await asyncio.gather(*(one(c) for c in connections))


def _measure(
    urls: dict[str, str], mnemo_pid: int, concurrency: int, per_target: int, rounds: int, stream: bool
) -> dict[str, Cell]:
    cells = {t: Cell() for t in TARGETS}
    scope_headers = {"x-mnemo-project": BENCH_SCOPE.project or "", "x-mnemo-user": BENCH_SCOPE.user or ""}
    headers = {"direct": {}, "off": {**scope_headers, "x-mnemo-mode": "off"}, "on": scope_headers}

    async def run() -> None:
        pools = {t: [Connection(urls[t]) for _ in range(concurrency)] for t in TARGETS}
        for target in TARGETS:  # open the connections, warm caches
            await _batch(pools[target], headers[target], concurrency * 2, stream, Cell(), [0])
        for _ in range(rounds):
            for target in TARGETS:
                cell = cells[target]
                cpu_before = cpu_seconds(mnemo_pid)
                started = time.perf_counter()
                await _batch(pools[target], headers[target], per_target // rounds, stream, cell, [0])
                cell.wall_s += time.perf_counter() - started
                cell.cpu_s += cpu_seconds(mnemo_pid) - cpu_before
        for pool in pools.values():
            for connection in pool:
                await connection.close()

    asyncio.run(run())
    return cells


def main(quick: bool, record: bool) -> None:
    sizes = [1_000, 100_000]
    plan = {1: 120, 16: 480, 64: 640} if quick else {1: 600, 16: 2400, 64: 3200}
    rounds = 3 if quick else 6
    stream_n = 60 if quick else 300
    embedder = MiniLMOnnxEmbedder()
    rows: list[list[Any]] = []
    stream_rows: list[list[Any]] = []
    figures: dict[str, Any] = {}
    with (
        tempfile.TemporaryDirectory() as tmp,
        EmbeddedStore(Path(tmp) / "store") as store,
        upstream(chunks=10, chunk_delay_ms=5) as up,
    ):
        seeded = 0
        for size in sizes:
            seed_sync(store.url, embedder, size, start=seeded)
            seeded = size
            with mnemo(store.url, f"{up.url}/v1", Path(tmp) / f"data-{size}") as proxy:
                urls = {
                    "direct": f"{up.url}/v1/chat/completions",
                    "off": f"{proxy.url}/v1/chat/completions",
                    "on": f"{proxy.url}/v1/chat/completions",
                }
                for concurrency, n in plan.items():
                    cells = _measure(urls, proxy.pid, concurrency, n, rounds, stream=False)
                    base = cells["direct"]
                    for target in ("off", "on"):
                        cell = cells[target]
                        added = {
                            q: percentile(cell.latencies_ms, q) - percentile(base.latencies_ms, q)
                            for q in (50, 95, 99)
                        }
                        rows.append(
                            [
                                size,
                                concurrency,
                                target,
                                percentile(base.latencies_ms, 50),
                                percentile(cell.latencies_ms, 50),
                                added[50],
                                added[95],
                                added[99],
                                base.rps,
                                cell.rps,
                                cell.rps / base.rps if base.rps else 0.0,
                                cell.cpu_s / max(1, len(cell.latencies_ms)) * 1000,
                                cell.errors,
                            ]
                        )
                        key = f"{target}_{size}_c{concurrency}"
                        figures[key] = {
                            "added_p50_ms": round(added[50], 2),
                            "added_p95_ms": round(added[95], 2),
                            "added_p99_ms": round(added[99], 2),
                            "rps": round(cell.rps, 1),
                            "direct_rps": round(base.rps, 1),
                            "errors": cell.errors,
                            "cpu_ms_per_request": round(
                                cell.cpu_s / max(1, len(cell.latencies_ms)) * 1000, 2
                            ),
                        }
                cells = _measure(urls, proxy.pid, 1, stream_n, rounds, stream=True)
                base = cells["direct"]
                for target in TARGETS:
                    cell = cells[target]
                    stream_rows.append(
                        [
                            size,
                            target,
                            percentile(cell.ttfb_ms, 50),
                            percentile(cell.ttfb_ms, 99),
                            percentile(cell.ttfb_ms, 50) - percentile(base.ttfb_ms, 50),
                            percentile(cell.overhead_ms, 50) if cell.overhead_ms else 0.0,
                            percentile(cell.gaps_ms, 50),
                            percentile(cell.gaps_ms, 99),
                            cell.errors,
                        ]
                    )
                    figures[f"stream_{target}_{size}"] = {
                        "ttfb_p50_ms": round(percentile(cell.ttfb_ms, 50), 2),
                        "added_ttfb_p50_ms": round(
                            percentile(cell.ttfb_ms, 50) - percentile(base.ttfb_ms, 50), 2
                        ),
                        "mnemo_overhead_p50_ms": round(percentile(cell.overhead_ms, 50), 2)
                        if cell.overhead_ms
                        else None,
                        "gap_p50_ms": round(percentile(cell.gaps_ms, 50), 2),
                        "gap_p99_ms": round(percentile(cell.gaps_ms, 99), 2),
                    }
    sections = [
        (
            "Non-streamed: direct vs through Mnemo (memory off = X-Mnemo-Mode: off; on = recall + learning)",
            table(
                [
                    "records",
                    "conc",
                    "mode",
                    "direct p50 ms",
                    "mnemo p50 ms",
                    "added p50",
                    "added p95",
                    "added p99",
                    "direct rps",
                    "mnemo rps",
                    "rps ratio",
                    "mnemo CPU ms/req",
                    "errors",
                ],
                rows,
            ),
        ),
        (
            "Streamed, concurrency 1: 10 chunks 5 ms apart at the upstream",
            table(
                [
                    "records",
                    "mode",
                    "TTFB p50 ms",
                    "TTFB p99 ms",
                    "added TTFB p50",
                    "X-Mnemo-Overhead-Ms p50",
                    "gap p50 ms",
                    "gap p99 ms",
                    "errors",
                ],
                stream_rows,
            ),
        ),
    ]
    report("overhead", quick, sections, figures, record)
