"""Mnemo served on a port for tests and benchmarks: in this process (uvicorn in a thread), or
as a `mnemo serve` process (``harness.processes``); either way a ``RunningMnemo``."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn

from harness.processes import MnemoProcess
from proxy.app import create_app
from proxy.server import server_config
from proxy.settings import Settings


@dataclass
class RunningMnemo:
    """Mnemo on a port: served in this process (``server``, ``thread``), or by `mnemo serve` (``process``)."""

    url: str
    settings: Settings
    server: uvicorn.Server | None = None
    thread: threading.Thread | None = None
    process: MnemoProcess | None = None

    @property
    def openai_base(self) -> str:
        return f"{self.url}/v1"

    def stop(self) -> None:
        if self.process is not None:
            code = self.process.stop()
            assert code == 0, f"mnemo serve exited with {code}:\n{self.process.output()}"
        if self.server is not None and self.thread is not None:
            self.server.should_exit = True
            self.thread.join(timeout=15)

    def memories(self, **params: Any) -> list[dict[str, Any]]:
        response = httpx.get(f"{self.url}/mnemo/v1/memories", params=params, timeout=10)
        response.raise_for_status()
        data: list[dict[str, Any]] = response.json()["data"]
        return data

    def wait_for_memories(self, count: int, timeout_s: float = 20.0, **params: Any) -> list[dict[str, Any]]:
        """Learning runs after the reply: poll the listing until ``count`` records show up."""
        deadline = time.monotonic() + timeout_s
        found: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            found = self.memories(**params)
            if len(found) >= count:
                return found
            time.sleep(0.1)
        raise AssertionError(f"expected {count} memories for {params}, found {len(found)}: {found}")


def serve_in_process(settings: Settings) -> RunningMnemo:
    """Mnemo on ``settings.port`` in a thread of this process; returns once it listens."""
    port = settings.port
    server = uvicorn.Server(server_config(create_app(settings), "127.0.0.1", port, "warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("mnemo did not start")
        time.sleep(0.05)
    return RunningMnemo(f"http://127.0.0.1:{port}", settings, server=server, thread=thread)
