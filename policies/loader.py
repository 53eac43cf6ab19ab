"""Policy files: YAML against a strict schema, built into a frozen Policy; hot reload that keeps
the last good policy when an edit is bad."""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from policies.model import EVIDENCE, KINDS, LEVELS, Policy, PrincipalRule, RecallBudget, Retention, TtlRule
from policies.schema import Field, PolicyError, Schema, read_policy_text, validate

log = logging.getLogger("mnemo.policy")

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
EVICTION_PREFERENCES = ("superseded", "inferred", "oldest", "least_seen")

PRINCIPAL = Schema(
    {
        "name": Field("str", required=True),
        "key_sha256": Field("str", required=True),
        "org": Field("str", required=True),
        "default_user": Field("str", required=True),
        "read": Field("list", items=Field("enum", choices=LEVELS)),
        "write": Field("list", items=Field("enum", choices=LEVELS)),
        "projects": Field("list", items=Field("str")),
        "users": Field("list", items=Field("str")),
        "admin": Field("bool"),
    }
)
TTL_RULE = Schema(
    {
        "ttl": Field("str", required=True),  # a duration, or "never"
        "kind": Field("enum", choices=KINDS),
        "evidence": Field("enum", choices=EVIDENCE),
        "scope": Field("enum", choices=LEVELS),
    }
)
POLICY_SCHEMA = Schema(
    {
        "name": Field("str", required=True),
        "version": Field("int", required=True, minimum=1, maximum=1),
        "mode": Field("enum", choices=("local", "keys")),
        "principals": Field("list", items=PRINCIPAL),
        "bearer_is_mnemo_key": Field("bool"),
        "upstream_api_key_env": Field("str"),
        "scopes": Schema(
            {
                "infer_project_from_prompt": Field("bool"),
                "write": Schema({kind: Field("enum", choices=("rule", *LEVELS)) for kind in KINDS}),
            }
        ),
        "learning": Schema(
            {
                "roles": Field("map", items=Field("enum", choices=("stated", "inferred"))),
                "min_confidence": Field("float", minimum=0, maximum=1),
                "secret_patterns": Field("list", items=Field("pattern")),
                "quarantine_instruction_like": Field("bool"),
                "near_duplicate_similarity": Field("float", minimum=0, maximum=1),
                "inferred_confidence_factor": Field("float", minimum=0, maximum=1),
                "behaviour_sessions": Field("int", minimum=1),
                "behaviour_window": Field("duration"),
            }
        ),
        "retention": Schema(
            {
                "ttl": Field("list", items=TTL_RULE),
                "max_per_scope": Field("int", minimum=1),
                "eviction": Field(
                    "list", items=Field("enum", choices=("superseded", "inferred", "oldest", "least_seen"))
                ),
                "superseded_versions": Field("int", minimum=0),
                "superseded_for": Field("str"),
            }
        ),
        "recall": Schema(
            {
                "max_memories": Field("int", minimum=0, maximum=100),
                "max_tokens": Field("int", minimum=0, maximum=20000),
                "min_score": Field("float", minimum=0, maximum=1),
                "min_similarity": Field("float", minimum=0, maximum=1),
                "standing_max_memories": Field("int", minimum=0, maximum=100),
                "standing_max_tokens": Field("int", minimum=0, maximum=20000),
                "placement": Field("enum", choices=("after_system", "before_last_user")),
            }
        ),
    }
)


def _ttl(text: str, where: str, problems: list[str]) -> float | None:
    from policies.schema import parse_duration

    if text.strip().lower() == "never":
        return None
    try:
        return parse_duration(text)
    except ValueError as exc:
        problems.append(f"{where}: {exc}")
        return None


