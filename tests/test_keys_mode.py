"""Keys mode: no key, no service; an org never receives another org's memory, whatever the scope
values say; principals read and write only the levels and projects they are given."""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.scope import Scope
from harness.helpers import injected_block, jobs_added, memory_record, wait_drained
from harness.upstream import UpstreamStub
from proxy.memory.embeddings import MiniLMOnnxEmbedder
from proxy.memory.redis_store import RedisMemoryStore
from tests.conftest import RunningMnemo, free_port, mnemo_on_own_store
from tests.test_memories_cli import mnemo_cli

pytestmark = pytest.mark.integration

ACME_KEY, BETA_KEY, LIMITED_KEY, OPS_KEY = (
    "acme-" + uuid.uuid4().hex,
    "beta-" + uuid.uuid4().hex,
    "ltd-" + uuid.uuid4().hex,
    "ops-" + uuid.uuid4().hex,
)


def sha(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


POLICY = f"""name: two-orgs
version: 1
mode: keys
principals:
  - {{name: acme-dev, key_sha256: {sha(ACME_KEY)}, org: acme, default_user: dev, users: ["*"]}}
  - {{name: beta-dev, key_sha256: {sha(BETA_KEY)}, org: beta, default_user: dev, users: ["*"]}}
  - name: beta-ci
    key_sha256: {sha(LIMITED_KEY)}
    org: beta
    default_user: ci
    read: [org, project]
    write: [project]
    projects: [beta-web]
  - {{name: operator, key_sha256: {sha(OPS_KEY)}, org: ops, default_user: ops, admin: true}}
"""
MARK = "zebracorn"  # a word only acme's records carry


@pytest.fixture(scope="module")
def keyed(
    upstream: UpstreamStub, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[RunningMnemo, str]]:
    with mnemo_on_own_store(upstream.url, tmp_path_factory.mktemp("keys"), POLICY) as (running, store):
        yield running, store.url


def chat(
    mnemo: RunningMnemo, key: str | None, content: str, path: str = "/v1", **headers: str
) -> httpx.Response:
    if key:
        headers["x-mnemo-key"] = key
    return httpx.post(
        f"{mnemo.url}{path}/chat/completions",
        headers=headers,
        timeout=30,
        json={"model": "m", "messages": [{"role": "user", "content": content}]},
    )


def test_no_key_or_an_unknown_key_is_401_in_openai_shape_and_never_relayed(
    keyed: tuple[RunningMnemo, str], fresh_upstream: UpstreamStub
) -> None:
    mnemo, _ = keyed
    for key in (None, "not-a-key"):
        response = chat(mnemo, key, "hello")
        assert response.status_code == 401
        assert response.json()["error"]["type"] == "authentication_error"
    assert httpx.get(f"{mnemo.url}/v1/models").status_code == 401
    assert fresh_upstream.requests == []
    assert chat(mnemo, ACME_KEY, "hello").status_code == 200
    assert "x-mnemo-key" not in fresh_upstream.requests[-1].headers


def _seed_acme(store_url: str, scopes: list[Scope]) -> None:
    async def run() -> None:
        embedder = MiniLMOnnxEmbedder()
        store = RedisMemoryStore(store_url, embedder.model_id, embedder.dims, timeout_s=5)
        text = f"Project notes {MARK}: deploy with care."
        # the text's own vector: recall gives a record only when a request is about it
        (vector,) = embedder.embed([text])
        for scope in scopes:
            await store.put(memory_record(scope, text), vector)
        await store.close()

    asyncio.run(run())


def project_url(mnemo: RunningMnemo, project: str) -> str:
    """The path prefix carries the project, unless it holds a "/", which no path segment can carry
    (percent-encoded or not): such a project goes in the header instead."""
    if "/" in project:
        return f"{mnemo.url}/v1/chat/completions"
    return f"{mnemo.url}/p/{quote(project, safe='')}/v1/chat/completions"


def project_header(project: str) -> dict[str, str]:
    return {"x-mnemo-project": project} if "/" in project else {}


VALUE = st.one_of(
    st.sampled_from(
        [
            "{",
            "}",
            "|",
            "@",
            "*",
            "-",
            ":",
            '"',
            "'",
            "(",
            ")",
            "\\\\",
            ",",
            "a b",
            "東京",
            "x" * 300,
            "acme",
            "beta",
            "none",
            "*}|{@",
            "web",
        ]
    ),
    st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=20),
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    project=VALUE,
    user=VALUE,
    session=st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=30),
)
def test_beta_never_receives_acme_memory(
    keyed: tuple[RunningMnemo, str], upstream: UpstreamStub, project: str, user: str, session: str
) -> None:
    mnemo, store_url = keyed
    # acme holds records in exactly the scopes beta is about to ask for, and org-wide
    _seed_acme(
        store_url,
        [
            Scope("acme"),
            Scope("acme", project=project),
            Scope("acme", user=user),
            Scope("acme", project=project, user=user, session=session),
        ],
    )
    question = f"What are the project notes about {MARK} and deploys?"
    upstream.requests.clear()
    for key in (BETA_KEY,):
        # project through the path, user through the body, session through the header
        response = httpx.post(
            project_url(mnemo, project),
            headers={"x-mnemo-key": key, "x-mnemo-session": session, **project_header(project)},
            timeout=30,
            json={"model": "m", "user": user, "messages": [{"role": "user", "content": question}]},
        )
        assert response.status_code == 200, response.text
        assert MARK not in (injected_block(upstream.chat_requests()[-1]) or "")
    # the same question from acme does get them: the test can fail
    response = httpx.post(
        project_url(mnemo, project),
        headers={"x-mnemo-key": ACME_KEY, "x-mnemo-session": session, **project_header(project)},
        timeout=30,
        json={"model": "m", "user": user, "messages": [{"role": "user", "content": question}]},
    )
    assert MARK in (injected_block(upstream.chat_requests()[-1]) or "")
    assert int(response.headers["x-mnemo-recalled"]) >= 1


