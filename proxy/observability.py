"""What operators see: one log line per relayed call (text or JSON) and OpenTelemetry traces.

Logs never carry prompt text: a request's line holds its id, API, status, recall count, timings
and digests of its scope, so lines of one user can be grouped without naming them. The debug
setting ``MNEMO_LOG_PROMPTS=1`` adds the latest user message, for a developer's own machine.

Traces are on when the standard ``OTEL_*`` variables ask for them (an OTLP endpoint, or
``OTEL_TRACES_EXPORTER``); the OpenTelemetry SDK is imported only then. A relayed call is one
``mnemo.request`` span (a child of the client's ``traceparent`` when it sends one) with ``mnemo.scope``,
``mnemo.recall`` and ``mnemo.relay`` inside; the relay span's ``traceparent`` goes upstream, and the
job carries it so the worker's ``mnemo.learn`` span links back to the call it learns from.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from core.scope import Scope

LOG_FORMAT_TEXT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# what every record has (and what formatting adds to it): the rest are the fields a call passed
# (uvicorn adds color_message, the same text with terminal colours: never a field of ours)
_STANDARD_ATTRIBUTES = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message",
    "asctime",
    "color_message",
}


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time (ISO 8601, UTC), level, logger, message, and the record's fields."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        line.update(fields_of(record))
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        return json.dumps(line, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """The usual line, with the record's fields after it as key=value."""

    def __init__(self) -> None:
        super().__init__(LOG_FORMAT_TEXT)

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        fields = fields_of(record)
        if fields:
            text += " " + " ".join(f"{k}={_plain(v)}" for k, v in fields.items())
        return text


def fields_of(record: logging.LogRecord) -> dict[str, Any]:
    return {k: v for k, v in vars(record).items() if k not in _STANDARD_ATTRIBUTES and not k.startswith("_")}


def _plain(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str) if not isinstance(value, str) else value
    return text if text and " " not in text else json.dumps(text, ensure_ascii=False)


def configure_logging(level: str, log_format: str) -> None:
    """The root logger's one handler, on stderr, in ``text`` or ``json``."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())


def scope_digests(scope: Scope) -> dict[str, str]:
    """Each scope part as the first 12 hex digits of its sha256: groupable, not readable."""
    return {
        f"scope_{level}": hashlib.sha256(value.encode()).hexdigest()[:12]
        for level, value in scope.as_dict().items()
        if value
    }


# -- traces ----------------------------------------------------------------------------------------


def tracing_requested(env: Mapping[str, str]) -> bool:
    """Whether the standard variables ask for traces (the SDK's own switch wins)."""
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporter = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if exporter:
        return exporter != "none"
    return bool(env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


class Tracing:
    """Spans through OpenTelemetry, or nothing at all. One per process, opened in the lifespan."""

    def __init__(self, tracer: Any = None, provider: Any = None) -> None:
        self._tracer = tracer
        self._provider = provider

    @property
    def enabled(self) -> bool:
        return self._tracer is not None

    @classmethod
    def from_env(cls, service_name: str, env: Mapping[str, str] | None = None) -> Tracing:
        env = os.environ if env is None else env
        if not tracing_requested(env):
            return cls()
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

        resource = Resource.create({"service.name": env.get("OTEL_SERVICE_NAME", service_name)})
        provider = TracerProvider(resource=resource)
        exporter = env.get("OTEL_TRACES_EXPORTER", "otlp").strip().lower()
        # the exporters read the rest of the OTEL_* variables (endpoint, headers, timeout) themselves
        provider.add_span_processor(
            BatchSpanProcessor(ConsoleSpanExporter() if exporter == "console" else OTLPSpanExporter())
        )
        return cls(provider.get_tracer("mnemo"), provider)

    def shutdown(self) -> None:
        if self._provider is not None:
            self._provider.shutdown()  # flushes what is batched

    def request(self, headers: Mapping[str, str], api: str) -> RequestTrace:
        """The span of one relayed call, a child of the caller's ``traceparent`` if it sent one."""
        if self._tracer is None:
            return RequestTrace()
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        parent = TraceContextTextMapPropagator().extract(carrier=dict(headers))
        span = self._tracer.start_span("mnemo.request", context=parent, attributes={"mnemo.api": api})
        return RequestTrace(self._tracer, span)

    @contextlib.contextmanager
    def learning(self, traceparents: list[str], jobs: int) -> Iterator[None]:
        """The worker's span for one batch, linked to the calls its jobs came from."""
        if self._tracer is None:
            yield
            return
        from opentelemetry import trace
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        propagator = TraceContextTextMapPropagator()
        links = []
        for traceparent in traceparents:
            context = trace.get_current_span(
                propagator.extract({"traceparent": traceparent})
            ).get_span_context()
            if context.is_valid:
                links.append(trace.Link(context))
        with self._tracer.start_as_current_span("mnemo.learn", links=links, attributes={"mnemo.jobs": jobs}):
            yield


class RequestTrace:
    """Steps of one call as child spans; every method is a no-op when tracing is off."""

    def __init__(self, tracer: Any = None, span: Any = None) -> None:
        self._tracer = tracer
        self._span = span
        self._relay: Any = None

    @contextlib.contextmanager
    def step(self, name: str) -> Iterator[None]:
        if self._tracer is None:
            yield
            return
        from opentelemetry import trace

        with self._tracer.start_as_current_span(name, context=trace.set_span_in_context(self._span)):
            yield

    def relay_started(self) -> dict[str, str]:
        """Starts the relay span; the headers that carry it upstream (W3C ``traceparent``)."""
        if self._tracer is None:
            return {}
        from opentelemetry import trace
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        self._relay = self._tracer.start_span("mnemo.relay", context=trace.set_span_in_context(self._span))
        carrier: dict[str, str] = {}
        TraceContextTextMapPropagator().inject(carrier, context=trace.set_span_in_context(self._relay))
        return carrier

    @property
    def traceparent(self) -> str | None:
        """The relay span's ``traceparent``, for the learning job to link back to."""
        if self._relay is None:
            return None
        context = self._relay.get_span_context()
        return f"00-{context.trace_id:032x}-{context.span_id:016x}-{context.trace_flags:02x}"

    def end(self, attributes: Mapping[str, Any]) -> None:
        if self._span is None:
            return
        if self._relay is not None:
            self._relay.end()
        self._span.set_attributes({f"mnemo.{k}": v for k, v in attributes.items() if v is not None})
        self._span.end()
