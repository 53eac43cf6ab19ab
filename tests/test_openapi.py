"""The OpenAPI document of the management API and its offline page, against a served Mnemo.

The document must be valid OpenAPI, describe every management route with a typed body for each
answer (errors included), and the bodies the server really sends must validate against it, with no
field the schema does not declare: that is what a generated client relies on. The page must render
every operation and schema without loading anything from the network.
"""

from __future__ import annotations

import copy
import html
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from typing import Any

import httpx
import msgspec
import pytest
import redis
import yaml
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate as validate_openapi

from core.model import Evidence, Kind, Memory, Source, Status, new_id
from core.scope import Scope
from harness.helpers import chat, export_line, wait_until
from proxy.forget import DeletionReceipt
from proxy.portability import ImportReport
from proxy.routes import schemas
from tests.conftest import NDJSON, RunningMnemo

pytestmark = pytest.mark.integration

SCHEMA_URL = "/mnemo/v1/schema"
JSON_URL = "/mnemo/v1/schema/openapi.json"
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)

# Every management route (docs/design.md §4) and the health routes, as the document must list them.
OPERATIONS = {
    ("get", "/mnemo/v1/memories"): "listMemories",
    ("delete", "/mnemo/v1/memories"): "deleteMemories",
    ("get", "/mnemo/v1/memories/search"): "searchMemories",
    ("get", "/mnemo/v1/memories/{memory_id}"): "getMemory",
    ("patch", "/mnemo/v1/memories/{memory_id}"): "patchMemory",
    ("delete", "/mnemo/v1/memories/{memory_id}"): "deleteMemory",
    ("delete", "/mnemo/v1/scopes/{level}/{value}"): "deleteScope",
    ("post", "/mnemo/v1/scopes/{level}/{value}/{action}"): "controlScope",
    ("get", "/mnemo/v1/export"): "exportMemories",
    ("post", "/mnemo/v1/import"): "importMemories",
    ("get", "/mnemo/v1/audit"): "listAudit",
    ("get", "/mnemo/v1/requests"): "listRequests",
    ("get", "/mnemo/v1/requests/{request_id}"): "getRequest",
    ("get", "/mnemo/v1/audit/verify"): "verifyAudit",
    ("get", "/healthz"): "healthz",
    ("get", "/readyz"): "readyz",
    ("get", "/metrics"): "metrics",
}
NOT_JSON = {("get", "/mnemo/v1/export"), ("get", "/metrics")}  # JSON Lines, Prometheus text


@pytest.fixture(scope="module")
def document(mnemo: RunningMnemo) -> dict[str, Any]:
    response = httpx.get(f"{mnemo.url}{JSON_URL}", timeout=30)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/vnd.oai.openapi+json")
    doc: dict[str, Any] = response.json()
    return doc


def resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].removeprefix("#/components/schemas/")
        schema = document["components"]["schemas"][name]
    return schema


def closed(document: dict[str, Any]) -> dict[str, Any]:
    """The document's schemas with every object closed: a field the server sends and the schema does
    not declare fails validation, as it would surprise a generated client."""
    components: dict[str, Any] = copy.deepcopy(document["components"])
    for schema in components["schemas"].values():
        if schema.get("properties") and "additionalProperties" not in schema:
            schema["additionalProperties"] = False
    return components


