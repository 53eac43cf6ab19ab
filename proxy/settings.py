"""Typed settings, built once from flags and environment; passed down, never global."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import platformdirs

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
    "max_body_bytes": "MNEMO_MAX_BODY_BYTES",
    "allowed_hosts": "MNEMO_ALLOWED_HOSTS",
    "held_jobs_max": "MNEMO_HELD_JOBS_MAX",
    "held_jobs_max_bytes": "MNEMO_HELD_JOBS_MAX_BYTES",
    "log_level": "MNEMO_LOG_LEVEL",
    "log_format": "MNEMO_LOG_FORMAT",
    "log_prompts": "MNEMO_LOG_PROMPTS",
}


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
    keyword_min_similarity: float = 0.1  # ... and not far off in meaning
    standing_max_memories: int = 8
    standing_max_tokens: int = 300
    candidates: int = 24
    text_weight: float = 0.6  # BM25 beat dense search on these machines (DESIGN §7): weight it higher.
    vector_weight: float = 0.4
    timeout_s: float = 0.5


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8080
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
    recall: RecallSettings = field(default_factory=RecallSettings)
    log_level: str = "info"
    log_format: str = "text"  # or "json": one object a line
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
        known = {f.name for f in fields(cls)}
        unknown = set(values) - known
        if unknown:
            raise ConfigError(f"unknown settings: {', '.join(sorted(unknown))}")
        coerced: dict[str, Any] = dict(values)
        for name, kind in (
            ("port", int),
            ("max_body_bytes", int),
            ("held_jobs_max", int),
            ("held_jobs_max_bytes", int),
            ("upstream_connect_timeout_s", float),
            ("upstream_first_byte_timeout_s", float),
            ("upstream_read_timeout_s", float),
            ("upstream_total_timeout_s", float),
        ):
            if name in coerced:
                try:
                    coerced[name] = kind(coerced[name])
                except (TypeError, ValueError) as exc:
                    raise ConfigError(f"{name} must be a number, got {values[name]!r}") from exc
        if isinstance(coerced.get("log_prompts"), str):
            coerced["log_prompts"] = coerced["log_prompts"].strip().lower() in ("1", "true", "yes", "on")
        if coerced.get("log_format", "text") not in ("text", "json"):
            raise ConfigError(f"log_format must be text or json, got {values['log_format']!r}")
        if str(coerced.get("log_level", "info")).lower() not in ("debug", "info", "warning", "error"):
            raise ConfigError(f"log_level must be debug, info, warning or error, got {values['log_level']!r}")
        if "log_level" in coerced:
            coerced["log_level"] = str(coerced["log_level"]).lower()
        for name in ("data_dir", "policy_file"):
            if coerced.get(name) is not None:
                coerced[name] = Path(coerced[name]).expanduser()
        if isinstance(coerced.get("allowed_hosts"), str):
            coerced["allowed_hosts"] = frozenset(
                h.strip() for h in coerced["allowed_hosts"].split(",") if h.strip()
            )
        elif "allowed_hosts" in coerced:
            coerced["allowed_hosts"] = frozenset(coerced["allowed_hosts"])
        for name in ("upstream_url", "anthropic_upstream_url"):
            if name in coerced:
                coerced[name] = str(coerced[name]).rstrip("/")
        settings = cls(**coerced)
        if not 0 <= settings.port <= 65535:
            raise ConfigError(f"port must be between 0 and 65535, got {settings.port}")
        return settings

    def with_changes(self, **changes: Any) -> Settings:
        return replace(self, **changes)