def parse_policy(text: str, name: str) -> Policy:
    data = validate(text, name, POLICY_SCHEMA)
    problems: list[str] = []
    principals = []
    for i, raw in enumerate(data.get("principals", [])):
        if not _SHA256.match(raw["key_sha256"] or ""):
            problems.append(
                f"{name}: principals[{i}].key_sha256: must be 64 lowercase hex digits (sha256 of the key)"
            )
        principals.append(
            PrincipalRule(
                name=raw["name"],
                key_sha256=raw["key_sha256"],
                org=raw["org"],
                default_user=raw["default_user"],
                read=tuple(raw.get("read", LEVELS)),
                write=tuple(raw.get("write", LEVELS)),
                projects=tuple(raw.get("projects", ["*"])),
                users=tuple(raw.get("users", [raw["default_user"]])),
                admin=bool(raw.get("admin", False)),
            )
        )
    mode = data.get("mode", "local")
    if mode == "keys" and not principals:
        problems.append(f"{name}: mode: keys mode needs at least one principal")
    if len({p.key_sha256 for p in principals}) != len(principals):
        problems.append(f"{name}: principals: two principals share a key")
    retention_raw = data.get("retention", {})
    defaults = Retention()
    ttl_rules = (
        tuple(
            TtlRule(
                ttl_s=_ttl(r["ttl"], f"{name}: retention.ttl[{i}].ttl", problems),
                kind=r.get("kind"),
                evidence=r.get("evidence"),
                scope=r.get("scope"),
            )
            for i, r in enumerate(retention_raw.get("ttl", []))
        )
        if "ttl" in retention_raw
        else defaults.ttl
    )
    superseded_for = (
        _ttl(retention_raw["superseded_for"], f"{name}: retention.superseded_for", problems)
        if "superseded_for" in retention_raw
        else defaults.superseded_for_s
    )
    if problems:
        raise PolicyError(problems)
    scopes = data.get("scopes", {})
    learning = data.get("learning", {})
    recall = data.get("recall", {})
    base = Policy()
    return Policy(
        name=data["name"],
        mode=mode,
        principals=tuple(principals),
        bearer_is_mnemo_key=data.get("bearer_is_mnemo_key", False),
        upstream_api_key_env=data.get("upstream_api_key_env"),
        infer_project_from_prompt=scopes.get("infer_project_from_prompt", base.infer_project_from_prompt),
        write_scope={**base.write_scope, **scopes.get("write", {})},
        role_evidence=learning.get("roles", base.role_evidence),
        min_confidence=learning.get("min_confidence", base.min_confidence),
        secret_patterns=tuple(learning.get("secret_patterns", ())),
        quarantine_instruction_like=learning.get("quarantine_instruction_like", True),
        near_duplicate_similarity=learning.get("near_duplicate_similarity", base.near_duplicate_similarity),
        inferred_confidence_factor=learning.get(
            "inferred_confidence_factor", base.inferred_confidence_factor
        ),
        behaviour_sessions=learning.get("behaviour_sessions", base.behaviour_sessions),
        behaviour_window_days=int(
            learning.get("behaviour_window", base.behaviour_window_days * 86400) // 86400
        ),
        retention=Retention(
            ttl=ttl_rules,
            max_per_scope=retention_raw.get("max_per_scope", defaults.max_per_scope),
            eviction=tuple(retention_raw.get("eviction", defaults.eviction)),
            superseded_versions=retention_raw.get("superseded_versions", defaults.superseded_versions),
            superseded_for_s=superseded_for,
        ),
        recall=RecallBudget(**{k: recall[k] for k in recall}),
        source_sha256=hashlib.sha256(text.encode()).hexdigest(),
    )


def load_policy(path: Path) -> Policy:
    return parse_policy(read_policy_text(path), str(path))


@dataclass
class PolicyHolder:
    """The policy in force. ``refresh()`` reloads a changed file; a bad edit is refused and logged,
    and the last good policy stays in force until the file is fixed."""

    policy: Policy
    path: Path | None = None
    error: str | None = None
    _seen: tuple[float, int] | None = field(default=None, repr=False)

    @classmethod
    def from_file(cls, path: Path | None) -> PolicyHolder:
        if path is None:
            return cls(policy=Policy())
        holder = cls(policy=load_policy(path), path=path)
        holder._seen = holder._stamp()
        return holder

    def _stamp(self) -> tuple[float, int] | None:
        try:
            info = self.path.stat() if self.path else None
        except OSError:
            return None
        return (info.st_mtime, info.st_size) if info else None

    def refresh(self) -> bool:
        """True when a new policy came into force."""
        if self.path is None:
            return False
        stamp = self._stamp()
        if stamp == self._seen:
            return False
        self._seen = stamp
        try:
            policy = load_policy(self.path)
        except PolicyError as exc:
            self.error = str(exc)
            log.error("policy edit refused, %s stays in force: %s", self.policy.label, exc)
            return False
        self.policy, self.error = policy, None
        log.info("policy %s in force", policy.label)
        return True
