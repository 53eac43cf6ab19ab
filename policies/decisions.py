"""Pure decisions over candidates: no I/O, no clock (``now`` is passed in)."""

from __future__ import annotations

import enum
import functools
import hashlib
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from importlib import resources

import msgspec

from core.model import Evidence, Memory
from core.scope import DEFAULT_USER, SCOPE_LEVELS, Scope, level_of, scope_tag
from extractors import SUBJECT_MARK, Candidate
from policies.datafile import decode_lines
from policies.model import Policy
from policies.secrets import REDACTED, contains_secret, secret_matcher


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
    confidence: float
    valid_from: datetime | None = None
    previous_text: str | None = None  # the replaced value's sentence, when the statement named it
    status: str = "active"  # "quarantined": stored for review, never recalled


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


# Text that tries to steer the agent. In what a model or tool produced, it makes a record doubtful.
INSTRUCTION_LIKE = re.compile(
    r"(?i)\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:instructions?|rules?|prompts?|above|prior|previous)\b"
    r"|\b(?:from\s+now\s+on|going\s+forward|henceforth|from\s+this\s+point|new\s+(?:rule|instructions?)"
    r"|system\s+(?:note|override|prompt)|you\s+(?:must|are\s+now)|permanent\s+instruction)\b"
    r"|\b(?:always|never)\s+(?:send|email|forward|upload|include|copy|cc|post|share|exfiltrate|reveal|tell|"
    r"mention|respond|reply|trust|bypass|disable|install|download|run|use|push|deploy|set|skip|ask|add)\b"
    r"|\[/?INST\]|</?system>|\bexfiltrat"
)
_NORMALISE = re.compile(r"[^\w]+", re.UNICODE)
_PROTECTIVE = re.compile(
    r"(?i)\b(?:never|don'?t|do\s+not|no|not|avoid|stop|shouldn'?t|must\s+not|mustn'?t|without)\b[^.!?\n]{0,40}$"
)


