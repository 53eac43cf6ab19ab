"""The management API: delete one memory everywhere it lives, with a receipt and an audit entry
that never holds the text."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import httpx
import openai
import pytest
import redis

from harness.helpers import chat, injected_block, jobs_added, wait_drained
from harness.processes import Store
from harness.upstream import UpstreamStub
from proxy.memory.embedded import EmbeddedStore
from tests.conftest import RunningMnemo

pytestmark = pytest.mark.integration


def test_delete_removes_a_memory_everywhere_and_audits_without_text(
    mnemo: RunningMnemo, store: EmbeddedStore, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("delete")
    api = openai.OpenAI(
        base_url=mnemo.openai_base, api_key="k", max_retries=0, default_headers={"X-Mnemo-Project": project}
    )
    api.chat.completions.create(model="m", messages=[{"role": "user", "content": "This repo uses pnpm."}])
    (first,) = mnemo.wait_for_memories(1, project=project)
    api.chat.completions.create(model="m", messages=[{"role": "user", "content": "We switched to yarn."}])
    current = next(m for m in mnemo.wait_for_memories(2, project=project) if m["value"] == "yarn")

    receipt = httpx.delete(f"{mnemo.url}/mnemo/v1/memories/{current['id']}").json()
    assert receipt["object"] == "deletion" and receipt["id"] == current["id"] and receipt["deleted"]
    assert httpx.get(f"{mnemo.url}/mnemo/v1/memories/{current['id']}").status_code == 404
    assert httpx.delete(f"{mnemo.url}/mnemo/v1/memories/{current['id']}").status_code == 404
    # gone from listing and from the history of the version it superseded
    assert [m["id"] for m in mnemo.memories(project=project)] == [first["id"]]
    history = httpx.get(f"{mnemo.url}/mnemo/v1/memories/{first['id']}").json()["history"]
    assert [v["id"] for v in history] == [first["id"]] and history[0]["superseded_by"] is None
    # gone from recall
    fresh_upstream.requests.clear()
    api.chat.completions.create(model="m", messages=[{"role": "user", "content": "How do I install?"}])
    assert "yarn" not in (injected_block(fresh_upstream.chat_requests()[-1]) or "")
    # no key, no field of the raw store holds it
    client = redis.Redis.from_url(store.url)
    assert not client.exists(f"mnemo:mem:{current['id']}")
    assert all(
        client.hget(key, "superseded_by") != current["id"].encode()
        for key in client.scan_iter(match="mnemo:mem:*", count=1000)
    )
    # audited, without the text
    entries = httpx.get(f"{mnemo.url}/mnemo/v1/audit", params={"limit": 50}).json()["data"]
    entry = next(e for e in entries if e["memory_id"] == current["id"])
    assert entry["action"] == "delete" and entry["actor"] == "local"
    assert "yarn" not in str(entry)


def test_pause_stops_learning_disable_stops_both_resume_restores(
    mnemo: RunningMnemo, store: Store, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("controls")
    api = openai.OpenAI(
        base_url=mnemo.openai_base,
        api_key="k",
        max_retries=0,
        # a user of its own too: what other tests taught the shared server's default user is recalled
        default_headers={"X-Mnemo-Project": project, "X-Mnemo-User": unique("controls-user")},
    )

    def ask(text: str) -> Mapping[str, str]:
        fresh_upstream.requests.clear()
        return api.chat.completions.with_raw_response.create(
            model="m", messages=[{"role": "user", "content": text}]
        ).headers

    ask("This repo uses pnpm.")
    mnemo.wait_for_memories(1, project=project)
    control = f"{mnemo.url}/mnemo/v1/scopes/project/{project}"
    assert httpx.post(f"{control}/pause", json={}).json()["state"] == "paused"
    added = jobs_added(store.url)
    headers = ask("We use Sentry for error tracking.")
    assert headers["x-mnemo-recalled"] == "1" and "pnpm" in (
        injected_block(fresh_upstream.chat_requests()[-1]) or ""
    )
    # a learnable turn elsewhere, after it: once the queue has taken it and is done, anything the
    # paused turn had queued would be learned too
    assert chat(mnemo.url, "This repo uses Gradle.", unique("sentinel")).status_code == 200
    wait_drained(store.url, added + 1)
    assert len(mnemo.memories(project=project)) == 1  # paused: nothing learned

    assert httpx.post(f"{control}/disable", json={}).json()["state"] == "disabled"
    headers = ask("How do I install the deps?")
    assert headers["x-mnemo-status"] == "off" and headers["x-mnemo-recalled"] == "0"
    assert injected_block(fresh_upstream.chat_requests()[-1]) is None

    assert httpx.post(f"{control}/resume", json={}).json()["state"] == "active"
    ask("We use Vitest for unit tests.")
    mnemo.wait_for_memories(2, project=project)
    audit = httpx.get(f"{mnemo.url}/mnemo/v1/audit").json()["data"]
    assert [e["action"] for e in audit if e.get("level") == "project"][:3] == ["resume", "disabled", "paused"]
    assert httpx.post(f"{control}/explode", json={}).status_code == 404
