"""Jobs held while the store is away: bounds, order, deletion, and the spill file of a clean stop."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

from core.scope import Scope
from extractors import Turn
from harness.helpers import jobs_added
from harness.processes import Store, free_port
from proxy.worker.held import SPILL_FILE, HeldJobs, QueueAndHeld, enqueue_or_hold, flush, spill, take_spilled
from proxy.worker.queue import ExtractionJob, JobQueue


def _job(text: str) -> ExtractionJob:
    return ExtractionJob(
        request_id=text[:12],
        scope=Scope(org="local", project="held", user="u"),
        turns=[Turn("user", text, 0)],
        observed_at=datetime.now(UTC),
        api="openai.chat",
    )


def test_the_bounds_drop_the_newest_and_count_it() -> None:
    held = HeldJobs(max_jobs=2, max_bytes=10_000)
    assert held.hold("a") and held.hold("b") and not held.hold("c")
    assert (len(held), held.dropped, held.oldest()) == (2, 1, "a")
    by_bytes = HeldJobs(max_jobs=100, max_bytes=10)
    assert by_bytes.hold("x" * 6) and not by_bytes.hold("y" * 6) and by_bytes.hold("z" * 4)
    assert (by_bytes.held_bytes, by_bytes.dropped) == (10, 1)


def test_a_deletion_reaches_held_jobs() -> None:
    held = HeldJobs(max_jobs=10, max_bytes=100_000)
    for text in ["We use Grafana for dashboards.", "My daughter Zoë starts school.", "We use yarn."]:
        held.hold(_job(text).to_json())
    # the JSON escapes "ë": the deleted text is matched in the decoded turns too
    assert held.purge(["daughter zoë"]) == 1
    assert len(held) == 2 and all("Zo" not in p for p in held.take_all())


def test_a_clean_stop_during_an_outage_keeps_the_jobs_for_the_next_start(tmp_path: Path) -> None:
    held = HeldJobs(max_jobs=10, max_bytes=100_000)
    payloads = [_job(f"We deploy with tool{i} to production.").to_json() for i in range(3)]
    for payload in payloads:
        held.hold(payload)
    assert spill(held, tmp_path) == 3 and len(held) == 0
    assert (tmp_path / SPILL_FILE).stat().st_mode & 0o777 == 0o600
    again = HeldJobs(max_jobs=10, max_bytes=100_000)
    assert take_spilled(again, tmp_path) == 3
    assert again.take_all() == payloads and not (tmp_path / SPILL_FILE).exists()


def test_jobs_wait_in_order_while_the_store_is_away_and_are_written_when_it_answers(store: Store) -> None:
    async def scenario() -> None:
        away = JobQueue(f"redis://127.0.0.1:{free_port()}/0", timeout_s=0.2)  # nothing listens there
        present = JobQueue(store.url)
        held = HeldJobs(max_jobs=10, max_bytes=100_000)
        try:
            jobs = [_job(f"We deploy with held{i} to production.") for i in range(3)]
            assert [await enqueue_or_hold(away, held, j) for j in jobs] == ["held"] * 3
            assert await flush(away, held) == 0 and len(held) == 3
            before = jobs_added(store.url)
            # while anything is held, a new job joins the line even with the store back
            assert await enqueue_or_hold(present, held, _job("We deploy with held3 to production.")) == "held"
            assert await QueueAndHeld(present, held).purge(["held1 to production"]) == 1
            assert await flush(present, held) == 3 and len(held) == 0 and held.written == 3
            assert jobs_added(store.url) == before + 3
            assert await enqueue_or_hold(present, held, jobs[0]) == "queued"
        finally:
            await away.close()
            await present.close()

    asyncio.run(scenario())