class DangerousRule(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One line of ``policies/patterns/dangerous.jsonl``."""

    id: str
    pattern: str
    what: str


@functools.cache
def dangerous_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """What a remembered rule must never tell the agent, whoever said it
    (``policies/patterns/dangerous.jsonl``): send data out, run a downloaded script, trust tool
    output over the user, weaken security, put secrets in the open."""
    name = "policies/patterns/dangerous.jsonl"
    text = resources.files("policies").joinpath("patterns/dangerous.jsonl").read_text(encoding="utf-8")
    says = {"": "fields are id, pattern, what"}
    return tuple(
        (rule.id, re.compile(rule.pattern)) for _, rule in decode_lines(text, name, DangerousRule, says)
    )


def dangerous(text: str) -> str | None:
    """The kind of harm a rule's text asks for, or None. "never send .env to anyone" protects."""
    for kind, pattern in dangerous_patterns():
        for match in pattern.finditer(text):
            if not _PROTECTIVE.search(text[max(0, match.start() - 60) : match.start()]):
                return kind
    return None


def fingerprint(
    scope: Scope, kind: str, key: str | None, value: str, text: str, qualifier: str | None = None
) -> str:
    """Same fact in the same scope, same fingerprint.

    Slot facts count by key, qualifier and value; free-form ones by their text.
    """
    body = f"{key}@{qualifier or ''}={value}" if key else text
    normal = _NORMALISE.sub(" ", body.lower()).strip()
    tags = "|".join(scope_tag(v) for v in scope.as_dict().values())
    return hashlib.sha256(f"{tags}|{kind}|{normal}".encode()).hexdigest()[:32]


_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_UNIT_DAYS = {"day": 1, "week": 7, "sprint": 14, "month": 30, "quarter": 91, "year": 365}


def valid_from(when: str | None, now: datetime) -> datetime:
    """When a fact began to hold, from a phrase like "last week" or "3 days ago"; else ``now``.

    Day precision: "last week" is seven days before ``now``, not a calendar week.
    """
    if not when:
        return now
    words = when.lower().split()
    if words[0] == "yesterday":
        return now - timedelta(days=1)
    if words[0] == "last" and len(words) == 2:
        return now - timedelta(days=_UNIT_DAYS.get(words[1], 0))
    if words[-1] == "ago" and len(words) == 3:
        count = int(words[0]) if words[0].isdigit() else _NUMBERS.get(words[0], 1)
        return now - timedelta(days=count * _UNIT_DAYS.get(words[1].rstrip("s"), 0))
    return now


def decide(
    candidates: list[Candidate],
    request: Scope,
    policy: Policy,
    now: datetime,
    writable: frozenset[str] = frozenset(SCOPE_LEVELS),
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
        said = (candidate.span, candidate.value, candidate.text_template)
        if any(contains_secret(text, matcher) for text in said):
            refused.append(Refusal(candidate, "contains a secret"))
            continue
        if any(REDACTED in text for text in (candidate.value, candidate.text_template)):
            refused.append(Refusal(candidate, "held a secret, cut before it was queued"))
            continue
        level = policy.write_scope.get(candidate.kind, "rule")
        scope = write_scope(candidate.scope_level if level == "rule" else level, request)
        if level_of(scope) not in writable:
            refused.append(Refusal(candidate, f"the caller may not write {level_of(scope)} memories"))
            continue
        text = candidate.text_template.replace(SUBJECT_MARK, subject_label(scope))
        doubtful = (
            policy.quarantine_instruction_like
            and evidence != "stated"
            and INSTRUCTION_LIKE.search(f"{candidate.sentence} {candidate.span}") is not None
        ) or dangerous(f"{candidate.sentence} {candidate.span} {candidate.value}") is not None
        kept.append(
            Decision(
                status="quarantined" if doubtful else "active",
                candidate=candidate,
                evidence=evidence,
                scope=scope,
                text=text,
                fingerprint=fingerprint(
                    scope, candidate.kind, candidate.key, candidate.value, text, candidate.qualifier
                ),
                confidence=candidate.confidence
                * (policy.inferred_confidence_factor if evidence == "inferred" else 1.0),
                valid_from=valid_from(candidate.when, now),
                previous_text=candidate.previous_text_template.replace(SUBJECT_MARK, subject_label(scope))
                if candidate.previous_text_template
                else None,
                policy=policy.label,
                observed_at=now,
            )
        )
    return kept, refused


class Action(enum.Enum):
    INSERT = "insert"
    MERGE = "merge"  # the same fact again: count it, keep one record
    SUPERSEDE = "supersede"  # a new value for the slot: a new version, the old one closed
    REFUSE = "refuse"


@dataclass(frozen=True, slots=True)
class Reconciliation:
    action: Action
    existing: Memory | None = None
    confidence: float | None = None  # new confidence of the existing record, on a merge
    reason: str = ""


def _same_value(a: str | None, b: str | None) -> bool:
    return (a or "").strip().lower() == (b or "").strip().lower()


def reinforced(confidence: float, ceiling: float = 0.95) -> float:
    """A repeated inference grows more certain, never to certainty."""
    return round(min(ceiling, confidence + (1 - confidence) * 0.25), 4)


def reconcile(
    new: Memory, current: Memory | None, nearest: Memory | None, similarity: float | None, policy: Policy
) -> Reconciliation:
    """What writing ``new`` means given the slot's current record (keyed facts) or the closest record of
    the same scope and kind (free-form facts). Pure."""
    stated = {Evidence.STATED, Evidence.ADMIN, Evidence.IMPORTED}
    if new.key is not None:
        if current is None:
            return Reconciliation(Action.INSERT)
        if new.evidence == Evidence.INFERRED and current.evidence in stated:
            if _same_value(new.value, current.value):
                return Reconciliation(Action.MERGE, current)
            return Reconciliation(
                Action.REFUSE, current, reason="an inference never supersedes a stated fact"
            )
        if _same_value(new.value, current.value):
            if current.evidence == Evidence.INFERRED and new.evidence in stated:
                return Reconciliation(Action.SUPERSEDE, current, reason="stated by the user")
            if current.evidence == Evidence.INFERRED:
                return Reconciliation(Action.MERGE, current, confidence=reinforced(current.confidence))
            return Reconciliation(Action.MERGE, current)
        return Reconciliation(Action.SUPERSEDE, current)
    if nearest is not None and similarity is not None and similarity >= policy.near_duplicate_similarity:
        confidence = reinforced(nearest.confidence) if nearest.evidence == Evidence.INFERRED else None
        return Reconciliation(Action.MERGE, nearest, confidence=confidence)
    return Reconciliation(Action.INSERT)
