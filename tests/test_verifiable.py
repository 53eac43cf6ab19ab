"""Verifiable memory (issue 16): a content digest on every record, the audit log as a hash chain that
`mnemo audit verify` walks, and signed exports that `mnemo memories import --trusted-key` checks.

Against real parts: a store of this module's own (the chain is one stream per store, and these tests
tamper with it in the raw store with redis), Mnemo served on a port, the CLI as a separate process.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from core.model import Evidence, Kind, Memory, Source, Status, content_digest, from_hash, to_hash
from core.scope import Scope
from harness.helpers import export_line
from harness.upstream import UpstreamStub
from proxy.memory.audit_chain import AUDIT_HEAD
from proxy.memory.redis_state import AUDIT_STREAM
from proxy.memory.redis_store import RedisMemoryStore
from tests.conftest import NDJSON, RunningMnemo, mnemo_on_own_store

pytestmark = pytest.mark.integration

T0 = datetime(2026, 4, 2, 9, 30, 15, 123456, tzinfo=UTC)
Raw = list[tuple[str, dict[str, str]]]


@pytest.fixture(scope="module")
def served(
    upstream: UpstreamStub, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[RunningMnemo, str]]:
    """Mnemo on a store of this module's own, and that store's URL for raw access."""
    with mnemo_on_own_store(upstream.url, tmp_path_factory.mktemp("verifiable")) as (running, store):
        yield running, store.url


def cli(running: RunningMnemo, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MNEMO_URL": running.url, "COLUMNS": "200"}
    env.pop("MNEMO_TOKEN", None)
    return subprocess.run(
        [sys.executable, "-m", "proxy.cli", *args], capture_output=True, text=True, timeout=120, env=env
    )


def raw_audit(url: str) -> Raw:
    client = redis.Redis.from_url(url, decode_responses=True)
    try:
        entries: Any = client.xrange(AUDIT_STREAM)
    finally:
        client.close()
    return [(entry_id, dict(fields)) for entry_id, fields in entries]


def rewrite_audit(url: str, entries: Raw) -> None:
    """What an attacker with the raw store does: the stream written again, entry ids kept."""
    client = redis.Redis.from_url(url, decode_responses=True)
    try:
        with client.pipeline(transaction=True) as pipe:
            pipe.delete(AUDIT_STREAM)
            for entry_id, fields in entries:
                pipe.xadd(AUDIT_STREAM, fields, id=entry_id)  # type: ignore[arg-type]
            pipe.execute()
    finally:
        client.close()


def import_lines(running: RunningMnemo, lines: list[dict[str, Any]]) -> dict[str, Any]:
    body = "".join(json.dumps(line) + "\n" for line in lines)
    response = httpx.post(f"{running.url}/mnemo/v1/import", content=body, headers=NDJSON, timeout=60)
    assert response.status_code == 200, response.text
    report: dict[str, Any] = response.json()
    return report


def _memory(**changes: Any) -> Memory:
    base = Memory(
        id="01TESTDIGEST",
        kind=Kind.SEMANTIC,
        text="Project acme uses pnpm.",
        scope=Scope("local", project="acme"),
        evidence=Evidence.STATED,
        confidence=0.9,
        source=Source("user", "r1", 0, "ab" * 32, "we use pnpm"),
        observed_at=T0,
        key="package_manager",
        value="pnpm",
    )
    return base.with_changes(**changes)


# Record digests ------------------------------------------------------------------------------------


def test_a_record_digest_is_stable_and_covers_what_it_says() -> None:
    memory = _memory()
    digest = content_digest(memory)
    assert len(digest) == 64 and digest == content_digest(_memory())
    # written and read back (times as epoch floats in the hash): the same digest, stored with it
    row = {k: (v if isinstance(v, bytes) else str(v).encode()) for k, v in to_hash(memory, {}).items()}
    back = from_hash(row)
    assert back.digest == digest and content_digest(back) == digest
    # what the record says changes it; what its life changes in place does not
    for changed in ({"text": "Project acme uses npm."}, {"value": "npm"}, {"scope": Scope("local", "other")}):
        assert content_digest(_memory(**changed)) != digest, changed
    for lived in (
        {"status": Status.SUPERSEDED},
        {"seen_count": 4},
        {"confidence": 0.5},
        {"extra": {"pinned": True}},
    ):
        assert content_digest(_memory(**lived)) == digest, lived
    # a stale digest never travels with changed content
    assert back.with_changes(text="Project acme uses bun.").digest == ""
    assert back.with_changes(seen_count=9).digest == digest


def test_records_carry_their_digest_through_the_api_and_export(
    served: tuple[RunningMnemo, str], unique: Callable[[str], str]
) -> None:
    running, url = served
    project = unique("digest")
    lines = [export_line(project, "The staging database is Postgres 16.", T0)]
    assert import_lines(running, lines)["imported"] == 1
    shown = httpx.get(f"{running.url}/mnemo/v1/memories/{lines[0]['id']}").json()
    assert len(shown["digest"]) == 64
    client = redis.Redis.from_url(url, decode_responses=True)
    try:
        stored = client.hget(f"mnemo:mem:{lines[0]['id']}", "digest")
    finally:
        client.close()
    assert stored == shown["digest"]
    exported = httpx.get(f"{running.url}/mnemo/v1/export", params={"project": project}).text.splitlines()
    assert json.loads(exported[0])["digest"] == shown["digest"]
    # a line whose fields no longer match its digest is refused, and says so
    altered = {**json.loads(exported[0]), "id": None, "text": "The staging database is MySQL 8."}
    report = import_lines(running, [altered])
    assert report["rejected"] == 1 and report["rejections"][0]["reason"].startswith("digest: does not match")


# The audit hash chain ------------------------------------------------------------------------------


def _act(running: RunningMnemo, project: str) -> None:
    """Five audited actions: import, pin, pause, resume, delete."""
    line = export_line(project, f"The audit fact of {project}.", T0)
    import_lines(running, [line])
    base = f"{running.url}/mnemo/v1"
    assert httpx.patch(f"{base}/memories/{line['id']}", json={"pinned": True}).status_code == 200
    assert httpx.post(f"{base}/scopes/project/{project}/pause", json={}).status_code == 200
    assert httpx.post(f"{base}/scopes/project/{project}/resume", json={}).status_code == 200
    assert httpx.delete(f"{base}/memories/{line['id']}", timeout=30).status_code == 200


def test_an_altered_audit_entry_is_named(
    served: tuple[RunningMnemo, str], unique: Callable[[str], str]
) -> None:
    running, url = served
    _act(running, unique("audit"))
    intact = cli(running, "audit", "verify")
    assert intact.returncode == 0, intact.stdout + intact.stderr
    assert "audit chain intact" in intact.stdout
    entries = raw_audit(url)
    assert all({"seq", "prev", "digest"} <= set(fields) for _, fields in entries)
    assert [int(f["seq"]) for _, f in entries] == list(range(1, len(entries) + 1))

    victim = len(entries) - 3  # someone edits a field of an entry in the raw store: the actor
    tampered = [(i, dict(f)) for i, f in entries]
    tampered[victim][1]["actor"] = "nobody"
    rewrite_audit(url, tampered)
    try:
        broken = cli(running, "audit", "verify")
        assert broken.returncode == 1, broken.stdout + broken.stderr
        assert f"entry {entries[victim][0]}" in broken.stdout and "altered" in broken.stdout
        api = httpx.get(f"{running.url}/mnemo/v1/audit/verify").json()
        assert api["intact"] is False and api["broken"]["entry"] == entries[victim][0]
        assert api["entries"] == victim
    finally:
        rewrite_audit(url, entries)
    assert httpx.get(f"{running.url}/mnemo/v1/audit/verify").json()["intact"] is True


def test_a_removed_audit_entry_is_found(
    served: tuple[RunningMnemo, str], unique: Callable[[str], str]
) -> None:
    running, url = served
    _act(running, unique("removed"))
    entries = raw_audit(url)
    gone = len(entries) - 2
    rewrite_audit(url, entries[:gone] + entries[gone + 1 :])
    try:
        broken = cli(running, "audit", "verify", "--json")
        assert broken.returncode == 1, broken.stderr
        found = json.loads(broken.stdout)["broken"]
        assert found["entry"] == entries[gone + 1][0]  # the entry after the gap is named
        assert f"entry seq {gone + 1} was removed" in found["problem"]
        rewrite_audit(url, entries[:-1])  # the last one removed: the head knows more were written
        found = httpx.get(f"{running.url}/mnemo/v1/audit/verify").json()["broken"]
        assert found["entry"] == "(end)" and "the last were removed" in found["problem"]
    finally:
        rewrite_audit(url, entries)
    done = cli(running, "audit", "verify")
    assert done.returncode == 0 and f"{len(entries)} entries" in done.stdout


def test_concurrent_writers_chain_in_turn_and_trimming_keeps_an_anchor(tmp_path: Path) -> None:
    from tests.conftest import store_for_test

    async def run(url: str) -> tuple[Any, Any, Any]:
        # two clients, as two processes would be: they race through WATCH, not the in-process lock
        store = RedisMemoryStore(url, "none", 4, index_name="verifiable", prefix="mnemo:verifiable")
        other = RedisMemoryStore(url, "none", 4, index_name="verifiable", prefix="mnemo:verifiable")
        store.audit_maxlen = other.audit_maxlen = 20
        try:
            writers = [store if i % 2 else other for i in range(60)]
            await asyncio.gather(*(w.record_audit("o", f"a{i}", "export") for i, w in enumerate(writers)))
            await other.close()
            first = await store.verify_audit()
            client = store.client
            entries: Any = await client.xrange(AUDIT_STREAM)
            await client.xdel(AUDIT_STREAM, entries[0][0])  # the oldest kept entry, removed
            second = await store.verify_audit()
            head = await client.hgetall(AUDIT_HEAD)
        finally:
            await store.close()
        return first, second, head

    with store_for_test(tmp_path / "store") as store:
        first, second, head = asyncio.run(run(store.url))
    assert first.broken is None and first.last_seq == 60  # 60 writers, none chained onto the same entry
    assert 20 <= first.entries <= 21 and first.first_seq == 61 - first.entries
    assert int(head[b"anchor_seq"]) == first.first_seq - 1
    assert second.broken is not None and "was removed" in second.broken["problem"]


# Signed exports ------------------------------------------------------------------------------------


def _signed_export(running: RunningMnemo, project: str, tmp_path: Path) -> tuple[Path, str]:
    lines = [
        export_line(project, f"Service {i} listens on port {8000 + i}.", T0 + timedelta(minutes=i))
        for i in range(4)
    ]
    import_lines(running, lines)
    out = tmp_path / "signed.jsonl"
    done = cli(running, "memories", "export", "--project", project, "--sign", "-o", str(out))
    assert done.returncode == 0, done.stderr
    key = cli(running, "audit", "key", "--data-dir", str(running.settings.data_dir))
    assert key.returncode == 0 and key.stdout.startswith("ed25519:")
    assert f"signed by {key.stdout.strip()}" in done.stdout
    return out, key.stdout.strip()


def test_a_signed_export_verifies_and_imports(
    served: tuple[RunningMnemo, str], unique: Callable[[str], str], tmp_path: Path
) -> None:
    running, _ = served
    out, key = _signed_export(running, unique("signed"), tmp_path)
    written = out.read_bytes().splitlines()
    assert json.loads(written[-1])["mnemo_manifest"]["count"] == 4 and len(written) == 6
    assert (running.settings.data_dir / "export-signing.key").stat().st_mode & 0o777 == 0o600
    imported = cli(running, "memories", "import", "--trusted-key", key, str(out), "--json")
    assert imported.returncode == 0, imported.stderr
    assert "signature verified: 4 records" in imported.stderr
    report = json.loads(imported.stdout)
    assert (report["merged"], report["rejected"]) == (4, 0)  # the trailer is no record


def test_a_tampered_line_a_wrong_key_and_an_unsigned_file_are_refused(
    served: tuple[RunningMnemo, str], unique: Callable[[str], str], tmp_path: Path
) -> None:
    running, _ = served
    out, key = _signed_export(running, unique("tamper"), tmp_path)
    lines = out.read_text().splitlines(keepends=True)
    record = json.loads(lines[2])
    lines[2] = json.dumps({**record, "confidence": 1.0}) + "\n"  # one field of line 3
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("".join(lines))
    refused = cli(running, "memories", "import", "--trusted-key", key, str(tampered))
    assert refused.returncode == 7 and "line 3: altered" in refused.stderr, refused.stderr

    other = (
        Ed25519PrivateKey.generate()
        .public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    (tmp_path / "other.pem").write_bytes(other)
    wrong = cli(running, "memories", "import", "--trusted-key", str(tmp_path / "other.pem"), str(out))
    assert wrong.returncode == 7 and "signed by another key" in wrong.stderr, wrong.stderr

    unsigned = tmp_path / "unsigned.jsonl"
    unsigned.write_text("".join(lines[:4]))
    bare = cli(running, "memories", "import", "--trusted-key", key, str(unsigned))
    assert bare.returncode == 7 and "not signed" in bare.stderr, bare.stderr


def test_an_operator_key_signs_here_and_a_pem_public_key_checks_it(
    served: tuple[RunningMnemo, str], unique: Callable[[str], str], tmp_path: Path
) -> None:
    running, _ = served
    project = unique("operator")
    import_lines(running, [export_line(project, "Deploys go out on Tuesdays.", T0)])
    private = Ed25519PrivateKey.generate()
    (tmp_path / "op.pem").write_bytes(
        private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    (tmp_path / "op.pub").write_bytes(
        private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    out = tmp_path / "op.jsonl"
    done = cli(
        running,
        "memories",
        "export",
        "--project",
        project,
        "--signing-key",
        str(tmp_path / "op.pem"),
        "-o",
        str(out),
    )
    assert done.returncode == 0 and "exported 1 memories" in done.stdout, done.stderr
    checked = cli(
        running, "memories", "import", "--trusted-key", str(tmp_path / "op.pub"), str(out), "--dry-run"
    )
    assert checked.returncode == 0 and "signature verified: 1 records" in checked.stderr, checked.stderr
    # the API signs too, with the server's key, named in a header
    response = httpx.get(f"{running.url}/mnemo/v1/export", params={"project": project, "sign": "true"})
    assert response.headers["x-mnemo-export-signed-by"].startswith("ed25519:")
    assert json.loads(response.text.splitlines()[-1])["mnemo_manifest"]["count"] == 1
