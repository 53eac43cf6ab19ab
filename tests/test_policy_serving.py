"""Policies obeyed while serving: retention removes records from recall, listing and the raw
index; a bad edit is refused with the old policy kept; secrets never reach the store."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

from harness.helpers import chat, injected_block, jobs_added, wait_drained, wait_until
from harness.processes import Store
from harness.upstream import UpstreamStub
from policies.secrets import secret_matcher
from proxy.settings import Settings
from tests.conftest import RunningMnemo, serve_mnemo, store_for_test

pytestmark = [pytest.mark.integration, pytest.mark.store_contract]

POLICY = """name: short
version: 1
retention:
  ttl:
    - {scope: project, ttl: 3s}
recall:
  max_memories: 5
"""


@pytest.fixture
def policy_file(tmp_path: Path) -> Path:
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY)
    return path


@pytest.fixture
def own_store(tmp_path: Path) -> Iterator[Store]:
    # Its own store: a worker of the session's server (default policy) must not take these jobs.
    with store_for_test(tmp_path / "store") as embedded:
        yield embedded


@pytest.fixture
def governed(
    own_store: Store, upstream: UpstreamStub, policy_file: Path, tmp_path: Path
) -> Iterator[RunningMnemo]:
    store = own_store
    running = serve_mnemo(
        Settings(
            redis_url=store.url, upstream_url=upstream.url, data_dir=tmp_path / "d", policy_file=policy_file
        )
    )
    yield running
    running.stop()


def say(mnemo: RunningMnemo, project: str, text: str) -> None:
    assert chat(mnemo.url, text, project).status_code == 200


def raw_values(store: Store) -> list[bytes]:
    """Every value of every key in the raw store: hashes, streams, sets, strings."""
    client = redis.Redis.from_url(store.url)
    values: list[Any] = []
    for key in client.scan_iter(count=1000):
        kind = client.type(key)
        if kind == b"hash":
            values += list(client.hgetall(key).values())
        elif kind == b"stream":
            for _, fields in client.xrange(key) or []:
                values += list((fields or {}).values())
        elif kind == b"set":
            values += list(client.smembers(key))
        elif kind == b"string":
            values.append(client.get(key) or b"")
    return [v if isinstance(v, bytes) else str(v).encode() for v in values]


def test_a_short_ttl_removes_a_record_from_recall_listing_and_index(
    governed: RunningMnemo,
    own_store: Store,
    fresh_upstream: UpstreamStub,
    unique: Callable[[str], str],
) -> None:
    project = unique("ttl")
    say(governed, project, "This repo uses bun.")
    (record,) = governed.wait_for_memories(1, project=project)
    assert record["expires_at"] is not None and record["policy"].startswith("short@")
    fresh_upstream.requests.clear()
    say(governed, project, "How do I install dependencies?")
    assert "bun" in (injected_block(fresh_upstream.chat_requests()[-1]) or "")
    # the policy's TTL is a few seconds: wait for the record to expire, not for a fixed time
    wait_until(lambda: governed.memories(project=project) == [], "the record expired", timeout_s=30)
    fresh_upstream.requests.clear()
    say(governed, project, "How do I install dependencies?")
    assert "bun" not in (injected_block(fresh_upstream.chat_requests()[-1]) or "")
    client = redis.Redis.from_url(own_store.url)
    assert not client.exists(f"mnemo:mem:{record['id']}")
    assert client.ft("mnemo_memories").search(f"@fingerprint:{{{record['fingerprint']}}}").total == 0


def test_a_bad_edit_while_serving_is_refused_and_the_old_policy_stays(
    governed: RunningMnemo, policy_file: Path, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    before = httpx.get(f"{governed.url}/readyz").json()["checks"]["policy"]
    policy_file.write_text(POLICY.replace("max_memories: 5", "max_memories: plenty"))
    ready = wait_until(
        lambda: (r := httpx.get(f"{governed.url}/readyz").json())["checks"].get("policy_refused") and r,
        "the bad edit seen and refused",
    )
    assert ready["checks"]["policy"] == before
    assert "recall.max_memories: expected a whole number" in ready["checks"]["policy_refused"]
    project = unique("stillold")
    say(governed, project, "We use Vitest for unit tests.")
    (record,) = governed.wait_for_memories(1, project=project)
    assert record["policy"] == before
    policy_file.write_text(POLICY.replace("name: short", "name: fixed"))
    ready = wait_until(
        lambda: (
            (r := httpx.get(f"{governed.url}/readyz").json())["checks"]["policy"].startswith("fixed@") and r
        ),
        "the good edit in force",
    )
    assert ready["checks"]["policy"].startswith("fixed@") and "policy_refused" not in ready["checks"]


@pytest.mark.parametrize(
    ("secret", "benign", "value"),
    [
        ("My OpenAI key is sk-proj-Zx81kQ2mTb7uVw0aLp3RcY9s, keep it safe.", "This repo uses pnpm.", "pnpm"),
        (
            "the token is ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "We use Sentry for error tracking.",
            "Sentry",
        ),
        (
            "Email me at dana.smith@fastmail.com about it.",
            "I prefer concise bullet points.",
            "concise bullet points",
        ),
        ("Call me on +1 415 555 0100 if it breaks.", "We use Postgres for everything.", "postgres"),
        ("Connect with postgres://admin:hunter22@db.internal:5432/app", "We're on Python 3.12.", "3.12"),
        (
            "My card is 4111 1111 1111 1111.",
            "Never commit directly to main.",
            "Never commit directly to main",
        ),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----",
            "The test command is make test.",
            "make test",
        ),
        ("The password is correct-horse-battery, by the way.", "We use yarn.", "yarn"),
    ],
)
def test_secrets_are_never_stored_and_the_benign_part_is_learned(
    mnemo: RunningMnemo,
    store: Store,
    fresh_upstream: UpstreamStub,
    unique: Callable[[str], str],
    secret: str,
    benign: str,
    value: str,
) -> None:
    project = unique("secret")
    added = jobs_added(store.url)
    say(mnemo, project, f"{secret} {benign}")
    # the session's store may hold other user-scope records already: wait for this value itself
    where = {"user": "default"} if "prefer" in benign else {"project": project}
    wait_until(
        lambda: any((m["value"] or "").lower() == value.lower() for m in mnemo.memories(**where)),
        f"{value} learned",
    )
    wait_drained(store.url, added + 1)  # the job is done, its text gone from the queue
    # what the scanner cuts of the secret sentence is what must be found nowhere (each case has one)
    sensitive = [secret[start:end] for start, end in secret_matcher().spans(secret)]
    assert sensitive, secret
    values = b"\n".join(raw_values(store))
    for part in sensitive:
        assert part.encode() not in values, part


def test_doctor_reports_a_ready_server_and_a_refused_policy_file(mnemo: RunningMnemo, tmp_path: Path) -> None:
    ok = subprocess.run(
        [sys.executable, "-m", "proxy.cli", "doctor", "--url", mnemo.url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ok.returncode == 0 and "ready" in ok.stdout and "store: ok" in ok.stdout
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nversion: 1\nrecall: {max_tokens: many}\n")
    refused = subprocess.run(
        [sys.executable, "-m", "proxy.cli", "doctor", "--url", mnemo.url, "--policy", str(bad)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 1 and "refused" in refused.stdout and "bad.yaml:3" in refused.stdout
