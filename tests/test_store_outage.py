"""The embedded store dies under a running `mnemo serve`: it is reaped and restarted, and what
people said while it was away is learned once it is back.

Phase 1 freezes the store (SIGSTOP): it takes connections and answers nothing, the worst kind of
outage, so every turn of that phase is sent while the store is away. Then it is killed (SIGKILL)
and more turns follow at once, some during the restart. Every turn names a fact of its own.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from extractors import ClauseExtractor
from harness.helpers import coined_names, wait_until
from harness.processes import MnemoProcess, spawn_cli, stopping, wait_ready
from harness.upstream import UpstreamStub
from tests.conftest import free_port

pytestmark = [pytest.mark.integration, pytest.mark.store_contract]


def _store_pid(data_dir: Path) -> int:
    return int(json.loads((data_dir / "store.json").read_text())["pid"])


def _readiness(url: str) -> dict[str, Any]:
    try:
        response = httpx.get(f"{url}/readyz", timeout=5)
        return {"status": response.status_code, **response.json()}
    except (httpx.HTTPError, ValueError) as exc:
        return {"status": 0, "error": str(exc)}


def _say(url: str, project: str, word: str) -> str:
    response = httpx.post(
        f"{url}/v1/chat/completions",
        headers={"X-Mnemo-Project": project, "Authorization": "Bearer k"},
        json={
            "model": "m",
            "messages": [{"role": "user", "content": f"We deploy with {word}deploy to production."}],
        },
        timeout=30,
    )
    assert response.status_code == 200, response.text  # the store's outage never fails the call
    return str(response.headers.get("x-mnemo-status", ""))


def _learned(url: str, project: str) -> str:
    response = httpx.get(f"{url}/mnemo/v1/memories", params={"project": project}, timeout=5)
    return " ".join(m["text"] for m in response.json()["data"]) if response.status_code == 200 else ""


def test_a_killed_store_is_restarted_and_nothing_said_meanwhile_is_lost(
    tmp_path: Path, fresh_upstream: UpstreamStub, extractor: ClauseExtractor
) -> None:
    data_dir = tmp_path / "data"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    args = ["serve", "--port", str(port), "--upstream", fresh_upstream.url, "--data-dir", str(data_dir)]
    served: MnemoProcess = spawn_cli(args, {}, tmp_path / "serve.log")
    with stopping([served]):
        wait_ready(served, url)
        run = os.urandom(3).hex()
        words = coined_names(extractor, 40, lambda w: f"We deploy with {w}deploy to production.")
        projects = [f"outage-{run}-{i}" for i in range(len(words))]
        first_pid = _store_pid(data_dir)

        os.kill(first_pid, signal.SIGSTOP)  # away: connections hang, nothing answers
        with ThreadPoolExecutor(8) as pool:
            frozen = list(pool.map(_say, [url] * 20, projects[:20], words[:20]))
        assert set(frozen) == {"degraded"}, frozen
        away = _readiness(url)
        assert away["status"] == 503 and away["checks"]["held_jobs"] == 20, away

        os.kill(first_pid, signal.SIGKILL)
        killed_at = time.monotonic()
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(_say, [url] * 20, projects[20:], words[20:]))

        back = wait_until(
            lambda: (
                (r := _readiness(url))["status"] == 200
                and "restarted 1 time" in r["checks"]["embedded_store"]
                and r
            ),
            "the store restarted and ready",
            timeout_s=90,
        )
        ready_after_s = time.monotonic() - killed_at
        assert "killed by SIGKILL" in back["checks"]["embedded_store"], back
        assert _store_pid(data_dir) != first_pid
        restart_ms = float(re.search(r"last in (\d+) ms", back["checks"]["embedded_store"]).group(1))  # type: ignore[union-attr]

        wait_until(
            lambda: all(w in _learned(url, p) for w, p in zip(words, projects, strict=True)),
            "every turn learned (missing: see the projects whose word is not listed)",
            timeout_s=90,
        )
        metrics = httpx.get(f"{url}/metrics", timeout=5).text
        assert re.search(r"^mnemo_store_restarts_total 1$", metrics, re.M), metrics
        assert re.search(r"^mnemo_jobs_held 0$", metrics, re.M), metrics
        written = int(re.search(r"^mnemo_jobs_held_written_total (\d+)$", metrics, re.M).group(1))  # type: ignore[union-attr]
        assert written >= 20
        print(
            f"turns sent while the store was away: 20 frozen + 20 right after SIGKILL; learned 40 of 40; "
            f"held and written later: {written}; restart {restart_ms:.0f} ms; "
            f"ready again {ready_after_s:.2f} s after the kill"
        )
    log = (tmp_path / "serve.log").read_text()
    assert "embedded store stopped unexpectedly (killed by SIGKILL)" in log
    assert "embedded store restarted in" in log
