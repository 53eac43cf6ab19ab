"""What Mnemo adds to every call: direct to the upstream vs through Mnemo (memory off, memory on),
measured pair by pair in one run, at several concurrencies, non-streamed and streamed."""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.common import cpu_seconds, mnemo, percentile, report, table, upstream
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
    client: httpx.AsyncClient,
    url: str,
    headers: dict[str, str],
    n: int,
    concurrency: int,
    stream: bool,
    cell: Cell,
    counter: list[int],
) -> None:
    async def one() -> None:
        while counter[0] < n:
            counter[0] += 1
            i = counter[0]
            started = time.perf_counter()
            try:
                if stream:
                    async with client.stream("POST", url, json=_body(i, True), headers=headers) as response:
                        last = None
                        async for _chunk in response.aiter_raw():
                            now = time.perf_counter()
                            if last is None:
                                cell.ttfb_ms.append((now - started) * 1000)
                            else:
                                cell.gaps_ms.append((now - last) * 1000)
                            last = now
                        ok = response.status_code == 200
                else:
                    response = await client.post(url, json=_body(i, False), headers=headers)
                    ok = response.status_code == 200
            except httpx.HTTPError as exc:
                ok = False
                cell.error_kinds[type(exc).__name__] += 1
            else:
                if not ok:
                    cell.error_kinds[f"HTTP {response.status_code}"] += 1
            if ok:
                cell.latencies_ms.append((time.perf_counter() - started) * 1000)
            else:
                cell.errors += 1

    await asyncio.gather(*(one() for _ in range(concurrency)))


def _measure(
    urls: dict[str, str], mnemo_pid: int, concurrency: int, per_target: int, rounds: int, stream: bool
) -> dict[str, Cell]:
    cells = {t: Cell() for t in TARGETS}
    scope_headers = {"x-mnemo-project": BENCH_SCOPE.project or "", "x-mnemo-user": BENCH_SCOPE.user or ""}
    headers = {"direct": {}, "off": {**scope_headers, "x-mnemo-mode": "off"}, "on": scope_headers}

    async def run() -> None:
        limits = httpx.Limits(max_connections=concurrency * 2, max_keepalive_connections=concurrency * 2)
        async with httpx.AsyncClient(timeout=60, limits=limits) as client:
            for target in TARGETS:  # warm connections and caches
                await _batch(
                    client, urls[target], headers[target], concurrency * 2, concurrency, stream, Cell(), [0]
                )
            for _ in range(rounds):
                for target in TARGETS:
                    cell = cells[target]
                    cpu_before = cpu_seconds(mnemo_pid)
                    started = time.perf_counter()
                    await _batch(
                        client,
                        urls[target],
                        headers[target],
                        per_target // rounds,
                        concurrency,
                        stream,
                        cell,
                        [0],
                    )
                    cell.wall_s += time.perf_counter() - started
                    cell.cpu_s += cpu_seconds(mnemo_pid) - cpu_before

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
                    "gap p50 ms",
                    "gap p99 ms",
                    "errors",
                ],
                stream_rows,
            ),
        ),
    ]
    report("overhead", quick, sections, figures, record)
