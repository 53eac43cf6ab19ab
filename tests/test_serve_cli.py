"""`mnemo serve` as a user runs it: embedded store lifecycle, restarts, clear start-up errors."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import openai
import pytest

from harness.helpers import injected_block
from harness.upstream import UpstreamStub
from tests.conftest import free_port

pytestmark = pytest.mark.integration

PNPM_TURN = "This repo uses pnpm, not npm. Always run pnpm test before opening a pull request."


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purposes
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def _wait_gone(pid: int, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


@contextmanager
def mnemo_serve(
    data_dir: Path, upstream: UpstreamStub
) -> Iterator[tuple[subprocess.Popen[bytes], str, float]]:
    port = free_port()
    started = time.perf_counter()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "proxy.cli",
            "serve",
            "--port",
            str(port),
            "--upstream",
            upstream.url,
            "--data-dir",
            str(data_dir),
            "--log-level",
            "warning",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
            try:
                if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "mnemo serve did not become ready"
            time.sleep(0.1)
        yield process, url, time.perf_counter() - started
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)


def run_serve(*args: str) -> subprocess.CompletedProcess[bytes]:
    """`mnemo serve ARGS` that is expected to refuse to start: it must end within a minute."""
    return subprocess.run(
        [sys.executable, "-m", "proxy.cli", "serve", *args], capture_output=True, timeout=60
    )


def _store_pid(data_dir: Path) -> int:
    return int(json.loads((data_dir / "store.json").read_text())["pid"])


def test_facts_survive_a_restart_and_no_server_is_left_behind(
    data_dir: Path, fresh_upstream: UpstreamStub
) -> None:
    with mnemo_serve(data_dir, fresh_upstream) as (process, url, cold_start_s):
        store_pid = _store_pid(data_dir)
        api = openai.OpenAI(
            base_url=f"{url}/v1", api_key="k", max_retries=0, default_headers={"X-Mnemo-Project": "acme-web"}
        )
        api.chat.completions.create(
            model="m",
            messages=[
                {
                    "role": "user",
                    "content": PNPM_TURN,
                }
            ],
        )
        deadline = time.monotonic() + 20
        while len(httpx.get(f"{url}/mnemo/v1/memories", params={"project": "acme-web"}).json()["data"]) < 2:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        print(f"cold start of mnemo serve: {cold_start_s:.2f} s")
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
    assert _wait_gone(store_pid), "the embedded store outlived mnemo serve"
    assert not (data_dir / "store.json").exists()

    fresh_upstream.requests.clear()
    with mnemo_serve(data_dir, fresh_upstream) as (_, url, _):
        api = openai.OpenAI(
            base_url=f"{url}/v1", api_key="k", max_retries=0, default_headers={"X-Mnemo-Project": "acme-web"}
        )
        api.chat.completions.create(
            model="m",
            messages=[
                {
                    "role": "user",
                    "content": "How should I install dependencies, and what do I run before a PR?",
                }
            ],
        )
        block = injected_block(fresh_upstream.chat_requests()[-1]) or ""
        assert "pnpm as its JavaScript package manager" in block
        assert "pnpm test before opening a pull request" in block


def test_sigint_stops_the_store_too(data_dir: Path, fresh_upstream: UpstreamStub) -> None:
    with mnemo_serve(data_dir, fresh_upstream) as (process, _, _):
        store_pid = _store_pid(data_dir)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    assert _wait_gone(store_pid)


def test_a_killed_mnemo_leaves_no_orphan_store(data_dir: Path, fresh_upstream: UpstreamStub) -> None:
    with mnemo_serve(data_dir, fresh_upstream) as (process, _, _):
        store_pid = _store_pid(data_dir)
        process.kill()
        process.wait(timeout=10)
        assert _wait_gone(store_pid), "the store outlived a SIGKILLed mnemo serve"


def test_a_taken_port_is_one_clear_line(data_dir: Path, fresh_upstream: UpstreamStub) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run_serve("--port", str(port), "--data-dir", str(data_dir))
    assert result.returncode == 2
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "cannot listen on 127.0.0.1" in lines[0] and "in use" in lines[0]


def test_an_unusable_data_dir_is_one_clear_line(tmp_path: Path, fresh_upstream: UpstreamStub) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    result = run_serve("--port", str(free_port()), "--data-dir", str(not_a_dir))
    assert result.returncode == 2
    lines = result.stderr.decode().strip().splitlines()
    assert lines[-1].startswith("mnemo: ") and "data dir" in lines[-1]
    assert "Traceback" not in result.stderr.decode()


def test_a_public_address_is_refused_in_local_mode(data_dir: Path) -> None:
    result = run_serve("--host", "0.0.0.0", "--port", str(free_port()), "--data-dir", str(data_dir))
    assert result.returncode == 2
    assert "refusing to listen on 0.0.0.0" in result.stderr.decode()


def test_a_store_that_will_not_start_is_one_clear_line(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    (data_dir / "appendonlydir").write_text("not a directory")  # Valkey cannot open its AOF dir
    result = run_serve("--port", str(free_port()), "--data-dir", str(data_dir))
    assert result.returncode == 2
    stderr = result.stderr.decode()
    assert "Traceback" not in stderr
    assert stderr.strip().splitlines()[-1] == (
        "mnemo: embedded store failed to start: "
        "Can't open or create append-only dir appendonlydir: Not a directory"
    )
    assert not (data_dir / "store.json").exists()
