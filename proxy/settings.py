"""Typed settings, built once from flags and environment; passed down, never global."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin, get_type_hints

import msgspec
import platformdirs
from msgspec import Meta

from core.errors import ConfigError

# Flag name -> environment variable (docs/design.md §4 fixes these names).
ENV_VARS: dict[str, str] = {
    "host": "MNEMO_HOST",
    "port": "MNEMO_PORT",
    "upstream_url": "MNEMO_UPSTREAM_URL",
    "anthropic_upstream_url": "MNEMO_ANTHROPIC_UPSTREAM_URL",
    "redis_url": "MNEMO_REDIS_URL",
    "data_dir": "MNEMO_DATA_DIR",
    "policy_file": "MNEMO_POLICY_FILE",
    "embedding_url": "MNEMO_EMBEDDING_URL",
    "embedding_model": "MNEMO_EMBEDDING_MODEL",
    "embedding_api_key": "MNEMO_EMBEDDING_API_KEY",
    "upstream_connect_timeout_s": "MNEMO_UPSTREAM_CONNECT_TIMEOUT",
    "upstream_first_byte_timeout_s": "MNEMO_UPSTREAM_FIRST_BYTE_TIMEOUT",
    "upstream_read_timeout_s": "MNEMO_UPSTREAM_READ_TIMEOUT",
    "upstream_total_timeout_s": "MNEMO_UPSTREAM_TOTAL_TIMEOUT",
    "recall_timeout_s": "MNEMO_RECALL_TIMEOUT",
    "store_timeout_s": "MNEMO_STORE_TIMEOUT",
    "max_body_bytes": "MNEMO_MAX_BODY_BYTES",
    "allowed_hosts": "MNEMO_ALLOWED_HOSTS",
    "held_jobs_max": "MNEMO_HELD_JOBS_MAX",
    "held_jobs_max_bytes": "MNEMO_HELD_JOBS_MAX_BYTES",
    "log_level": "MNEMO_LOG_LEVEL",
    "log_format": "MNEMO_LOG_FORMAT",
    "log_prompts": "MNEMO_LOG_PROMPTS",
}


Port = Annotated[int, Meta(ge=0, le=65535)]
LogLevel = Literal["debug", "info", "warning", "error"]
LogFormat = Literal["text", "json"]  # json: one object a line


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("mnemo", appauthor=False))


@dataclass(frozen=True, slots=True)
class RecallSettings:
    """How much memory one request may receive and how long recall may take."""

    max_memories: int = 12
    max_tokens: int = 600
    min_score: float = 0.0
    min_similarity: float = 0.4  # topical records below this cosine similarity to the query stay out
    keyword_max_rank: int = 3  # ... unless among the best keyword matches
    keyword_min_similarity: float = 0.12  # ... and not far off in meaning (bench/relevance.py)
    standing_max_memories: int = 8
    standing_max_tokens: int = 300
    candidates: int = 24
    text_weight: float = 0.6  # BM25 beat dense search on these machines (DESIGN §7): weight it higher.
    vector_weight: float = 0.4
    timeout_s: float = 0.5


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = "127.0.0.1"
    port: Port = 8080
    upstream_url: str = "https://api.openai.com/v1"
    anthropic_upstream_url: str = "https://api.anthropic.com"
    redis_url: str | None = None
    data_dir: Path = field(default_factory=default_data_dir)
    policy_file: Path | None = None
    insecure: bool = False
    run_worker: bool = True
    # None: the offline MiniLM model. A URL: an OpenAI-compatible /embeddings endpoint.
    embedding_url: str | None = None
    embedding_model: str | None = None
    embedding_api_key: str | None = None
    upstream_connect_timeout_s: float = 10.0
    upstream_first_byte_timeout_s: float = 300.0  # until the status line: models can think long
    upstream_read_timeout_s: float = 300.0  # between two chunks of the body
    upstream_total_timeout_s: float = 1800.0
    store_timeout_s: float = 0.5
    # how long a deletion through the API waits for the store's files to be rewritten without it
    erasure_wait_s: float = 10.0
    max_body_bytes: int = 32 * 1024 * 1024
    # past it a request goes on without memory (X-Mnemo-Status: degraded); the policy file sets
    # how much is recalled, the server how long its store and embedder may take
    recall_timeout_s: float = 0.5
    log_level: LogLevel = "info"
    log_format: LogFormat = "text"
    log_prompts: bool = False  # debug only: the latest user message in each request's log line
    # names besides loopback and the bound address a request's Host may carry (comma-separated in env)
    allowed_hosts: frozenset[str] = frozenset()
    # learning jobs held in memory while the store is away, written when it returns; past either
    # bound a job is dropped and counted (/metrics: mnemo_jobs_held_dropped_total)
    held_jobs_max: int = 10_000
    held_jobs_max_bytes: int = 64 * 1024 * 1024

    @classmethod
    def from_sources(cls, flags: dict[str, Any] | None = None, env: dict[str, str] | None = None) -> Settings:
        """Flags win over environment, environment over defaults. ``None`` flags count as not given."""
        env = dict(os.environ) if env is None else env
        values: dict[str, Any] = {}
        for name, var in ENV_VARS.items():
            if env.get(var):
                values[name] = env[var]
        values.update({k: v for k, v in (flags or {}).items() if v is not None})
        return cls.from_mapping(values)

    @classmethod
    def from_mapping(cls, values: dict[str, Any]) -> Settings:
        """Settings from flags or environment text, checked against the declared field types:
        text becomes numbers, booleans and paths; a ConfigError names the field that is wrong."""
        unknown = set(values) - {f.name for f in fields(cls)}
        if unknown:
            raise ConfigError(f"unknown settings: {', '.join(sorted(unknown))}")
        given = {
            name: _READ_AS[name](value) if isinstance(value, str) and name in _READ_AS else value
            for name, value in values.items()
        }
        try:
            return msgspec.convert(given, cls, strict=False, dec_hook=_path)
        except msgspec.ValidationError as exc:
            name = str(exc).rpartition("$.")[2].rstrip("`")
            raise ConfigError(_wrong(name, values.get(name), str(exc))) from None

    def with_changes(self, **changes: Any) -> Settings:
        return replace(self, **changes)


# How a value given as text (a flag or an environment variable) is read before its declared type is
# checked; any other text is converted by the type itself (numbers, booleans, paths).
_READ_AS: dict[str, Callable[[str], Any]] = {
    "log_level": str.lower,
    "log_prompts": lambda text: text.strip().lower() in ("1", "true", "yes", "on"),
    "allowed_hosts": lambda text: [host.strip() for host in text.split(",") if host.strip()],
    "upstream_url": lambda text: text.rstrip("/"),
    "anthropic_upstream_url": lambda text: text.rstrip("/"),
}


def _path(kind: type, value: Any) -> Any:
    """msgspec's hook for the one declared type it does not know: a path, with ``~`` expanded."""
    if kind is Path and isinstance(value, str | Path):
        return Path(value).expanduser()
    raise NotImplementedError


def _wrong(name: str, value: Any, refusal: str) -> str:
    """What the declared type of ``name`` wants, said for a value it refused."""
    declared = get_type_hints(Settings, include_extras=True).get(name)
    kind, meta = get_args(declared) if get_origin(declared) is Annotated else (declared, None)
    if kind in (int, float) and ", got `" in refusal:  # not a number at all
        return f"{name} must be a number, got {value!r}"
    if isinstance(meta, Meta) and meta.ge is not None and meta.le is not None:
        return f"{name} must be between {meta.ge} and {meta.le}, got {value!r}"
    if get_origin(kind) is Literal:
        *rest, last = get_args(kind)
        return f"{name} must be {', '.join(rest)} or {last}, got {value!r}"
    return f"{name}: {refusal.partition(' - at ')[0]}, got {value!r}"
