"""The policy file's declared types: each section a msgspec Struct, every key known, every value typed.

``policies/yaml_check.py`` checks a file against these types with file and line in each error;
``policies/loader.py`` builds the frozen ``Policy`` from the result. Defaults come from the model.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Literal, cast, get_args

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

from core.model import Evidence, Kind
from policies.model import KINDS, LEVELS, Policy, RecallBudget, Retention, TraceRetention
from policies.yaml_check import PolicyError

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d|w)\s*$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_LIKE = "(like 30d, 12h, 90m)"

Level = Literal["org", "project", "user", "session"]
Role = Literal["stated", "inferred"]
Eviction = Literal["superseded", "inferred", "oldest", "least_seen"]
WriteLevel = Literal["rule", "org", "project", "user", "session"]
Fraction = Annotated[float, Meta(ge=0, le=1)]
Duration = Annotated[
    str, Meta(pattern=_DURATION.pattern, extra={"says": f"not a duration {_LIKE}: {{raw!r}}"})
]
# a duration, or "never" (in any case)
Lifetime = Annotated[
    str,
    Meta(
        pattern=r"^\s*(?:(?i:never)|\d+(?:\.\d+)?\s*[smhdw])\s*$",
        extra={"says": f"not a duration {_LIKE} or never: {{raw!r}}"},
    ),
]
Sha256 = Annotated[
    str,
    Meta(pattern=r"^[0-9a-f]{64}$", extra={"says": "must be 64 lowercase hex digits (sha256 of the key)"}),
]
Regex = Annotated[str, Meta(extra={"check": "regex"})]

EVICTION_PREFERENCES: tuple[str, ...] = get_args(Eviction)
assert get_args(Level) == LEVELS and get_args(WriteLevel) == ("rule", *LEVELS)

_BASE = Policy()
_RETENTION = Retention()
_RECALL = RecallBudget()
_TRACES = TraceRetention()


class PrincipalSection(Struct, forbid_unknown_fields=True, kw_only=True):
    name: str
    key_sha256: Sha256
    org: str
    default_user: str
    read: list[Level] = msgspec.field(default_factory=lambda: list(get_args(Level)))
    write: list[Level] = msgspec.field(default_factory=lambda: list(get_args(Level)))
    projects: list[str] = msgspec.field(default_factory=lambda: ["*"])
    users: list[str] | UnsetType = UNSET  # by default the default_user only
    admin: bool = False


class WriteScopes(Struct, forbid_unknown_fields=True):
    """Where facts of each kind go; "rule" keeps the level the extraction rule chose."""

    semantic: WriteLevel | UnsetType = UNSET
    procedural: WriteLevel | UnsetType = UNSET
    episodic: WriteLevel | UnsetType = UNSET
    reflection: WriteLevel | UnsetType = UNSET


assert tuple(WriteScopes.__struct_fields__) == KINDS


class ScopesSection(Struct, forbid_unknown_fields=True):
    infer_project_from_prompt: bool = _BASE.infer_project_from_prompt
    write: WriteScopes = msgspec.field(default_factory=WriteScopes)


class LearningSection(Struct, forbid_unknown_fields=True):
    roles: dict[str, Role] = msgspec.field(
        default_factory=lambda: cast(dict[str, Role], dict(_BASE.role_evidence))
    )
    min_confidence: Fraction = _BASE.min_confidence
    secret_patterns: list[Regex] = []
    quarantine_instruction_like: bool = _BASE.quarantine_instruction_like
    near_duplicate_similarity: Fraction = _BASE.near_duplicate_similarity
    inferred_confidence_factor: Fraction = _BASE.inferred_confidence_factor
    behaviour_sessions: Annotated[int, Meta(ge=1)] = _BASE.behaviour_sessions
    behaviour_window: Duration = f"{_BASE.behaviour_window_days}d"


class TtlSection(Struct, forbid_unknown_fields=True):
    ttl: Lifetime
    kind: Kind | None = None
    evidence: Evidence | None = None
    scope: Level | None = None


class RetentionSection(Struct, forbid_unknown_fields=True):
    ttl: list[TtlSection] | UnsetType = UNSET  # by default the model's rules
    max_per_scope: Annotated[int, Meta(ge=1)] = _RETENTION.max_per_scope
    eviction: list[Eviction] = msgspec.field(
        default_factory=lambda: cast(list[Eviction], [*_RETENTION.eviction])
    )
    superseded_versions: Annotated[int, Meta(ge=0)] = _RETENTION.superseded_versions
    superseded_for: Lifetime | UnsetType = UNSET  # by default the model's


class RecallSection(Struct, forbid_unknown_fields=True):
    max_memories: Annotated[int, Meta(ge=0, le=100)] = _RECALL.max_memories
    max_tokens: Annotated[int, Meta(ge=0, le=20000)] = _RECALL.max_tokens
    min_score: Fraction = _RECALL.min_score
    min_similarity: Fraction = _RECALL.min_similarity
    standing_max_memories: Annotated[int, Meta(ge=0, le=100)] = _RECALL.standing_max_memories
    standing_max_tokens: Annotated[int, Meta(ge=0, le=20000)] = _RECALL.standing_max_tokens
    placement: Literal["after_system", "before_last_user"] = "after_system"


class TracesSection(Struct, forbid_unknown_fields=True):
    """The per-request traces: kept for ``ttl``, at most ``max_count`` per org (the oldest go first)."""

    ttl: Duration = f"{int(_TRACES.ttl_s // 86400)}d"
    max_count: Annotated[int, Meta(ge=1, le=1_000_000)] = _TRACES.max_count


class PolicyFile(Struct, forbid_unknown_fields=True, kw_only=True):
    name: str
    version: Annotated[int, Meta(ge=1, le=1)]
    mode: Literal["local", "keys"] = "local"
    principals: list[PrincipalSection] = []
    bearer_is_mnemo_key: bool = _BASE.bearer_is_mnemo_key
    upstream_api_key_env: str | UnsetType = UNSET
    scopes: ScopesSection = msgspec.field(default_factory=ScopesSection)
    learning: LearningSection = msgspec.field(default_factory=LearningSection)
    retention: RetentionSection = msgspec.field(default_factory=RetentionSection)
    recall: RecallSection = msgspec.field(default_factory=RecallSection)
    traces: TracesSection = msgspec.field(default_factory=TracesSection)


def parse_duration(text: str) -> float:
    match = _DURATION.match(text)
    if not match:
        raise ValueError(f"not a duration {_LIKE}: {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def parse_lifetime(text: str) -> float | None:
    """A duration in seconds, or None for "never"."""
    return None if text.strip().lower() == "never" else parse_duration(text)


def read_policy_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PolicyError([f"{path}: cannot read: {exc.strerror}"]) from exc


__all__ = ["PolicyError", "PolicyFile", "parse_duration", "parse_lifetime", "read_policy_text"]
