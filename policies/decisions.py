"""Pure decisions over candidates: no I/O, no clock (``now`` is passed in)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime

from extractors import SUBJECT_MARK, Candidate
from policies.model import Policy
from policies.secrets import contains_secret, secret_matcher
from proxy.scope import DEFAULT_USER, Scope, scope_tag


@dataclass(frozen=True, slots=True)
class Decision:
    """Keep this candidate, as this evidence, in this scope, with this text."""

    candidate: Candidate
    evidence: str
    scope: Scope
    text: str
    fingerprint: str
    policy: str
    observed_at: datetime


@dataclass(frozen=True, slots=True)
class Refusal:
    candidate: Candidate
    reason: str


def write_scope(level: str, request: Scope) -> Scope:
    """Where a fact of this level is written, given the request it came from.

    A project fact with no project known falls back to the user: better kept for the user than
    spread to the whole org.
    """
    if level == "org":
        return Scope(org=request.org)
    if level == "project" and request.project is not None:
        return Scope(org=request.org, project=request.project)
    if level == "session" and request.session is not None:
        return Scope(org=request.org, user=request.user, session=request.session)
    return Scope(org=request.org, user=request.user)


def subject_label(scope: Scope) -> str:
    """The subject named in a stored sentence, so it retrieves well and reads on its own."""
    if scope.session is not None:
        return "In this session, the user"
    if scope.project is not None:
        return f"Project {scope.project}"
    if scope.user is not None and scope.user != DEFAULT_USER:
        return f"User {scope.user}"
    if scope.user is not None:
        return "The user"
    return f"Organisation {scope.org}"


_NORMALISE = re.compile(r"[^\w]+", re.UNICODE)


def fingerprint(scope: Scope, kind: str, key: str | None, value: str, text: str) -> str:
    """Same fact in the same scope -> same fingerprint. Slot facts by key and value, others by text."""
    body = f"{key}={value}" if key else text
    normal = _NORMALISE.sub(" ", body.lower()).strip()
    tags = "|".join(scope_tag(v) for v in scope.as_dict().values())
    return hashlib.sha256(f"{tags}|{kind}|{normal}".encode()).hexdigest()[:32]


def decide(
    candidates: list[Candidate], request: Scope, policy: Policy, now: datetime
) -> tuple[list[Decision], list[Refusal]]:
    matcher = secret_matcher(policy.secret_patterns)
    kept: list[Decision] = []
    refused: list[Refusal] = []
    for candidate in candidates:
        evidence = policy.role_evidence.get(candidate.turn.role)
        if evidence is None:
            refused.append(Refusal(candidate, f"role {candidate.turn.role!r} produces no memories"))
            continue
        if candidate.confidence < policy.min_confidence:
            refused.append(Refusal(candidate, "confidence below the policy minimum"))
            continue
        if any(
            contains_secret(text, matcher)
            for text in (candidate.span, candidate.value, candidate.text_template)
        ):
            refused.append(Refusal(candidate, "contains a secret"))
            continue
        scope = write_scope(candidate.scope_level, request)
        text = candidate.text_template.replace(SUBJECT_MARK, subject_label(scope))
        kept.append(
            Decision(
                candidate=candidate,
                evidence=evidence,
                scope=scope,
                text=text,
                fingerprint=fingerprint(scope, candidate.kind, candidate.key, candidate.value, text),
                policy=policy.label,
                observed_at=now,
            )
        )
    return kept, refused
