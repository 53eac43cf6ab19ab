"""Export and import at scale: time and peak memory of the server and of the CLI, for 100k records
(10k with --quick), with vectors carried along and with re-embedding; and whether the imported
store answers the same searches with the same records."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.common import ROOT, mnemo, report, rss_mb, table
from bench.seed import seed_sync
from proxy.memory.embedded import EmbeddedStore
from proxy.memory.embeddings import MiniLMOnnxEmbedder

NO_UPSTREAM = "http://127.0.0.1:9/v1"  # never called: only the management API is used
SEARCHES = [  # (project, user, text); the first context holds real sentences, the rest random words
    ("bench-proj", "bench-user", "How do I install dependencies?"),
    ("bench-proj", "bench-user", "What do I run before a pull request?"),
    ("proj-7", None, "docker kubernetes notes"),
    ("proj-42", None, "python rust build"),
    ("proj-1999", None, "node go java"),
    ("proj-300", None, "pnpm notes"),
]


def _peak_kb(pid: int, field_name: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field_name):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


@dataclass
class Sampler:
    """Samples a process's resident memory every 20 ms in a thread; keeps the highest."""

    pid: int
    peak_mb: float = 0.0
    _stop: threading.Event = field(default_factory=threading.Event)

    def __enter__(self) -> Sampler:
        self.base_mb = rss_mb(self.pid)
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak_mb = max(self.peak_mb, rss_mb(self.pid))
            time.sleep(0.02)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak_mb = max(self.peak_mb, rss_mb(self.pid))


