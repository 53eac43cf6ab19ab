"""Shared fixtures: the embedded store, an upstream stand-in on a port, and Mnemo served on a port.

Everything here is real: Valkey with RediSearch from the PyPI wheels, uvicorn serving both
apps over TCP, the offline MiniLM model and spaCy.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from extractors import ClauseExtractor
from proxy.app import create_app
from proxy.memory.embedded import EmbeddedStore
from proxy.server import server_config
from proxy.settings import Settings
from tests.upstream import UpstreamStub


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


NDJSON = {"content-type": "application/x-ndjson"}  # what an import body must say it is


@dataclass
class RunningMnemo:
    url: str
    settings: Settings
    server: uvicorn.Server
    thread: threading.Thread

    @property
    def openai_base(self) -> str:
        return f"{self.url}/v1"

    def stop(self) -> None:
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


def serve_mnemo(settings: Settings) -> RunningMnemo:
    port = free_port()
    settings = settings.with_changes(port=port)
    server = uvicorn.Server(server_config(create_app(settings), "127.0.0.1", port, "warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("mnemo did not start")
        time.sleep(0.05)
    return RunningMnemo(f"http://127.0.0.1:{port}", settings, server, thread)


@contextlib.contextmanager
def mnemo_on_own_store(
    upstream_url: str, tmp: Path, policy: str | None = None
) -> Iterator[tuple[RunningMnemo, EmbeddedStore]]:
    """A Mnemo with a store of its own under ``tmp`` (and the policy text, if given), stopped after."""
    policy_file = None
    if policy is not None:
        policy_file = tmp / "policy.yaml"
        policy_file.write_text(policy)
    with EmbeddedStore(tmp / "store") as store:
        settings = Settings(
            redis_url=store.url, upstream_url=upstream_url, data_dir=tmp / "d", policy_file=policy_file
        )
        running = serve_mnemo(settings)
        try:
            yield running, store
        finally:
            running.stop()


@pytest.fixture(scope="session")
def extractor() -> ClauseExtractor:
    """One extractor for the whole run: loading spaCy and the vocabulary takes about a second."""
    return ClauseExtractor()


@pytest.fixture(scope="session")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedStore]:
    with EmbeddedStore(tmp_path_factory.mktemp("store")) as embedded:
        yield embedded


@pytest.fixture(scope="session")
def upstream() -> Iterator[UpstreamStub]:
    stub = UpstreamStub().start()
    yield stub
    stub.stop()


@pytest.fixture(scope="session")
def mnemo(
    store: EmbeddedStore, upstream: UpstreamStub, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningMnemo]:
    settings = Settings(
        redis_url=store.url,
        upstream_url=upstream.url,
        anthropic_upstream_url=upstream.anthropic_url,
        data_dir=tmp_path_factory.mktemp("data"),
    )
    running = serve_mnemo(settings)
    yield running
    running.stop()


@pytest.fixture
def fresh_upstream(upstream: UpstreamStub) -> UpstreamStub:
    upstream.requests.clear()
    upstream.reply = "Sure, here is what I know."
    upstream.chunk_delay_s = 0.01
    upstream.first_chunk_delay_s = 0.0
    upstream.disconnected_at = None
    return upstream


@pytest.fixture
def unique() -> Callable[[str], str]:
    """Scope values no other test uses, so tests share one store without seeing each other."""
    token = uuid.uuid4().hex[:8]
    return lambda name: f"{name}-{token}"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "mnemo-data"
