"""Retention as pure functions with ``now`` passed in: when a record expires, which records a full
scope gives up first."""

from __future__ import annotations

from datetime import datetime, timedelta

from core.model import Evidence, Memory, Status
from policies.model import Policy, TtlRule


def _level(memory: Memory) -> str:
    for level in ("session", "project", "user"):
        if getattr(memory.scope, level) is not None:
            return level
    return "org"


def _applies(rule: TtlRule, memory: Memory) -> bool:
    return (
        (rule.kind is None or rule.kind == memory.kind.value)
        and (rule.evidence is None or rule.evidence == memory.evidence.value)
        and (rule.scope is None or rule.scope == _level(memory))
    )


def expires_at(memory: Memory, policy: Policy, now: datetime) -> datetime | None:
    """When a record written (or confirmed) ``now`` expires under the policy; None: never.

    A pinned record (``extra.pinned``) never expires.
    """
    if memory.extra.get("pinned") in (True, "true", "1"):
        return None
    for rule in policy.retention.ttl:
        if _applies(rule, memory):
            return None if rule.ttl_s is None else now + timedelta(seconds=rule.ttl_s)
    return None


def superseded_expiry(policy: Policy, now: datetime) -> datetime | None:
    seconds = policy.retention.superseded_for_s
    return None if seconds is None else now + timedelta(seconds=seconds)


def eviction_order(memories: list[Memory], policy: Policy) -> list[Memory]:
    """The records of one scope in the order they go when the scope is over its maximum.

    Each name in ``retention.eviction`` is a preference, applied in turn: superseded versions
    first, then inferences, then the oldest (by last seen), or the least seen. Pinned records
    never go.
    """
    candidates = [m for m in memories if m.extra.get("pinned") not in (True, "true", "1")]

    def rank(memory: Memory) -> tuple[object, ...]:
        keys: list[object] = []
        for preference in policy.retention.eviction:
            if preference == "superseded":
                keys.append(0 if memory.status is Status.SUPERSEDED else 1)
            elif preference == "inferred":
                keys.append(0 if memory.evidence is Evidence.INFERRED else 1)
            elif preference == "oldest":
                keys.append((memory.last_seen_at or memory.observed_at).timestamp())
            elif preference == "least_seen":
                keys.append(memory.seen_count)
        keys.append(memory.observed_at.timestamp())
        return tuple(keys)

    return sorted(candidates, key=rank)


def over_limit(memories: list[Memory], policy: Policy) -> list[Memory]:
    """Which records to evict so that the scope holds at most ``max_per_scope``."""
    excess = len(memories) - policy.retention.max_per_scope
    return eviction_order(memories, policy)[:excess] if excess > 0 else []