def test_listing_shows_only_the_callers_org(keyed: tuple[RunningMnemo, str]) -> None:
    mnemo, store_url = keyed
    _seed_acme(store_url, [Scope("acme", project="listed")])
    acme = httpx.get(f"{mnemo.url}/mnemo/v1/memories", headers={"x-mnemo-key": ACME_KEY}).json()["data"]
    beta = httpx.get(f"{mnemo.url}/mnemo/v1/memories", headers={"x-mnemo-key": BETA_KEY}).json()["data"]
    assert any(m["scope"]["project"] == "listed" for m in acme)
    assert all(m["scope"]["org"] == "beta" for m in beta)
    record = next(m for m in acme if m["scope"]["project"] == "listed")
    assert (
        httpx.get(
            f"{mnemo.url}/mnemo/v1/memories/{record['id']}", headers={"x-mnemo-key": BETA_KEY}
        ).status_code
        == 404
    )


def test_a_limited_principal_keeps_to_its_projects_and_levels(
    keyed: tuple[RunningMnemo, str], fresh_upstream: UpstreamStub
) -> None:
    mnemo, store_url = keyed
    forbidden = chat(mnemo, LIMITED_KEY, "hi", path="/p/beta-api/v1")
    assert forbidden.status_code == 403 and forbidden.json()["error"]["param"] == "project"
    # beta-dev stores a user preference; beta-ci (reads org and project only) must not see it
    chat(mnemo, BETA_KEY, "I prefer concise bullet points.", path="/p/beta-web/v1", **{"x-mnemo-user": "ci"})
    deadline = datetime.now(UTC).timestamp() + 20
    while datetime.now(UTC).timestamp() < deadline:
        listed = httpx.get(
            f"{mnemo.url}/mnemo/v1/memories", params={"user": "ci"}, headers={"x-mnemo-key": BETA_KEY}
        ).json()["data"]
        if listed:
            break
    assert listed
    fresh_upstream.requests.clear()
    chat(mnemo, LIMITED_KEY, "How should answers look?", path="/p/beta-web/v1")
    assert "concise bullet points" not in (injected_block(fresh_upstream.chat_requests()[-1]) or "")
    # and it may not write a user-level fact
    added = jobs_added(store_url)
    chat(mnemo, LIMITED_KEY, "My name is Robo.", path="/p/beta-web/v1")
    wait_drained(store_url, added + 1)  # its job was learned from: whatever it could write is written
    names = httpx.get(f"{mnemo.url}/mnemo/v1/memories", headers={"x-mnemo-key": BETA_KEY}).json()["data"]
    assert not any(m["key"] == "name" for m in names)


