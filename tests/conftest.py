"""Shared fixtures: the embedded store, an upstream stand-in on a port, and Mnemo served on a port.

Everything here is real: Valkey with RediSearch from the PyPI wheels, uvicorn serving both
apps over TCP, the offline MiniLM model and spaCy.

With MNEMO_TEST_STORE=external (a second run in CI) the store is a separate service Mnemo does not
own (harness/processes.py: an ACL user with a password, its own data dir) and Mnemo is run as
`mnemo serve --redis-url URL` in a process of its own, unless a test sets what only the in-process
settings can say. Tests about the embedded store itself are skipped in that run (see EMBEDDED_ONLY).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from extractors import ClauseExtractor
from harness.processes import (
    EXTERNAL,
    ExternalStore,
    Store,
    free_port,
    on_command_line,
    start_serve,
)
from harness.serving import RunningMnemo, serve_in_process
from harness.upstream import UpstreamStub
from proxy.memory.embedded import EmbeddedStore
from proxy.settings import Settings

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


# Tests check what is recalled, not how fast: on a loaded 2-core runner the worker's spaCy threads can
# hold a query's embedding past the 500 ms default and the call goes on without memory, as it should
# (tests/test_fail_open.py sets its own short deadline; bench/ measures the latency).
PATIENT_RECALL_S = 10.0
# ... and each store call likewise: with a worker per core, a vector search can outlast the 0.5 s default
# (tests/test_fail_open.py sets its own deadline; tests/test_store_outage.py runs `mnemo serve` as shipped)
PATIENT_STORE_S = 5.0


def serve_mnemo(settings: Settings) -> RunningMnemo:
    """Mnemo on a free port: in this process, or in the external-store run through `mnemo serve
    --redis-url` when its flags and variables can say everything ``settings`` holds. Recall and the
    store's calls are given :data:`PATIENT_RECALL_S` and :data:`PATIENT_STORE_S` unless the test set
    its own."""
    settings = settings.with_changes(port=free_port())
    if settings.recall_timeout_s == Settings().recall_timeout_s:
        # (a test that sets its own recall deadline is about deadlines: the store's stays as shipped)
        settings = settings.with_changes(recall_timeout_s=PATIENT_RECALL_S)
        if settings.store_timeout_s == Settings().store_timeout_s:
            settings = settings.with_changes(store_timeout_s=PATIENT_STORE_S)
    if EXTERNAL and on_command_line(settings):
        process, url = start_serve(
            settings, settings.data_dir.with_name(f"{settings.data_dir.name}-serve.log")
        )
        return RunningMnemo(url, settings, process=process)
    return serve_in_process(settings)


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
