"""The management API against a served Mnemo: listing with filters and cursor pages, search with
scores, corrections as new versions, deletion by filter and by scope, import reports."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import openai
import pytest

from core.model import new_id
from harness.helpers import export_line, injected_block
from harness.upstream import UpstreamStub
from tests.conftest import NDJSON, RunningMnemo

pytestmark = [pytest.mark.integration, pytest.mark.store_contract]

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def import_records(mnemo: RunningMnemo, records: list[dict[str, Any]], **params: Any) -> dict[str, Any]:
    body = "".join(json.dumps(r) + "\n" for r in records).encode()
    response = httpx.post(
        f"{mnemo.url}/mnemo/v1/import", content=body, params=params, headers=NDJSON, timeout=60
    )
    assert response.status_code == 200, response.text
    report: dict[str, Any] = response.json()
    return report


def listing(mnemo: RunningMnemo, **params: Any) -> dict[str, Any]:
    response = httpx.get(f"{mnemo.url}/mnemo/v1/memories", params=params, timeout=10)
    assert response.status_code == 200, response.text
    page: dict[str, Any] = response.json()
    return page


def test_list_filters_and_cursor_pages(mnemo: RunningMnemo, unique: Callable[[str], str]) -> None:
    project = unique("listing")
    records = [
        export_line(
            project,
            f"Note number {i} about the {'billing' if i % 3 == 0 else 'search'} service.",
            T0 + timedelta(minutes=i),
            kind="episodic" if i % 5 == 0 else "semantic",
        )
        for i in range(25)
    ]
    assert import_records(mnemo, records)["imported"] == 25

    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        page = listing(mnemo, project=project, limit=10, **({"cursor": cursor} if cursor else {}))
        assert page["total"] == (25 if pages == 0 else 26)  # all matches, the late one included
        seen += [m["id"] for m in page["data"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
        # a record written between pages neither repeats nor shifts the pages still to come
        if pages == 1:
            import_records(mnemo, [export_line(project, "Late arrival.", T0 + timedelta(days=1))])
    assert pages == 3
    assert seen == [r["id"] for r in sorted(records, key=lambda r: r["observed_at"], reverse=True)]

    billing = listing(mnemo, project=project, contains="billing service", limit=100)
    assert {m["text"] for m in billing["data"]} == {r["text"] for r in records if "billing" in r["text"]}
    window = listing(
        mnemo,
        project=project,
        observed_after=(T0 + timedelta(minutes=5)).isoformat(),
        observed_before=(T0 + timedelta(minutes=10)).isoformat(),
    )
    assert sorted(m["text"] for m in window["data"]) == sorted(r["text"] for r in records[5:10])
    episodic = listing(mnemo, project=project, kind="episodic")
    assert {m["id"] for m in episodic["data"]} == {r["id"] for r in records if r["kind"] == "episodic"}
    bad = httpx.get(f"{mnemo.url}/mnemo/v1/memories", params={"cursor": "nonsense"})
    assert bad.status_code == 400 and "cursor" in bad.json()["error"]["message"]


def test_cursor_pages_through_records_that_share_one_time(
    mnemo: RunningMnemo, unique: Callable[[str], str]
) -> None:
    project = unique("ties")
    records = [export_line(project, f"Tied fact {i}.", T0) for i in range(23)]
    records += [export_line(project, f"Later fact {i}.", T0 + timedelta(microseconds=1)) for i in range(4)]
    import_records(mnemo, records)
    seen: list[str] = []
    cursor = None
    while True:
        page = listing(mnemo, project=project, limit=5, **({"cursor": cursor} if cursor else {}))
        seen += [m["id"] for m in page["data"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == len(set(seen)) == 27
    assert set(seen[:4]) == {r["id"] for r in records[23:]}  # newest first, ties by id
    assert seen[4:] == sorted((r["id"] for r in records[:23]), reverse=True)
    # the exact time comes back, to the microsecond
    assert {m["observed_at"] for m in listing(mnemo, project=project, limit=4)["data"]} == {
        (T0 + timedelta(microseconds=1)).isoformat()
    }


def test_search_ranks_like_recall_with_scores(mnemo: RunningMnemo, unique: Callable[[str], str]) -> None:
    project = unique("search")
    import_records(
        mnemo,
        [
            export_line(project, "This repo uses pnpm as its package manager.", T0),
            export_line(project, "The staging database is Postgres 16.", T0),
            export_line(project, "Deploys go out on Tuesdays.", T0),
        ],
    )
    response = httpx.get(
        f"{mnemo.url}/mnemo/v1/memories/search",
        params={"q": "which package manager should I install with?", "project": project},
        timeout=30,
    )
    hits = response.json()["data"]
    assert hits[0]["memory"]["text"].startswith("This repo uses pnpm")
    assert hits[0]["score"] > hits[-1]["score"] and hits[0]["similarity"] > 0.3
    # another project's context sees none of them
    other = httpx.get(
        f"{mnemo.url}/mnemo/v1/memories/search", params={"q": "package manager", "project": unique("other")}
    ).json()["data"]
    assert all(hit["memory"]["scope"]["project"] != project for hit in other)


def test_patch_is_a_new_version_that_recall_uses_and_history_keeps(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("patch")
    api = openai.OpenAI(
        base_url=mnemo.openai_base, api_key="k", max_retries=0, default_headers={"X-Mnemo-Project": project}
    )
    api.chat.completions.create(model="m", messages=[{"role": "user", "content": "This repo uses pnpm."}])
    (learned,) = mnemo.wait_for_memories(1, project=project)

    url = f"{mnemo.url}/mnemo/v1/memories"
    corrected = httpx.patch(
        f"{url}/{learned['id']}",
        json={"text": "This repo uses bun.", "value": "bun", "reason": "we moved"},
        timeout=30,
    ).json()
    assert corrected["id"] != learned["id"] and corrected["supersedes"] == learned["id"]
    assert corrected["evidence"] == "admin" and corrected["version"] == learned["version"] + 1
    assert corrected["key"] == learned["key"] and corrected["value"] == "bun"
    history = httpx.get(f"{url}/{corrected['id']}").json()["history"]
    assert [v["id"] for v in history] == [learned["id"], corrected["id"]]
    assert history[0]["status"] == "superseded" and history[0]["valid_to"] is not None

    fresh_upstream.requests.clear()
    api.chat.completions.create(model="m", messages=[{"role": "user", "content": "How do I install deps?"}])
    block = injected_block(fresh_upstream.chat_requests()[-1]) or ""
    assert "bun" in block and "pnpm" not in block

    stale = httpx.patch(f"{url}/{learned['id']}", json={"text": "This repo uses npm."})
    assert stale.status_code == 409 and corrected["id"] in stale.json()["error"]["message"]
    assert httpx.patch(f"{url}/{corrected['id']}", json={}).status_code == 400
    leak = httpx.patch(f"{url}/{corrected['id']}", json={"text": "Use key sk-proj-" + "a1B2" * 10})
    assert leak.status_code == 400 and "secret" in leak.json()["error"]["message"]
    # pinning changes the record in place: no new version, and it never expires
    pinned = httpx.patch(f"{url}/{corrected['id']}", json={"pinned": True}).json()
    assert pinned["id"] == corrected["id"] and pinned["extra"]["pinned"] is True
    assert pinned["expires_at"] is None
    assert httpx.patch(f"{url}/{new_id()}", json={"text": "x"}).status_code == 404


def test_delete_by_filter_and_by_scope_with_receipts(
    mnemo: RunningMnemo, unique: Callable[[str], str]
) -> None:
    project, keep = unique("bulk"), unique("bulk-keep")
    records = [
        export_line(project, f"Episode {i} of the rollout.", T0 + timedelta(minutes=i), kind="episodic")
        for i in range(7)
    ] + [export_line(project, f"Fact {i} about the rollout.", T0, kind="semantic") for i in range(5)]
    import_records(mnemo, [*records, export_line(keep, "Untouched fact about the rollout.", T0)])
    url = f"{mnemo.url}/mnemo/v1/memories"

    refused = httpx.delete(url)
    assert refused.status_code == 400 and "all=true" in refused.json()["error"]["message"]
    receipt = httpx.delete(url, params={"project": project, "kind": "episodic"}, timeout=30).json()
    assert receipt["object"] == "deletion" and receipt["deleted"] == 7
    assert set(receipt["ids"]) == {r["id"] for r in records[:7]}
    assert {m["id"] for m in listing(mnemo, project=project)["data"]} == {r["id"] for r in records[7:]}

    whole = httpx.delete(f"{mnemo.url}/mnemo/v1/scopes/project/{project}", timeout=30).json()
    assert whole["deleted"] == 5 and whole["scope"] == {"level": "project", "value": project}
    assert listing(mnemo, project=project)["total"] == 0
    assert listing(mnemo, project=keep)["total"] == 1
    actions = [
        e["action"] for e in httpx.get(f"{mnemo.url}/mnemo/v1/audit", params={"limit": 40}).json()["data"]
    ]
    assert actions.count("delete") >= 12


def test_import_checks_every_line_and_reports_reasons(
    mnemo: RunningMnemo, unique: Callable[[str], str]
) -> None:
    project = unique("import")
    good = export_line(project, "The CI runs on GitHub Actions.", T0)
    lines = [
        json.dumps(good),
        "{not json",
        json.dumps({**export_line(project, "x", T0), "text": ""}),
        json.dumps(export_line(project, "A fact.", T0, kind="rumour")),
        json.dumps(export_line(project, "The token is ghp_" + "A" * 36, T0)),
        json.dumps(
            export_line(
                project, "Old news.", T0, expires_at=(datetime.now(UTC) - timedelta(days=1)).isoformat()
            )
        ),
        json.dumps({**export_line(project, "Has extras.", T0), "colour": "blue"}),
        json.dumps(export_line(project, "From the future.", T0, schema_version=99)),
        "",
        json.dumps(good),  # the same record twice in one file
    ]
    body = ("\n".join(lines) + "\n").encode()
    dry = httpx.post(
        f"{mnemo.url}/mnemo/v1/import", content=body, params={"dry_run": "true"}, headers=NDJSON, timeout=30
    ).json()
    assert dry["imported"] == 1 and dry["rejected"] == 7 and dry["dry_run"] is True
    assert listing(mnemo, project=project)["total"] == 0

    report = httpx.post(f"{mnemo.url}/mnemo/v1/import", content=body, headers=NDJSON, timeout=30).json()
    assert (report["imported"], report["merged"], report["rejected"]) == (1, 1, 7)
    reasons = {r["line"]: r["reason"] for r in report["rejections"]}
    assert reasons[2].startswith("not JSON")
    assert reasons[3] == "text: empty" or reasons[3].startswith("missing: text")
    assert reasons[4].startswith("kind:") and "rumour" in reasons[4]
    assert "secret" in reasons[5] and "ghp_" not in json.dumps(report)
    assert reasons[6].startswith("expired")
    assert reasons[7] == "unknown fields: colour"
    assert reasons[8].startswith("schema_version 99")
    again = httpx.post(f"{mnemo.url}/mnemo/v1/import", content=body, headers=NDJSON, timeout=30).json()
    assert (again["imported"], again["merged"]) == (0, 2)
    (stored,) = listing(mnemo, project=project)["data"]
    assert stored["id"] == good["id"] and stored["source"] == {
        **good["source"],
        "client": None,
        "model": None,
    }
    assert stored["evidence"] == "stated" and stored["observed_at"] == good["observed_at"]


def test_import_keeps_one_current_value_per_slot(mnemo: RunningMnemo, unique: Callable[[str], str]) -> None:
    project = unique("slots")
    slot = {"key": "package_manager", "subject": "repo"}
    older = export_line(project, "This repo uses npm.", T0, value="npm", **slot)
    newer = export_line(project, "This repo uses pnpm.", T0 + timedelta(days=3), value="pnpm", **slot)
    import_records(mnemo, [newer])
    report = import_records(mnemo, [older])
    assert report["reconciled"] == 1
    current = listing(mnemo, project=project, status="active")["data"]
    assert [m["value"] for m in current] == ["pnpm"]
    old = listing(mnemo, project=project, status="superseded")["data"]
    assert [m["value"] for m in old] == ["npm"] and old[0]["superseded_by"] == newer["id"]


def test_metrics_count_calls_and_read_the_store(mnemo: RunningMnemo, unique: Callable[[str], str]) -> None:
    def scrape() -> dict[str, float]:
        response = httpx.get(f"{mnemo.url}/metrics")
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
        return {
            name: float(value)
            for name, _, value in (line.rpartition(" ") for line in response.text.splitlines())
            if not name.startswith("#")
        }

    import_records(mnemo, [export_line(unique("metrics"), "Metrics are scraped every 15 seconds.", T0)])
    before = scrape()
    key = 'mnemo_requests_total{api="openai.chat",status="ok"}'
    httpx.post(
        f"{mnemo.openai_base}/chat/completions",
        headers={"x-mnemo-project": unique("metrics")},
        json={"model": "m", "messages": [{"role": "user", "content": "hello"}]},
        timeout=30,
    )
    after = scrape()
    assert after[key] == before.get(key, 0) + 1
    assert after["mnemo_overhead_seconds_count"] == before["mnemo_overhead_seconds_count"] + 1
    assert after["mnemo_store_up"] == 1 and after["mnemo_memories_stored"] > 0
