"""What operators see: JSON logs without prompt text, OpenTelemetry traces through an OTLP
receiver on a port, and the learning counters of /metrics."""

from __future__ import annotations

import json
import random
import re
import secrets
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from harness.helpers import chat, wait_until
from harness.processes import spawn_cli, stopping, wait_ready
from harness.upstream import UpstreamStub
from tests.conftest import free_port, mnemo_on_own_store, store_for_test

pytestmark = pytest.mark.integration


def _word() -> str:
    return "zq" + "".join(random.choice("bcdfghjklmnprstvz") for _ in range(8))


def _until_learned(url: str, project: str, word: str) -> None:
    def learned() -> bool:
        listing = httpx.get(f"{url}/mnemo/v1/memories", params={"project": project}, timeout=5).json()
        return any(word in m["text"] for m in listing["data"])

    wait_until(learned, f"{word} learned", timeout_s=20)


def test_json_logs_carry_the_request_and_never_its_text_and_metrics_count_learning(
    tmp_path: Path, fresh_upstream: UpstreamStub
) -> None:
    with store_for_test(tmp_path / "store") as store:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        args = ["serve", "--port", str(port), "--upstream", fresh_upstream.url, "--redis-url", store.url]
        args += ["--data-dir", str(tmp_path / "data"), "--log-format", "json"]
        served = spawn_cli(args, {"MNEMO_LOG_LEVEL": "info"}, tmp_path / "serve.log")
        with stopping([served]):
            wait_ready(served, url)
            word = _word()
            said = f"We deploy with {word}deploy to production."
            response = chat(url, said, "logs", **{"x-mnemo-user": "ana"})
            assert response.status_code == 200, response.text
            key = "sk-proj-" + secrets.token_urlsafe(36)
            assert chat(url, f"the OpenAI key for the bot is {key}", "logs").status_code == 200
            _until_learned(url, "logs", word)
            metrics = httpx.get(f"{url}/metrics", timeout=5).text
        log = (tmp_path / "serve.log").read_text()
    lines = [json.loads(line) for line in log.splitlines() if line.strip()]  # every line is JSON
    (relayed,) = [line for line in lines if line.get("request_id") == response.headers["x-mnemo-request-id"]]
    assert relayed["logger"] == "mnemo.requests" and relayed["api"] == "openai.chat"
    assert (relayed["status"], relayed["http_status"], relayed["recalled"]) == ("ok", 200, 0)
    assert relayed["total_ms"] >= relayed["overhead_ms"] > 0
    assert re.fullmatch(r"[0-9a-f]{12}", relayed["scope_user"]) and "ana" not in json.dumps(relayed)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", relayed["time"])
    assert word not in log and key not in log and "prompt" not in relayed  # no prompt text, no secret

    def counter(name: str) -> float:
        match = re.search(rf"^{name} (\S+)$", metrics, re.M)
        assert match, f"{name} missing from /metrics"
        return float(match.group(1))

    assert counter("mnemo_facts_learned_total") >= 1 and counter("mnemo_jobs_learned_total") >= 1
    assert counter("mnemo_secrets_cut_total") >= 1
    assert counter("mnemo_extraction_lag_seconds_sum") > 0
    for name in ("merged", "superseded", "refused", "quarantined"):
        counter(f"mnemo_facts_{name}_total")
    assert "# TYPE mnemo_facts_learned_total counter" in metrics


class _Collector(BaseHTTPRequestHandler):
    """An OTLP/HTTP trace receiver: keeps every span it is sent."""

    spans: list[Any] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        for resource in request.resource_spans:
            for scoped in resource.scope_spans:
                self.spans.extend(scoped.spans)
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.end_headers()
        self.wfile.write(b"")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[tuple[str, list[Any]]]:
    spans: list[Any] = []
    handler = type("Collector", (_Collector,), {"spans": spans})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", spans
    server.shutdown()


def test_a_call_is_traced_from_the_client_to_the_provider_and_to_its_learning(
    collector: tuple[str, list[Any]],
    fresh_upstream: UpstreamStub,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    endpoint, spans = collector
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
    monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "100")
    client_trace, client_span = secrets.token_hex(16), secrets.token_hex(8)
    word = _word()
    with mnemo_on_own_store(fresh_upstream.url, tmp_path) as (mnemo, _):
        said = chat(
            mnemo.url,
            f"We deploy with {word}deploy to production.",
            "traced",
            traceparent=f"00-{client_trace}-{client_span}-01",
        )
        assert said.status_code == 200, said.text
        _until_learned(mnemo.url, "traced", word)
    # stopped: the provider flushed its spans on the way out
    upstream_parent = fresh_upstream.chat_requests()[-1].headers["traceparent"].split("-")
    assert upstream_parent[1] == client_trace and upstream_parent[2] != client_span
    by_name = {span.name: span for span in spans}
    assert {"mnemo.request", "mnemo.scope", "mnemo.recall", "mnemo.relay", "mnemo.learn"} <= set(by_name)
    request, relay = by_name["mnemo.request"], by_name["mnemo.relay"]
    assert request.trace_id.hex() == client_trace and request.parent_span_id.hex() == client_span
    for step in ("mnemo.scope", "mnemo.recall", "mnemo.relay"):
        assert by_name[step].parent_span_id == request.span_id, step
    assert relay.span_id.hex() == upstream_parent[2]  # the provider saw the relay span as its parent
    assert [link.span_id for link in by_name["mnemo.learn"].links] == [relay.span_id]
    attributes = {a.key: a.value for a in request.attributes}
    assert attributes["mnemo.status"].string_value == "ok"
    assert attributes["mnemo.api"].string_value == "openai.chat"
