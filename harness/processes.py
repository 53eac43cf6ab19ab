"""The production shape as separate processes: a store Mnemo does not own, and `mnemo serve` /
`mnemo worker` run through the real command line, each given only the store's URL.

The store is the same Valkey and RediSearch as the embedded one (no Redis 8 binary can be installed
on these machines, docs/design.md §7), started here with a configuration of its own: an ACL user
with a password and the default user disabled, its own data dir, append-only persistence, a free
port. Only commands Redis 8 documents are used to check on it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, cast
from urllib.parse import quote

import httpx
import redis

from proxy.memory.embedded import search_module, valkey_binary
from proxy.settings import ENV_VARS, Settings

# MNEMO_TEST_STORE=external runs the integration tests against ExternalStore and serves Mnemo
# through `mnemo serve --redis-url` in a process of its own.
EXTERNAL = os.environ.get("MNEMO_TEST_STORE", "embedded") == "external"

_PR_SET_PDEATHSIG = 1


class Store(Protocol):
    """What tests use of a store, embedded or external."""

    @property
    def url(self) -> str: ...

    @property
    def pid(self) -> int | None: ...

    data_dir: Path

    def stop(self) -> None: ...


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _die_with_parent() -> Callable[[], None]:
    """A pre-exec hook: the child gets SIGTERM when the test run dies, so no server outlives it.
    libc is loaded here, in the parent (loading it in the forked child could deadlock)."""
    try:
        prctl = ctypes.CDLL("libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):
        prctl = None

    def hook() -> None:
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)

    return hook


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


class ExternalStore:
    """A Valkey + RediSearch server run as a separate service: ``with ExternalStore(dir) as s: s.url``.

    Mnemo reaches it as the ACL user ``mnemo`` with a password; the default user is off, so a client
    without credentials is refused.
    """

    user = "mnemo"

    def __init__(self, data_dir: Path, start_timeout_s: float = 60.0) -> None:
        self.data_dir = data_dir
        self.start_timeout_s = start_timeout_s
        self.password = secrets.token_urlsafe(24)
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        if self._process is None:
            raise RuntimeError("the external store is not running")
        return f"redis://{self.user}:{quote(self.password, safe='')}@127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def __enter__(self) -> ExternalStore:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def start(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        for _attempt in range(3):  # a port found free can be taken before the server binds it
            self.port = free_port()
            self._process = self._spawn()
            error = self._wait_ready()
            if not error:
                return
            self._kill()
            if "Address already in use" not in error:
                raise RuntimeError(f"the external store did not start: {error}")
        raise RuntimeError("the external store did not start: every port tried was taken")

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGTERM)  # flushes the append-only file and exits
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url)

    def _spawn(self) -> subprocess.Popen[bytes]:
        config = "\n".join(
            [
                f"port {self.port}",
                "bind 127.0.0.1",
                f"dir {self.data_dir}",
                "appendonly yes",
                "appendfsync everysec",
                'save ""',
                "logfile store.log",
                "user default off",
                f"user {self.user} on >{self.password} ~* &* +@all",
                f"loadmodule {search_module()}",
                "",
            ]
        )
        path = self.data_dir / "store.conf"  # the password stays out of argv, where `ps` shows it
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(config)
        with contextlib.suppress(FileNotFoundError):
            (self.data_dir / "store.log").unlink()
        return subprocess.Popen(
            [str(valkey_binary()), str(path)],
            cwd=self.data_dir,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_die_with_parent(),
        )

    def _wait_ready(self) -> str:
        """Empty when the server answers as the ACL user and knows the search commands; else why not."""
        assert self._process is not None
        client = redis.Redis(
            host="127.0.0.1",
            port=self.port,
            username=self.user,
            password=self.password,
            socket_connect_timeout=0.5,
            socket_timeout=2,
        )
        deadline = time.monotonic() + self.start_timeout_s
        try:
            while time.monotonic() < deadline:
                if self._process.poll() is not None:
                    return _tail(self.data_dir / "store.log", 3) or "the server exited at once"
                try:
                    cast(Any, client).execute_command("FT._LIST")  # fails unless search is there
                    return ""
                except (redis.BusyLoadingError, redis.ConnectionError):
                    time.sleep(0.02)
            return f"no answer within {self.start_timeout_s:.0f} s"
        finally:
            client.close()

    def _kill(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        self._process = None


# -- Mnemo through its command line ----------------------------------------------------------------

# Settings that `mnemo serve` takes only from its environment (docs/design.md §4 names the flags).
_ENV_ONLY = {name: var for name, var in ENV_VARS.items() if name.startswith(("embedding_", "upstream_"))}
_ENV_ONLY |= {
    name: ENV_VARS[name]
    for name in ("max_body_bytes", "allowed_hosts", "recall_timeout_s", "store_timeout_s")
}
_ENV_ONLY.pop("upstream_url")
# Settings neither flag nor variable sets: a test that changes one is served in process.
_NOT_ON_COMMAND_LINE = ("erasure_wait_s",)


def on_command_line(settings: Settings) -> bool:
    """Whether `mnemo serve` flags and MNEMO_* variables can say everything ``settings`` holds."""
    default = Settings()
    return all(getattr(settings, name) == getattr(default, name) for name in _NOT_ON_COMMAND_LINE)


def _env(extra: Mapping[str, str]) -> dict[str, str]:
    """This process's environment without any MNEMO_* setting of the person running the tests."""
    env = {k: v for k, v in os.environ.items() if k not in ENV_VARS.values()}
    return env | dict(extra)


