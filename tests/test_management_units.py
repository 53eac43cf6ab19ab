"""Fast tests of the pure parts of management: line checks, cursors, principals' limits."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from core.model import Evidence, Kind, Status
from core.scope import Principal, Scope
from policies.secrets import secret_matcher
from proxy.auth import Forbidden
from proxy.memory.store import Cursor
from proxy.metrics import Metrics
from proxy.portability import (
    MAX_LINE_BYTES,
    Rejected,
    decode_line,
    derived_id,
    import_lines,
    parse_record,
    stored_vector,
)
from proxy.routes.admin import MemoryFilters, listing

NOW = datetime(2026, 11, 1, tzinfo=UTC)
# reads org and project records, writes project ones, in project "web" only
LIMITED = Principal(
    "ci",
    "beta",
    "ci",
    read=frozenset({"org", "project"}),
    write=frozenset({"project"}),
    projects=frozenset({"web"}),
)
SECRETS = secret_matcher()


def line(**fields: Any) -> dict[str, Any]:
    return {
        "kind": "semantic",
        "text": "The repo uses pnpm.",
        "scope": {"org": "o", "project": "p"},
        **fields,
    }


def test_a_minimal_line_gets_defaults_and_a_content_id() -> None:
    memory = parse_record(line(), 3, NOW, SECRETS)
    assert memory.evidence is Evidence.IMPORTED and memory.status is Status.ACTIVE
    assert memory.observed_at == NOW and memory.source.role == "import" and memory.source.message_index == 3
    assert memory.id == derived_id(Scope("o", "p"), "semantic", "The repo uses pnpm.")
    assert parse_record(line(), 9, NOW, SECRETS).id == memory.id  # a second import merges


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"kind": "rumour"}, "kind:"),
        ({"text": "   "}, "text: empty"),
        ({"scope": {"project": "p"}}, "scope.org: missing"),
        ({"scope": {"org": "o", "team": "x"}}, "scope: must be an object"),
        ({"confidence": 1.5}, "confidence"),
        ({"confidence": True}, "confidence"),
        ({"id": "has spaces"}, "id:"),
        ({"supersedes": "../etc"}, "supersedes: not a record id"),
        ({"observed_at": "yesterday"}, "observed_at: not an ISO 8601 time"),
        ({"expires_at": (NOW - timedelta(seconds=1)).isoformat()}, "expired at"),
        ({"schema_version": 2}, "schema_version 2"),
        ({"version": 0}, "version"),
        ({"extra": []}, "extra"),
        ({"source": {"role": "user"}}, "source:"),
        ({"text": "export AWS_SECRET_ACCESS_KEY=" + "a" * 40}, "text or source holds a secret"),
        ({"wings": 2}, "unknown fields: wings"),
    ],
)
def test_bad_lines_are_rejected_with_a_reason(fields: dict[str, Any], reason: str) -> None:
    with pytest.raises(Rejected) as caught:
        parse_record(line(**fields), 1, NOW, SECRETS)
    assert str(caught.value).startswith(reason)


def test_undecodable_lines() -> None:
    for raw, reason in [(b"{", "not JSON"), (b"[1]", "not a JSON object"), (b"\xff\xfe", "not JSON")]:
        with pytest.raises(Rejected, match=reason):
            decode_line(raw)


def test_times_without_zone_are_utc_and_fields_survive() -> None:
    memory = parse_record(
        line(observed_at="2026-01-02T03:04:05", kind="procedural", key="k", value="v", status="superseded"),
        1,
        NOW,
        SECRETS,
    )
    assert memory.observed_at == datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert (memory.kind, memory.key, memory.value, memory.status) == (
        Kind.PROCEDURAL,
        "k",
        "v",
        Status.SUPERSEDED,
    )


def test_a_stored_vector_is_used_only_for_the_same_model_and_size() -> None:
    vector = np.arange(4, dtype=np.float32)
    encoded = base64.b64encode(vector.tobytes()).decode()
    assert stored_vector(encoded, "m", "m", 4) is not None
    assert stored_vector(encoded, "other", "m", 4) is None
    assert stored_vector(encoded, "m", "m", 8) is None
    assert stored_vector("not base64!", "m", "m", 4) is None


def test_cursor_round_trip_and_garbage() -> None:
    cursor = Cursor(micros=1764454800123456, skip=3)
    assert Cursor.decode(cursor.encode()) == cursor
    for raw in ("", "abc", "1.5_2", "12_", "_3", "12_-1", "x_01ABC"):
        with pytest.raises(ValueError):
            Cursor.decode(raw)


def test_filters_narrow_only_beyond_the_org() -> None:
    assert not MemoryFilters().narrows() and not MemoryFilters(org="o").narrows()
    assert MemoryFilters(project="p").narrows() and MemoryFilters(kinds=(Kind.EPISODIC,)).narrows()


def test_listing_applies_the_principals_limits() -> None:
    limited = LIMITED
    query = listing(limited, MemoryFilters(), changing=False)
    assert query.org == "beta" and query.readable == frozenset({"org", "project"})
    assert query.projects == frozenset({"web"})
    assert listing(limited, MemoryFilters(), changing=True).readable == {"project"}
    with pytest.raises(Forbidden):
        listing(limited, MemoryFilters(org="acme"), changing=False)
    with pytest.raises(Forbidden):
        listing(limited, MemoryFilters(project="api"), changing=False)
    admin = Principal("ops", "ops", "ops", admin=True)
    assert listing(admin, MemoryFilters(), changing=True).org is None  # every org
    assert listing(admin, MemoryFilters(org="acme"), changing=True).org == "acme"


def test_principals_may_read_and_change_by_level_and_project() -> None:
    limited = LIMITED
    assert limited.may_read(Scope("beta")) and not limited.may_change(Scope("beta"))
    assert limited.may_change(Scope("beta", project="web"))
    assert not limited.may_read(Scope("beta", project="api"))
    assert not limited.may_read(Scope("beta", project="web", user="ci"))
    assert not limited.may_read(Scope("acme", project="web"))
    assert Principal("ops", "ops", "ops", admin=True).may_change(Scope("acme", user="x"))


class _Collector:
    def __init__(self) -> None:
        self.lines: list[bytes] = []

    async def feed(self, raw: bytes) -> None:
        self.lines.append(raw)

    async def flush(self) -> None:
        self.lines.append(b"<flush>")

    @property
    def report(self) -> list[bytes]:
        return self.lines


async def _chunks(parts: list[bytes]) -> AsyncIterator[bytes]:
    for part in parts:
        yield part


def test_a_streamed_body_is_split_into_lines_across_chunks() -> None:
    records = [json.dumps(line(text=f"Fact {i}.")).encode() for i in range(3)]
    body = b"\n".join(records)  # no final newline
    parts = [body[i : i + 7] for i in range(0, len(body), 7)]
    collector = _Collector()
    asyncio.run(import_lines(_chunks(parts), collector))  # type: ignore[arg-type]
    assert collector.lines == [*records, b"<flush>"]


def test_an_overlong_line_is_rejected_once_and_the_next_line_still_read() -> None:
    huge = b'{"text": "' + b"x" * (MAX_LINE_BYTES + 10) + b'"}'
    good = json.dumps(line()).encode()
    collector = _Collector()
    parts = [huge[i : i + 4096] for i in range(0, len(huge), 4096)] + [b"\n" + good + b"\n"]
    asyncio.run(import_lines(_chunks(parts), collector))  # type: ignore[arg-type]
    assert len(collector.lines) == 3 and collector.lines[1:] == [good, b"<flush>"]
    with pytest.raises(Rejected, match="longer than"):
        decode_line(collector.lines[0])


def test_metrics_text_is_cumulative_and_labelled() -> None:
    metrics = Metrics()
    for overhead in (0.5, 3.0, 3.0, 700.0):
        metrics.observe_request("chat", "ok", recalled=2, forgotten=0, overhead_ms=overhead)
    metrics.observe_request("messages", "degraded", recalled=0, forgotten=1, overhead_ms=2000.0)
    text = metrics.render([("mnemo_store_up", "up", 1)])
    assert 'mnemo_requests_total{api="chat",status="ok"} 4' in text
    assert 'mnemo_requests_total{api="messages",status="degraded"} 1' in text
    assert 'mnemo_recalled_memories_total{api="chat"} 8' in text
    assert 'mnemo_overhead_seconds_bucket{le="0.001"} 1' in text
    assert 'mnemo_overhead_seconds_bucket{le="0.005"} 3' in text
    assert 'mnemo_overhead_seconds_bucket{le="1"} 4' in text
    assert 'mnemo_overhead_seconds_bucket{le="+Inf"} 5' in text
    assert "mnemo_forgotten_memories_total 1" in text and "mnemo_store_up 1" in text
