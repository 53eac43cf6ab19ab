"""Keeps the embedded store up: reaps it when it dies and starts it again, with backoff.

A thread of its own waits on the server process. When the server exits while Mnemo is not stopping
(killed, crashed, out of memory), the thread starts it again on the same address and data dir, so
every client keeps its URL and the append-only files bring back what was written. Each exit and each
restart is logged; how many restarts there were and how long the last one took are shown by
``/readyz``, ``mnemo doctor`` and ``/metrics``.

The restarts are forked from this long-lived thread on purpose: the parent-death signal that stops
the server when Mnemo dies follows the thread that forked it, not the process.
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from dataclasses import dataclass
from types import TracebackType

from proxy.memory.embedded import EmbeddedStore

log = logging.getLogger("mnemo.store.embedded")

FIRST_BACKOFF_S = 0.1
MAX_BACKOFF_S = 5.0


@dataclass(frozen=True, slots=True)
class StoreHealth:
    """What the supervisor knows, for /readyz, doctor and /metrics."""

    state: str  # "running", "restarting" or "stopped"
    pid: int | None
    restarts: int
    last_restart_s: float | None  # from the exit seen to the server answering again
    last_exit: str | None  # how the server last ended, when it was not asked to

    def describe(self) -> str:
        said = f"{self.state}" + (f" (pid {self.pid})" if self.pid and self.state == "running" else "")
        if self.last_exit:
            said += f"; last exit: {self.last_exit}"
        if self.restarts:
            said += f"; restarted {self.restarts} time{'s' if self.restarts != 1 else ''}"
            if self.last_restart_s is not None:
                said += f", last in {self.last_restart_s * 1000:.0f} ms"
        return said


def describe_exit(code: int | None) -> str:
    if code is None:
        return "not running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


class StoreSupervisor:
    """``with StoreSupervisor(store):`` watches a started ``EmbeddedStore`` until the block ends."""

    def __init__(self, store: EmbeddedStore, max_backoff_s: float = MAX_BACKOFF_S) -> None:
        self.store = store
        self.max_backoff_s = max_backoff_s
        self._stopping = threading.Event()
        self._lock = threading.Lock()  # a restart and a stop never overlap
        self._thread: threading.Thread | None = None
        self._state = "running"
        self._restarts = 0
        self._last_restart_s: float | None = None
        self._last_exit: str | None = None

    def health(self) -> StoreHealth:
        return StoreHealth(self._state, self.store.pid, self._restarts, self._last_restart_s, self._last_exit)

    def __enter__(self) -> StoreSupervisor:
        self._thread = threading.Thread(target=self._watch, name="mnemo-store-supervisor", daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            self.store.stop()
            self._state = "stopped"
        if self._thread is not None:
            self._thread.join(timeout=20)

    def _watch(self) -> None:
        while not self._stopping.is_set():
            code = self.store.wait()
            if self._stopping.is_set():
                return
            down_at = time.monotonic()
            self._last_exit = describe_exit(code)
            self._state = "restarting"
            log.error("embedded store stopped unexpectedly (%s); restarting it", self._last_exit)
            if self._restart(down_at):
                self._restarts += 1
                self._last_restart_s = time.monotonic() - down_at
                self._state = "running"
                log.warning(
                    "embedded store restarted in %.0f ms (pid %s, restart %d)",
                    self._last_restart_s * 1000,
                    self.store.pid,
                    self._restarts,
                )

    def _restart(self, down_at: float) -> bool:
        """Relaunch until it answers, backing off between tries; False when Mnemo stops first."""
        backoff = FIRST_BACKOFF_S
        attempt = 0
        while True:
            attempt += 1
            with self._lock:
                if self._stopping.is_set():
                    return False
                error = self.store.relaunch()
            if not error:
                return True
            log.warning(
                "embedded store restart %d failed after %.1f s: %s; next try in %.1f s",
                attempt,
                time.monotonic() - down_at,
                error,
                backoff,
            )
            if self._stopping.wait(backoff):
                return False
            backoff = min(backoff * 2, self.max_backoff_s)
