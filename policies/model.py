"""The policy an operator sets: who may see what, what is kept and for how long, what is never
stored. Loaded from YAML (policies/loader.py) or the built-in default; frozen once built."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field

from core.model import Evidence, Kind
from core.scope import SCOPE_LEVELS

LEVELS = SCOPE_LEVELS
KINDS = tuple(kind.value for kind in Kind)
EVIDENCE = tuple(evidence.value for evidence in Evidence)


@dataclass(frozen=True, slots=True)
class PrincipalRule:
    """A caller in keys mode, known by the sha256 of its Mnemo key."""

    name: str
    key_sha256: str
    org: str
    default_user: str
    read: tuple[str, ...] = LEVELS  # scope levels it may recall from
    write: tuple[str, ...] = LEVELS  # scope levels it may write to
    projects: tuple[str, ...] = ("*",)  # projects it may use; "*" any
    # users it may act as (X-Mnemo-User, the body's user, ?user=): by default its default_user only;
    # "*" any, as for an app server acting for its end users
    users: tuple[str, ...] = ()
    # An operator: manages the memories of every org through /mnemo/v1/ (not a proxy role).
    admin: bool = False


@dataclass(frozen=True, slots=True)
class TtlRule:
    """Records matching every given attribute expire after ``ttl_s`` (None: never)."""

    ttl_s: float | None
    kind: str | None = None
    evidence: str | None = None
    scope: str | None = None  # the narrowest level set on the record


@dataclass(frozen=True, slots=True)
class Retention:
    ttl: tuple[TtlRule, ...] = (
        TtlRule(ttl_s=86400.0, scope="session"),
        TtlRule(ttl_s=30 * 86400.0, kind="episodic"),
        TtlRule(ttl_s=14 * 86400.0, evidence="inferred"),
    )
    max_per_scope: int = 2000
    # Which records go first when a scope is over its maximum.
    eviction: tuple[str, ...] = ("superseded", "inferred", "oldest")
    superseded_versions: int = 10
    superseded_for_s: float | None = 180 * 86400.0


@dataclass(frozen=True, slots=True)
class RecallBudget:
    """What one request is given: standing rules and answer preferences always (their own budget),
    topical facts and episodes only when the request is about them (a similarity floor)."""

    max_memories: int = 12
    max_tokens: int = 600
    min_score: float = 0.0
    min_similarity: float = 0.4
    standing_max_memories: int = 8
    standing_max_tokens: int = 300
    placement: str = "after_system"  # after_system | before_last_user


@dataclass(frozen=True, slots=True)
class TraceRetention:
    """How long the per-request traces (``GET /mnemo/v1/requests``) are kept, and how many per org."""

    ttl_s: float = 7 * 86400.0
    max_count: int = 10_000


@dataclass(frozen=True, slots=True)
class Policy:
    name: str = "default"
    mode: str = "local"  # local | keys
    principals: tuple[PrincipalRule, ...] = ()
    # Keys mode: the principal's key may come as the bearer token (Mnemo holds the upstream key).
    bearer_is_mnemo_key: bool = False
    upstream_api_key_env: str | None = None
    infer_project_from_prompt: bool = True
    # Where facts of each kind go; "rule" keeps the level the extraction rule chose.
    write_scope: dict[str, str] = field(
        default_factory=lambda: {
            "semantic": "rule",
            "procedural": "rule",
            "episodic": "rule",
            "reflection": "rule",
        }
    )
    role_evidence: dict[str, str] = field(default_factory=lambda: {"user": "stated", "assistant": "inferred"})
    min_confidence: float = 0.5
    secret_patterns: tuple[str, ...] = ()
    quarantine_instruction_like: bool = True
    near_duplicate_similarity: float = 0.9
    inferred_confidence_factor: float = 0.6
    behaviour_sessions: int = 3
    behaviour_window_days: int = 90
    retention: Retention = field(default_factory=Retention)
    recall: RecallBudget = field(default_factory=RecallBudget)
    traces: TraceRetention = field(default_factory=TraceRetention)
    source_sha256: str | None = None  # of the file it was loaded from

    @property
    def digest(self) -> str:
        """Identifies exactly this policy; stored on every record it admits."""
        if self.source_sha256:
            return self.source_sha256[:16]
        canonical = json.dumps(asdict(self), sort_keys=True, default=list)
        return hashlib.sha256(canonical.encode()).hexdigest()[:16]

    @property
    def label(self) -> str:
        return f"{self.name}@{self.digest}"


DEFAULT_POLICY = Policy()