def test_management_keeps_each_principal_to_its_own_and_the_admin_to_all(
    keyed: tuple[RunningMnemo, str],
) -> None:
    mnemo, store_url = keyed
    _seed_acme(store_url, [Scope("acme", project="managed"), Scope("acme")])
    url = f"{mnemo.url}/mnemo/v1"

    def call(method: str, path: str, key: str, **kwargs: Any) -> httpx.Response:
        headers = {"x-mnemo-key": key, "content-type": "application/x-ndjson"}
        return httpx.request(method, f"{url}{path}", headers=headers, timeout=30, **kwargs)

    assert call("GET", "/memories", BETA_KEY, params={"org": "acme"}).status_code == 403
    assert call("GET", "/export", BETA_KEY, params={"org": "acme"}).status_code == 403
    assert MARK.encode() not in call("GET", "/export", BETA_KEY).content
    assert httpx.get(f"{url}/memories").status_code == 401
    # the operator sees one org when it asks
    acme_only = call("GET", "/memories", OPS_KEY, params={"org": "acme", "limit": 1000}).json()["data"]
    assert acme_only and {m["scope"]["org"] for m in acme_only} == {"acme"}
    org_wide = next(m for m in acme_only if m["scope"]["project"] is None)
    assert call("DELETE", f"/memories/{org_wide['id']}", BETA_KEY).status_code == 404

    # beta-ci reads org and project records but writes project ones only, in beta-web only
    imported = call(
        "POST",
        "/import",
        LIMITED_KEY,
        content="\n".join(
            json.dumps({"kind": "semantic", "text": text, "scope": {"org": "acme", **scope}})
            for text, scope in [
                ("Beta web deploys from main.", {"project": "beta-web"}),
                ("Beta api deploys from main.", {"project": "beta-api"}),
                ("Ci likes short answers.", {"user": "ci"}),
            ]
        ),
    ).json()
    assert (imported["imported"], imported["rejected"]) == (1, 2)
    assert all(r["reason"].startswith("forbidden") for r in imported["rejections"])
    (landed,) = call("GET", "/memories", BETA_KEY, params={"contains": "Beta web deploys"}).json()["data"]
    assert landed["scope"]["org"] == "beta" and landed["evidence"] == "imported"  # its own org, always
    assert call("GET", "/memories", LIMITED_KEY, params={"project": "beta-api"}).status_code == 403
    beta_org = call(
        "POST",
        "/import",
        BETA_KEY,
        content=json.dumps({"kind": "semantic", "text": "Beta ships on Fridays.", "scope": {"org": "beta"}}),
    )
    assert beta_org.json()["imported"] == 1
    org_fact = next(
        m
        for m in call("GET", "/memories", LIMITED_KEY, params={"limit": 1000}).json()["data"]
        if m["text"] == "Beta ships on Fridays."
    )
    # it reads the org-wide fact but may not delete it, not even by deleting the whole org:
    # that deletes only what it may change (the beta-web record it imported)
    assert call("DELETE", f"/memories/{org_fact['id']}", LIMITED_KEY).status_code == 404
    assert call("DELETE", "/scopes/org/beta", LIMITED_KEY).json()["ids"] == [landed["id"]]
    assert call("GET", f"/memories/{org_fact['id']}", LIMITED_KEY).status_code == 200
    assert call("DELETE", "/scopes/org/acme", BETA_KEY).status_code == 403
    # the operator sees every org, and deletes acme's managed project; beta's records stay
    everything = call("GET", "/memories", OPS_KEY, params={"limit": 1000}).json()["data"]
    assert {"acme", "beta"} <= {m["scope"]["org"] for m in everything}
    receipt = call("DELETE", "/scopes/project/managed", OPS_KEY, params={"org": "acme"}).json()
    assert receipt["deleted"] >= 1
    assert call("GET", "/memories", ACME_KEY, params={"project": "managed"}).json()["total"] == 0
    audit = call("GET", "/audit", OPS_KEY, params={"org": "acme"}).json()["data"]
    assert {e["memory_id"] for e in audit if e["action"] == "delete"} >= set(receipt["ids"])
    assert call("GET", "/audit", BETA_KEY, params={"org": "acme"}).status_code == 403


def test_the_cli_takes_its_key_from_the_environment(keyed: tuple[RunningMnemo, str]) -> None:
    mnemo, _ = keyed
    assert mnemo_cli(mnemo, "list").returncode == 4  # no key: 401
    assert mnemo_cli(mnemo, "list", "--org", "acme", token=BETA_KEY).returncode == 4  # another org: 403
    listed = mnemo_cli(mnemo, "list", "--json", token=OPS_KEY)
    assert listed.returncode == 0 and "data" in json.loads(listed.stdout)


def test_keys_policy_allows_a_public_address(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "proxy.cli",
            "serve",
            "--host",
            "0.0.0.0",
            "--port",
            str(port),
            "--policy",
            str(policy),
            "--data-dir",
            str(tmp_path / "d"),
            "--log-level",
            "warning",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        assert httpx.post(f"http://127.0.0.1:{port}/v1/chat/completions", json={}).status_code == 401
    finally:
        process.terminate()
        process.wait(timeout=30)
