"""Learning jobs held while the store is away, written to the queue when it is back.

A relay never waits on the store: when it cannot queue a job, the job is held here, in order, up to
a count and a byte bound (settings ``held_jobs_max``, ``held_jobs_max_bytes``). Past either bound
the new job is dropped and counted, never an older one: what was said first is learned first. A
flusher writes what is held as soon as the store answers; on shutdown whatever is still held is
spilled to a file in the data dir (0600) and taken back on the next start, so a clean stop during
an outage loses nothing either.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from core.errors import StoreError
from proxy.worker.queue import ExtractionJob, JobQueue, mentions_any

log = logging.getLogger("mnemo")

SPILL_FILE = "held-jobs.jsonl"


@dataclass(slots=True)
class HeldJobs:
    """A bounded FIFO of serialized jobs. Pure bookkeeping: the writing is :func:`flush`'s."""

    max_jobs: int
    max_bytes: int
    _jobs: deque[str] = field(default_factory=deque)
    held_bytes: int = 0
    dropped: int = 0  # jobs refused because a bound was reached
    written: int = 0  # held jobs that later reached the queue

    def __len__(self) -> int:
        return len(self._jobs)

    def hold(self, payload: str) -> bool:
        size = len(payload.encode())
        if len(self._jobs) >= self.max_jobs or self.held_bytes + size > self.max_bytes:
            self.dropped += 1
            return False
        self._jobs.append(payload)
        self.held_bytes += size
        return True

    def oldest(self) -> str | None:
        return self._jobs[0] if self._jobs else None

    def release_oldest(self) -> None:
        """The oldest job was written: let it go."""
        payload = self._jobs.popleft()
        self.held_bytes -= len(payload.encode())
        self.written += 1

    def purge(self, fragments: list[str]) -> int:
        """A deletion reaches held jobs too: drop each whose messages hold a deleted text."""
        needles = [f.casefold() for f in fragments if f.strip()]
        kept = [p for p in self._jobs if not mentions_any(p, needles)]
        purged = len(self._jobs) - len(kept)
        if purged:
            self._jobs = deque(kept)
            self.held_bytes = sum(len(p.encode()) for p in kept)
        return purged

    def take_all(self) -> list[str]:
        taken = list(self._jobs)
        self._jobs.clear()
        self.held_bytes = 0
        return taken


@dataclass(frozen=True, slots=True)
class QueueAndHeld:
    """What a deletion purges: the jobs held here, then the queue's."""

    queue: JobQueue
    held: HeldJobs

    async def purge(self, fragments: list[str]) -> int:
        return self.held.purge(fragments) + await self.queue.purge(fragments)


async def enqueue_or_hold(queue: JobQueue, held: HeldJobs, job: ExtractionJob) -> str:
    """Queue the job, or hold it while the store is away. Returns "queued", "held" or "dropped".

    While anything is held a new job joins the end of the line, so jobs reach the queue in the order
    they were said."""
    if not len(held):
        try:
            await queue.enqueue(job)
            return "queued"
        except StoreError as exc:
            log.warning("store away (%s): holding learning jobs until it returns", exc)
    if held.hold(job.to_json()):
        return "held"
    log.error(
        "learning dropped for request %s: %d jobs (%d bytes) already held",
        job.request_id,
        len(held),
        held.held_bytes,
    )
    return "dropped"


async def flush(queue: JobQueue, held: HeldJobs) -> int:
    """Write held jobs to the queue, oldest first, until none is left or the store fails again."""
    written = 0
    while (payload := held.oldest()) is not None:
        try:
            await queue.enqueue_raw(payload)
        except StoreError:
            break
        held.release_oldest()
        written += 1
    if written:
        log.info("store back: %d held learning jobs queued, %d still held", written, len(held))
    return written


async def keep_flushing(queue: JobQueue, held: HeldJobs, every_s: float = 0.25) -> None:
    """Runs for the app's life: writes held jobs as soon as the store answers again."""
    while True:
        await asyncio.sleep(every_s)
        if len(held):
            await flush(queue, held)


def spill(held: HeldJobs, data_dir: Path) -> int:
    """On shutdown: what is still held goes to a file of the data dir, appended."""
    payloads = held.take_all()
    if not payloads:
        return 0
    data_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(data_dir / SPILL_FILE, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as handle:
        handle.writelines(payload + "\n" for payload in payloads)
    log.warning("store away at shutdown: %d learning jobs kept in %s", len(payloads), data_dir / SPILL_FILE)
    return len(payloads)


def take_spilled(held: HeldJobs, data_dir: Path) -> int:
    """On start: jobs a stop during an outage kept on disk are held again (and the file removed)."""
    path = data_dir / SPILL_FILE
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return 0
    taken = sum(held.hold(line) for line in lines if line.strip())
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    log.info("%d learning jobs from the last run's outage are held until the store takes them", taken)
    return taken