@dataclass
class MnemoProcess:
    """A `mnemo serve` or `mnemo worker` process; its output goes to ``log``."""

    process: subprocess.Popen[bytes]
    log: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self) -> int:
        """SIGTERM, as a service manager stops it; the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return int(self.process.returncode)

    def output(self) -> str:
        return _tail(self.log, 10_000)


def spawn_cli(args: list[str], env: Mapping[str, str], log: Path) -> MnemoProcess:
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as handle:
        process = subprocess.Popen(
            [sys.executable, "-m", "proxy.cli", *args],
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
            env=_env(env),
            preexec_fn=_die_with_parent(),
        )
    return MnemoProcess(process, log)


def serve_args(settings: Settings, worker: bool | None = None) -> tuple[list[str], dict[str, str]]:
    """`mnemo serve` flags and environment for ``settings`` (see :func:`on_command_line`)."""
    assert settings.redis_url is not None, "an external store is given by URL"
    args = [
        "serve",
        "--host",
        settings.host,
        "--port",
        str(settings.port),
        "--upstream",
        settings.upstream_url,
        "--anthropic-upstream",
        settings.anthropic_upstream_url,
        "--redis-url",
        settings.redis_url,
        "--data-dir",
        str(settings.data_dir),
        "--log-level",
        "warning" if settings.log_level == "info" else settings.log_level,
    ]
    if settings.policy_file is not None:
        args += ["--policy", str(settings.policy_file)]
    if not (settings.run_worker if worker is None else worker):
        args.append("--no-worker")
    if settings.insecure:
        args.append("--insecure")
    default = Settings()
    env: dict[str, str] = {}
    for name, var in _ENV_ONLY.items():
        value = getattr(settings, name)
        if value != getattr(default, name):
            env[var] = ",".join(sorted(value)) if isinstance(value, frozenset) else str(value)
    return args, env


def start_serve(settings: Settings, log: Path, timeout_s: float = 120.0) -> tuple[MnemoProcess, str]:
    """`mnemo serve --redis-url ...` on ``settings.port``; returns once /readyz says ready."""
    args, env = serve_args(settings)
    served = spawn_cli(args, env, log)
    url = f"http://127.0.0.1:{settings.port}"
    try:
        wait_ready(served, url, timeout_s)
    except BaseException:
        served.stop()
        raise
    return served, url


def wait_ready(served: MnemoProcess, url: str, timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        if served.process.poll() is not None:
            raise RuntimeError(f"mnemo serve exited with {served.process.returncode}:\n{served.output()}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"mnemo serve was not ready within {timeout_s:.0f} s:\n{served.output()}")
        time.sleep(0.1)


def start_worker(redis_url: str, log: Path, policy_file: Path | None = None) -> MnemoProcess:
    """`mnemo worker --redis-url ...` (debug logging: it says how many jobs each batch learned from)."""
    args = ["worker", "--redis-url", redis_url, "--log-level", "debug"]
    if policy_file is not None:
        args += ["--policy", str(policy_file)]
    return spawn_cli(args, {}, log)


@contextlib.contextmanager
def stopping(processes: list[MnemoProcess]) -> Iterator[list[MnemoProcess]]:
    """Stop every process of the list on the way out, the last started first."""
    try:
        yield processes
    finally:
        for process in reversed(processes):
            process.stop()