class Contract:
    """Checks real responses against what the document declares for their route and status."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.components = closed(document)
        self.checked: set[tuple[str, str, int]] = set()

    def schema_for(self, method: str, template: str, status: int, media: str) -> dict[str, Any]:
        responses = self.document["paths"][template][method]["responses"]
        assert str(status) in responses, f"{method.upper()} {template} does not declare {status}"
        content = responses[str(status)]["content"]
        assert media in content, f"{method.upper()} {template} {status}: {media} not in {list(content)}"
        schema: dict[str, Any] = content[media]["schema"]
        return schema

    def validate(self, instance: Any, schema: dict[str, Any]) -> None:
        validator = OAS31Validator({**schema, "components": self.components})
        problems = [
            f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(instance)
        ]
        assert not problems, "\n".join(problems)

    def check(self, method: str, template: str, response: httpx.Response, status: int = 200) -> Any:
        assert response.status_code == status, response.text
        media = response.headers["content-type"].split(";")[0].strip()
        body = response.json()
        self.validate(body, self.schema_for(method, template, status, media))
        self.checked.add((method, template, status))
        return body


def test_the_document_is_valid_openapi_and_types_every_answer(document: dict[str, Any]) -> None:
    validate_openapi(document)
    assert document["openapi"].startswith("3.")
    listed = {
        (method, path): op.get("operationId")
        for path, item in document["paths"].items()
        for method, op in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    }
    assert listed == OPERATIONS
    # the proxy routes carry the providers' own bodies: not described here
    assert not [path for path in document["paths"] if path.startswith(("/v1", "/p/"))]

    components = document["components"]["schemas"]
    for name in ("MemoryRecord", "MemoryPage", "SearchResults", "Deletion", "ImportResult", "AuditEntry"):
        assert components[name]["properties"], name
    record = components["MemoryRecord"]
    # the record fields of docs/design.md §2, every one always present (null when unset)
    design_fields = {
        "id", "kind", "text", "subject", "key", "value", "scope", "evidence", "confidence", "source",
        "observed_at", "valid_from", "valid_to", "status", "supersedes", "superseded_by", "version",
        "expires_at", "policy", "extractor",
    }  # fmt: skip
    assert design_fields <= set(record["required"])
    assert resolve(document, record["properties"]["kind"])["enum"] == [k.value for k in Kind]
    assert record["properties"]["observed_at"]["format"] == "date-time"

    for (method, path), _ in OPERATIONS.items():
        responses = document["paths"][path][method]["responses"]
        ok = responses["200"]["content"]
        if (method, path) in NOT_JSON:
            assert "application/json" not in ok
            continue
        body = resolve(document, ok["application/json"]["schema"])
        assert body["type"] == "object" and body["properties"], (method, path)
        for status, response in responses.items():
            if status.startswith(("4", "5")) and path.startswith("/mnemo/"):
                schema = response["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/ErrorBody"}, (method, path, status)
        if path.startswith("/mnemo/"):
            assert {"400", "401", "403", "503"} <= set(responses), (method, path)
    # the export's lines are typed too, and the import says what body it takes
    export = document["paths"]["/mnemo/v1/export"]["get"]["responses"]["200"]["content"]
    assert resolve(document, export["application/x-ndjson"]["schema"])["properties"]["embedding"]
    assert "application/x-ndjson" in document["paths"]["/mnemo/v1/import"]["post"]["requestBody"]["content"]
    schemes = document["components"]["securitySchemes"]
    assert schemes["MnemoKey"] == {
        "type": "apiKey",
        "name": "X-Mnemo-Key",
        "in": "header",
        "description": schemes["MnemoKey"]["description"],
    }


def test_the_yaml_is_the_same_document(mnemo: RunningMnemo, document: dict[str, Any]) -> None:
    response = httpx.get(f"{mnemo.url}{SCHEMA_URL}/openapi.yaml", timeout=30)
    assert response.status_code == 200
    assert yaml.safe_load(response.text)["paths"].keys() == document["paths"].keys()


class _Page(HTMLParser):
    """What a browser would fetch or follow from the page, and the ids it could jump to."""

    def __init__(self) -> None:
        super().__init__()
        self.references: list[tuple[str, str, str]] = []
        self.ids: set[str] = set()
        self.tags: set[str] = set()
        self.csp: str | None = None
        self.styles: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        values = {name: value or "" for name, value in attrs}
        if "id" in values:
            self.ids.add(values["id"])
        for name in ("src", "href", "action", "srcset", "poster", "data", "formaction", "background"):
            if name in values:
                self.references.append((tag, name, values[name]))
        if tag == "meta" and values.get("http-equiv", "").lower() == "content-security-policy":
            self.csp = values.get("content")
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.styles.append(data)


def test_the_schema_page_works_offline_and_shows_every_operation(
    mnemo: RunningMnemo, document: dict[str, Any]
) -> None:
    response = httpx.get(f"{mnemo.url}{SCHEMA_URL}", timeout=30)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    page = _Page()
    page.feed(response.text)

    # nothing from another origin: no script at all, no external style, font, image or link
    assert "script" not in page.tags and "iframe" not in page.tags
    for tag, name, value in page.references:
        target = value.strip().lower()
        assert not target.startswith(("http:", "https:", "//", "javascript:")), (tag, name, value)
        assert tag != "link", (tag, name, value)  # no stylesheet, no favicon from a CDN
    assert not any("url(" in style or "@import" in style for style in page.styles)
    # and the browser is told not to load anything, should the page ever try
    assert page.csp is not None and "default-src 'none'" in page.csp

    # every operation is on the page, with its path, summary and responses; every in-page link lands
    for (method, path), operation_id in OPERATIONS.items():
        assert f"op-{operation_id}" in page.ids, operation_id
        summary = document["paths"][path][method]["summary"]
        assert f"<code>{path}</code>" in response.text and html.escape(summary) in response.text
    for name in document["components"]["schemas"]:
        assert f"schema-{name}" in page.ids, name
    internal = [value[1:] for _, name, value in page.references if value.startswith("#")]
    assert internal and not [target for target in internal if target not in page.ids]
    # the one link out of the page is to the JSON, on this origin
    (json_href,) = [value for _, _, value in page.references if not value.startswith("#")]
    assert json_href == JSON_URL and httpx.get(f"{mnemo.url}{json_href}").json() == document


@pytest.fixture
def contract(document: dict[str, Any]) -> Iterator[Contract]:
    yield Contract(document)


def test_what_the_server_sends_validates_against_the_document(
    mnemo: RunningMnemo, contract: Contract, unique: Callable[[str], str]
) -> None:
    url = f"{mnemo.url}/mnemo/v1"
    project = unique("openapi")
    slot = {"subject": "repo", "key": "package_manager"}
    records = [
        export_line(project, "This repo uses pnpm for packages.", T0, value="pnpm", **slot),
        export_line(project, "The staging database is Postgres 16.", T0 + timedelta(minutes=1)),
        export_line(project, "Deploys go out on Tuesdays.", T0 + timedelta(minutes=2), kind="episodic"),
        export_line(project, "Releases are tagged by the release bot.", T0 + timedelta(minutes=3)),
    ]
    body = "".join(json.dumps(r) + "\n" for r in records) + "{not json\n"

    dry = httpx.post(f"{url}/import", content=body, headers=NDJSON, params={"dry_run": "true"}, timeout=60)
    assert contract.check("post", "/mnemo/v1/import", dry)["dry_run"] is True
    report = contract.check(
        "post", "/mnemo/v1/import", httpx.post(f"{url}/import", content=body, headers=NDJSON, timeout=60)
    )
    assert (report["imported"], report["rejected"]) == (4, 1) and report["rejections"][0]["line"] == 5

    page = contract.check(
        "get", "/mnemo/v1/memories", httpx.get(f"{url}/memories", params={"project": project, "limit": 3})
    )
    assert page["total"] == 4 and len(page["data"]) == 3 and page["next_cursor"]
    last = contract.check(
        "get",
        "/mnemo/v1/memories",
        httpx.get(f"{url}/memories", params={"project": project, "cursor": page["next_cursor"]}),
    )
    assert last["next_cursor"] is None

    found = contract.check(
        "get",
        "/mnemo/v1/memories/search",
        httpx.get(f"{url}/memories/search", params={"q": "which package manager?", "project": project}),
    )
    assert found["data"][0]["memory"]["value"] == "pnpm" and found["scope"]["project"] == project

    first = records[0]["id"]
    corrected = contract.check(
        "patch",
        "/mnemo/v1/memories/{memory_id}",
        httpx.patch(f"{url}/memories/{first}", json={"text": "This repo uses bun.", "value": "bun"}),
    )
    pinned = contract.check(
        "patch",
        "/mnemo/v1/memories/{memory_id}",
        httpx.patch(f"{url}/memories/{corrected['id']}", json={"pinned": True}),
    )
    assert pinned["extra"]["pinned"] is True
    stale = httpx.patch(f"{url}/memories/{first}", json={"text": "This repo uses npm."})
    contract.check("patch", "/mnemo/v1/memories/{memory_id}", stale, status=409)
    shown = contract.check(
        "get", "/mnemo/v1/memories/{memory_id}", httpx.get(f"{url}/memories/{corrected['id']}")
    )
    assert [v["id"] for v in shown["history"]] == [first, corrected["id"]]
    contract.check(
        "get", "/mnemo/v1/memories/{memory_id}", httpx.get(f"{url}/memories/{new_id()}"), status=404
    )
    contract.check("get", "/mnemo/v1/memories", httpx.get(f"{url}/memories", params={"limit": 0}), status=400)

    export = httpx.get(f"{url}/export", params={"project": project, "vectors": "true"}, timeout=30)
    assert export.status_code == 200
    line_schema = contract.schema_for("get", "/mnemo/v1/export", 200, "application/x-ndjson")
    lines = [json.loads(line) for line in export.text.splitlines()]
    assert len(lines) == 5 and all(line["embedding"] for line in lines)
    for line in lines:
        contract.validate(line, line_schema)

    receipt = contract.check(
        "delete",
        "/mnemo/v1/memories/{memory_id}",
        httpx.delete(f"{url}/memories/{records[1]['id']}", timeout=30),
    )
    assert receipt["id"] == records[1]["id"] and receipt["deleted"] == 1
    bulk = contract.check(
        "delete",
        "/mnemo/v1/memories",
        httpx.delete(f"{url}/memories", params={"project": project, "kind": "episodic"}, timeout=30),
    )
    assert bulk["deleted"] == 1
    contract.check("delete", "/mnemo/v1/memories", httpx.delete(f"{url}/memories"), status=400)

    for action, state in (("pause", "paused"), ("disable", "disabled"), ("resume", "active")):
        control = contract.check(
            "post",
            "/mnemo/v1/scopes/{level}/{value}/{action}",
            httpx.post(f"{url}/scopes/project/{project}/{action}", json={}),
        )
        assert control["state"] == state
    contract.check(
        "post",
        "/mnemo/v1/scopes/{level}/{value}/{action}",
        httpx.post(f"{url}/scopes/planet/{project}/pause", json={}),
        status=404,
    )
    contract.check(
        "post",
        "/mnemo/v1/scopes/{level}/{value}/{action}",
        httpx.post(
            f"{url}/scopes/project/{project}/pause", content=b"x", headers={"content-type": "text/plain"}
        ),
        status=415,
    )
    whole = contract.check(
        "delete",
        "/mnemo/v1/scopes/{level}/{value}",
        httpx.delete(f"{url}/scopes/project/{project}", timeout=30),
    )
    assert whole["scope"] == {"level": "project", "value": project} and whole["deleted"] == 3

    audit = contract.check("get", "/mnemo/v1/audit", httpx.get(f"{url}/audit", params={"limit": 100}))
    actions = {entry["action"] for entry in audit["data"]}
    assert {"import", "correct", "annotate", "export", "delete", "paused", "disabled", "resume"} <= actions
    chain = contract.check("get", "/mnemo/v1/audit/verify", httpx.get(f"{url}/audit/verify", timeout=60))
    assert chain["intact"] is True and chain["entries"] >= len(audit["data"])

    relayed = chat(mnemo.url, "Hello there.", project).headers["x-mnemo-request-id"]
    traced = wait_until(
        lambda: (r := httpx.get(f"{url}/requests", params={"project": project})).json()["data"] and r,
        "the relayed call's trace",
    )
    assert contract.check("get", "/mnemo/v1/requests", traced)["data"][0]["id"] == relayed
    one = httpx.get(f"{url}/requests/{relayed}")
    assert contract.check("get", "/mnemo/v1/requests/{request_id}", one)["scope"]["project"] == project
    missing = httpx.get(f"{url}/requests/{new_id()}")
    contract.check("get", "/mnemo/v1/requests/{request_id}", missing, status=404)

    contract.check("get", "/healthz", httpx.get(f"{mnemo.url}/healthz"))
    ready = contract.check("get", "/readyz", httpx.get(f"{mnemo.url}/readyz", timeout=30))
    assert ready["ready"] is True and ready["checks"]["store"] == "ok"

    answered = {(method, path) for method, path, _ in contract.checked}
    assert answered == set(OPERATIONS) - NOT_JSON - {("get", "/metrics")}


def test_audit_entries_keep_every_field_the_store_holds(
    mnemo: RunningMnemo, unique: Callable[[str], str]
) -> None:
    """The audit body is typed field by field; no field an action records may fall out of it."""
    project = unique("audit")
    url = f"{mnemo.url}/mnemo/v1"
    line = export_line(project, "The audit test fact.", T0)
    httpx.post(f"{url}/import", content=json.dumps(line) + "\n", headers=NDJSON, timeout=60)
    httpx.patch(f"{url}/memories/{line['id']}", json={"pinned": True})
    httpx.post(f"{url}/scopes/project/{project}/pause", json={})
    httpx.delete(f"{url}/scopes/project/{project}", timeout=30)

    served = httpx.get(f"{url}/audit", params={"limit": 20}).json()["data"]
    client = redis.Redis.from_url(mnemo.settings.redis_url or "", decode_responses=True)
    try:
        raw: Any = client.xrevrange("mnemo:audit", count=80)
    finally:
        client.close()
    stored = [fields for _, fields in raw if fields.get("org") == "local"][:20]
    assert served == stored
    assert [json.dumps(e) for e in served] == [json.dumps(e) for e in stored]  # the same order of keys


def test_bodies_encode_as_the_domain_dicts_did() -> None:
    """Typed bodies change nothing on the wire: the same bytes as the dicts the handlers sent."""
    scope = Scope(org="acme", project="web", user=None, session="s1")
    memory = Memory(
        id=new_id(),
        kind=Kind.PROCEDURAL,
        text="In docs/, use npm.",
        scope=scope,
        evidence=Evidence.ADMIN,
        confidence=1.0,
        source=Source("api", "r9", 2, "ab" * 32, "use npm", client="curl/8", model=None),
        observed_at=T0,
        subject="repo",
        key="package_manager",
        value="npm",
        qualifier="in docs/",
        valid_from=T0,
        valid_to=T0 + timedelta(days=1),
        status=Status.SUPERSEDED,
        supersedes=new_id(),
        superseded_by=new_id(),
        version=3,
        expires_at=T0 + timedelta(days=90),
        policy="default@abc",
        extractor="rules.v2",
        fingerprint="f" * 32,
        seen_count=4,
        last_seen_at=T0,
        embedding_model="m",
        extra={"pinned": True, "reason": "moved", "nested": {"a": [1, 2.5, None]}},
    )
    encode = msgspec.json.encode
    assert encode(schemas.record(memory)) == encode(memory.to_json())
    assert encode(schemas.record_with_history(memory, [memory])) == encode(
        {**memory.to_json(), "history": [memory.to_json()]}
    )

    receipt = DeletionReceipt(
        ids=[new_id() for _ in range(3)], jobs_purged=1, cached_queries_dropped=2, at=T0
    )
    assert encode(schemas.memory_deletion(receipt, "x")) == encode({**receipt.to_json(), "id": "x"})
    assert encode(schemas.deletion(receipt, 2)) == encode(receipt.to_json(max_ids=2))
    assert encode(schemas.scope_deletion(receipt, 2, "user", "ana")) == encode(
        {**receipt.to_json(max_ids=2), "scope": {"level": "user", "value": "ana"}}
    )
    report = ImportReport(imported=2, merged=1)
    report.reject(3, "kind: 'rumour' is not one of ...")
    assert encode(schemas.import_result(report, True)) == encode({**report.to_json(), "dry_run": True})

    # a field the domain adds without adding it to the type fails loudly, never silently vanishes
    with pytest.raises(msgspec.ValidationError, match="colour"):
        msgspec.convert({**memory.to_json(), "colour": "blue"}, schemas.MemoryRecord)
