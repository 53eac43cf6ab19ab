"""Shared fixtures: the embedded store, an upstream stand-in on a port, and Mnemo served on a port.

Everything here is real: Valkey with RediSearch from the PyPI wheels, uvicorn serving both
apps over TCP, the offline MiniLM model and spaCy.

With MNEMO_TEST_STORE=external (a second run in CI) the store is a separate service Mnemo does not
own (tests/processes.py: an ACL user with a password, its own data dir) and Mnemo is run as
`mnemo serve --redis-url URL` in a process of its own, unless a test sets what only the in-process
settings can say. Tests about the embedded store itself are skipped in that run (see EMBEDDED_ONLY).
"""

from __future__ import annotations

import contextlib
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
from tests.processes import (
    EXTERNAL,
    ExternalStore,
    MnemoProcess,
    Store,
    free_port,
    on_command_line,
    start_serve,
)
from tests.upstream import UpstreamStub

__all__ = ["NDJSON", "RunningMnemo", "free_port", "mnemo_on_own_store", "serve_mnemo", "store_for_test"]

# What the external-store run skips, and why: these are about the embedded store or the in-process
# server, not about a store Mnemo is given.
EMBEDDED_ONLY = {
    "tests/test_serve_cli.py": "the embedded store's life cycle under `mnemo serve` (start, stop, leftovers)",
    "tests/test_attacks.py::test_the_store_files_are_the_users_alone": (
        "the embedded store's file modes; an external store's files are its operator's"
    ),
    "tests/test_attacks.py::test_a_client_that_never_finishes_is_let_go": (
        "patches the read deadlines of the in-process server class; the store plays no part"
    ),
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not EXTERNAL:
        return
    for item in items:
        for prefix, reason in EMBEDDED_ONLY.items():
            if item.nodeid == prefix or item.nodeid.startswith((f"{prefix}::", f"{prefix}[")):
                item.add_marker(pytest.mark.skip(reason=f"external-store run: {reason}"))


def pytest_report_header(config: pytest.Config) -> str:
    if EXTERNAL:
        return "store: external (a separate server; Mnemo served by `mnemo serve --redis-url`)"
    return "store: embedded"


NDJSON = {"content-type": "application/x-ndjson"}  # what an import body must say it is


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


def serve_mnemo(settings: Settings) -> RunningMnemo:
    port = free_port()
    settings = settings.with_changes(port=port)
    if EXTERNAL and on_command_line(settings):
        process, url = start_serve(
            settings, settings.data_dir.with_name(f"{settings.data_dir.name}-serve.log")
        )
        return RunningMnemo(url, settings, process=process)
    server = uvicorn.Server(server_config(create_app(settings), "127.0.0.1", port, "warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("mnemo did not start")
        time.sleep(0.05)
    return RunningMnemo(f"http://127.0.0.1:{port}", settings, server=server, thread=thread)


@contextlib.contextmanager
def store_for_test(data_dir: Path) -> Iterator[Store]:
    """A store of a test's own: embedded, or in the external-store run a separate server."""
    store: ExternalStore | EmbeddedStore = ExternalStore(data_dir) if EXTERNAL else EmbeddedStore(data_dir)
    with store:
        yield store


@contextlib.contextmanager
def mnemo_on_own_store(
    upstream_url: str, tmp: Path, policy: str | None = None
) -> Iterator[tuple[RunningMnemo, Store]]:
    """A Mnemo with a store of its own under ``tmp`` (and the policy text, if given), stopped after."""
    policy_file = None
    if policy is not None:
        policy_file = tmp / "policy.yaml"
        policy_file.write_text(policy)
    with store_for_test(tmp / "store") as store:
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
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    with store_for_test(tmp_path_factory.mktemp("store")) as started:
        yield started


@pytest.fixture(scope="session")
def upstream() -> Iterator[UpstreamStub]:
    stub = UpstreamStub().start()
    yield stub
    stub.stop()


@pytest.fixture(scope="session")
def mnemo(
    store: Store, upstream: UpstreamStub, tmp_path_factory: pytest.TempPathFactory
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
