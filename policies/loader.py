"""Policy files: YAML checked against the declared types (policies/schema.py), built into a frozen
Policy; hot reload that keeps the last good policy when an edit is bad."""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
from msgspec import UNSET

from policies.model import Policy, PrincipalRule, RecallBudget, Retention, TraceRetention, TtlRule
from policies.schema import (
    PolicyFile,
    PrincipalSection,
    RetentionSection,
    parse_duration,
    parse_lifetime,
    read_policy_text,
)
from policies.yaml_check import PolicyError, check

log = logging.getLogger("mnemo.policy")


def parse_policy(text: str, name: str) -> Policy:
    checked = check(text, name, PolicyFile)
    file = checked.value
    principals = tuple(_principal(raw) for raw in file.principals)
    problems: list[str] = []
    if file.mode == "keys" and not principals:
        problems.append(f"{checked.where('mode')}: keys mode needs at least one principal")
    if len({p.key_sha256 for p in principals}) != len(principals):
        problems.append(f"{checked.where('principals')}: two principals share a key")
    if problems:
        raise PolicyError(problems)
    learning, scopes = file.learning, file.scopes
    return Policy(
        name=file.name,
        mode=file.mode,
        principals=principals,
        bearer_is_mnemo_key=file.bearer_is_mnemo_key,
        upstream_api_key_env=None if file.upstream_api_key_env is UNSET else file.upstream_api_key_env,
        infer_project_from_prompt=scopes.infer_project_from_prompt,
        write_scope={**Policy().write_scope, **_given(scopes.write)},
        role_evidence=dict(learning.roles),
        min_confidence=learning.min_confidence,
        secret_patterns=tuple(learning.secret_patterns),
        quarantine_instruction_like=learning.quarantine_instruction_like,
        near_duplicate_similarity=learning.near_duplicate_similarity,
        inferred_confidence_factor=learning.inferred_confidence_factor,
        behaviour_sessions=learning.behaviour_sessions,
        behaviour_window_days=int(parse_duration(learning.behaviour_window) // 86400),
        retention=_retention(file.retention),
        recall=RecallBudget(**msgspec.structs.asdict(file.recall)),
        traces=TraceRetention(ttl_s=parse_duration(file.traces.ttl), max_count=file.traces.max_count),
        source_sha256=hashlib.sha256(text.encode()).hexdigest(),
    )


def _principal(raw: PrincipalSection) -> PrincipalRule:
    return PrincipalRule(
        name=raw.name,
        key_sha256=raw.key_sha256,
        org=raw.org,
        default_user=raw.default_user,
        read=tuple(raw.read),
        write=tuple(raw.write),
        projects=tuple(raw.projects),
        users=(raw.default_user,) if raw.users is UNSET else tuple(raw.users),
        admin=raw.admin,
    )


def _retention(raw: RetentionSection) -> Retention:
    defaults = Retention()
    ttl = (
        defaults.ttl
        if raw.ttl is UNSET
        else tuple(
            TtlRule(
                ttl_s=parse_lifetime(rule.ttl),
                kind=None if rule.kind is None else rule.kind.value,
                evidence=None if rule.evidence is None else rule.evidence.value,
                scope=rule.scope,
            )
            for rule in raw.ttl
        )
    )
    return Retention(
        ttl=ttl,
        max_per_scope=raw.max_per_scope,
        eviction=tuple(raw.eviction),
        superseded_versions=raw.superseded_versions,
        superseded_for_s=defaults.superseded_for_s
        if raw.superseded_for is UNSET
        else parse_lifetime(raw.superseded_for),
    )


def _given(section: msgspec.Struct) -> dict[str, str]:
    """The fields a file set (the others are UNSET)."""
    return {k: v for k, v in msgspec.structs.asdict(section).items() if v is not UNSET}


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