def _cli(url: str, *args: str) -> tuple[subprocess.CompletedProcess[str], float, float]:
    """Run `mnemo memories ...`; its wall time and its own peak RSS (VmHWM, read until it exits)."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "proxy.cli", "memories", *args, "--url", url, "--no-progress"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    peak = 0
    while process.poll() is None:
        peak = max(peak, _peak_kb(process.pid, "VmHWM:"))
        time.sleep(0.02)
    out, err = process.communicate()
    seconds = time.perf_counter() - started
    done = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    if process.returncode not in (0, 6):
        raise RuntimeError(f"mnemo memories {args[0]} failed ({process.returncode}): {err[-2000:]}")
    return done, seconds, peak / 1024


def _top_ids(url: str) -> list[list[str]]:
    """The top 10 ids of each search."""
    found = []
    for project, user, q in SEARCHES:
        params: dict[str, Any] = {"q": q, "project": project, "limit": 10}
        if user:
            params["user"] = user
        hits = httpx.get(f"{url}/mnemo/v1/memories/search", params=params, timeout=30).json()["data"]
        found.append([hit["memory"]["id"] for hit in hits])
    return found


def _agreement(before: list[list[str]], after: list[list[str]]) -> tuple[bool, float]:
    """Whether the real-sentence searches return the same ids in the same order, and the mean
    top-10 overlap of all. Random-word records tie on keyword score, and ties may rank in
    another order in a store whose records were written in another order."""
    exact = all(b == a for b, a in zip(before[:2], after[:2], strict=True))
    overlap = [len(set(b) & set(a)) / max(1, len(b)) for b, a in zip(before, after, strict=True)]
    return exact, round(sum(overlap) / len(overlap), 2)


def main(quick: bool = False, record: bool = True) -> None:
    total = 10_000 if quick else 100_000
    embedder = MiniLMOnnxEmbedder()
    rows: list[list[Any]] = []
    figures: dict[str, Any] = {"records": total}
    with tempfile.TemporaryDirectory(prefix="mnemo-bench-port-") as tmp_name:
        tmp = Path(tmp_name)
        with_vectors, plain = tmp / "export-vectors.jsonl", tmp / "export.jsonl"
        with EmbeddedStore(tmp / "store-a") as first_store:
            started = time.perf_counter()
            seed_sync(first_store.url, embedder, total)
            print(f"seeded {total} records in {time.perf_counter() - started:.1f} s", file=sys.stderr)
            with mnemo(first_store.url, NO_UPSTREAM, tmp / "a", worker=False) as server:
                for label, path, extra in (
                    ("export, with vectors", with_vectors, ["--vectors"]),
                    ("export", plain, []),
                ):
                    with Sampler(server.pid) as sampled:
                        done, seconds, cli_mb = _cli(server.url, "export", "-o", str(path), *extra)
                    count = sum(1 for _ in path.open("rb"))
                    assert count == total, f"{label}: exported {count} of {total}: {done.stderr}"
                    rows.append(_row(label, total, seconds, sampled, cli_mb, path))
                before = _top_ids(server.url)

        with_vectors_rows, after = _import_into_fresh(tmp / "b", with_vectors, total, reembed=False)
        rows += with_vectors_rows
        figures["same_order_after_import"], figures["top10_overlap_after_import"] = _agreement(before, after)
        reembed_rows, after = _import_into_fresh(tmp / "c", plain, total, reembed=True)
        rows += reembed_rows
        figures["same_order_after_reembed"], figures["top10_overlap_after_reembed"] = _agreement(
            before, after
        )

    headers = [
        "operation",
        "records",
        "s",
        "records/s",
        "server RSS base MB",
        "server RSS peak MB",
        "CLI peak MB",
        "file MB",
    ]
    for row in rows:
        key = row[0].replace(", ", "_").replace(" ", "_").replace("(", "").replace(")", "")
        figures[key] = {"s": row[2], "server_peak_mb": row[5], "cli_peak_mb": row[6]}
    checks = (
        "Searches on the imported store against the original. Real sentences, same ids in the same "
        f"order: {figures['same_order_after_import']} (vectors carried), "
        f"{figures['same_order_after_reembed']} (re-embedded). Mean top-10 overlap over all six "
        f"searches: {figures['top10_overlap_after_import']} and {figures['top10_overlap_after_reembed']} "
        "(random-word records tie on keyword score; ties rank by write order)."
    )
    report(
        "portability",
        quick,
        [
            (
                f"Export and import of {total:,} records (server: mnemo serve, no worker)",
                table(headers, rows),
            ),
            ("Checks", checks),
        ],
        figures,
        record,
    )


def _import_into_fresh(
    where: Path, export: Path, total: int, reembed: bool
) -> tuple[list[list[Any]], list[list[str]]]:
    """Import an export into a new store through the CLI (twice, when vectors come along: the
    second run must merge everything); the rows and the top ids of the same searches."""
    rows: list[list[Any]] = []
    with (
        EmbeddedStore(where / "store") as store,
        mnemo(store.url, NO_UPSTREAM, where, worker=False) as server,
    ):
        with Sampler(server.pid) as sampled:
            done, seconds, cli_mb = _cli(server.url, "import", str(export), "--json")
        result = json.loads(done.stdout)
        assert result["imported"] == total and result["reembedded"] == (total if reembed else 0), result
        label = "import, re-embedding" if reembed else "import, with vectors"
        rows.append(_row(label, total, seconds, sampled, cli_mb, export))
        if not reembed:
            with Sampler(server.pid) as sampled:
                done, seconds, cli_mb = _cli(server.url, "import", str(export), "--json")
            again = json.loads(done.stdout)
            assert again["merged"] == total and again["imported"] == 0, again
            rows.append(_row("import again (all merge)", total, seconds, sampled, cli_mb, export))
        return rows, _top_ids(server.url)


def _row(label: str, total: int, seconds: float, sampled: Sampler, cli_mb: float, path: Path) -> list[Any]:
    return [
        label,
        total,
        round(seconds, 1),
        round(total / seconds),
        round(sampled.base_mb),
        round(sampled.peak_mb),
        round(cli_mb),
        round(path.stat().st_size / 1e6, 1),
    ]
