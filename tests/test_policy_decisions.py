"""Policy decisions over candidates: pure, with `now` passed in."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.scope import Scope
from extractors import SUBJECT_MARK, Candidate, Turn
from policies import DEFAULT_POLICY, Policy, decide, fingerprint, subject_label, write_scope

NOW = datetime(2026, 11, 29, tzinfo=UTC)
REQUEST = Scope(org="local", project="acme-web", user="dana", session="s1")


def candidate(
    level: str = "project",
    role: str = "user",
    span: str = "We use yarn.",
    value: str = "yarn",
    confidence: float = 0.9,
) -> Candidate:
    return Candidate(
        kind="semantic",
        scope_level=level,
        key="package_manager",
        value=value,
        text_template=f"{SUBJECT_MARK} uses {value}.",
        span=span,
        turn=Turn(role, span, 0),
        confidence=confidence,
        rule_id="r.v1",
        extractor="mnemo.rules.v1",
    )


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        ("project", Scope("local", project="acme-web")),
        ("user", Scope("local", user="dana")),
        ("session", Scope("local", user="dana", session="s1")),
        ("org", Scope("local")),
    ],
)
def test_write_scope_by_level(level: str, expected: Scope) -> None:
    assert write_scope(level, REQUEST) == expected


def test_project_fact_without_a_project_stays_with_the_user() -> None:
    assert write_scope("project", Scope("local", user="dana")) == Scope("local", user="dana")


def test_decide_names_the_subject_and_the_policy() -> None:
    kept, refused = decide([candidate()], REQUEST, DEFAULT_POLICY, NOW)
    assert refused == []
    (decision,) = kept
    assert decision.text == "Project acme-web uses yarn."
    assert decision.evidence == "stated"
    assert decision.policy == DEFAULT_POLICY.label
    assert decision.observed_at == NOW


@pytest.mark.parametrize("role", ["system", "tool", "developer", "context"])
def test_roles_without_evidence_produce_nothing(role: str) -> None:
    kept, refused = decide([candidate(role=role)], REQUEST, DEFAULT_POLICY, NOW)
    assert kept == [] and "produces no memories" in refused[0].reason


def test_assistant_turns_give_inferred_records_with_less_confidence() -> None:
    (decision,), _ = decide([candidate(role="assistant", confidence=0.9)], REQUEST, DEFAULT_POLICY, NOW)
    assert decision.evidence == "inferred"
    assert decision.confidence == pytest.approx(0.9 * DEFAULT_POLICY.inferred_confidence_factor)


@pytest.mark.parametrize(
    "secret",
    [
        "sk-proj-abcdefghijklmnopqrstuvwx",
        "ghp_abcdefghijklmnopqrstuvwxyz0123",
        "AKIAABCDEFGHIJKLMNOP",
        "postgres://admin:hunter2@db.internal/app",
        "password is hunter22",
        "Bearer abcdefghijklmnopqrstu",
    ],
)
def test_secrets_are_refused(secret: str) -> None:
    kept, refused = decide([candidate(span=f"We use {secret}", value=secret)], REQUEST, DEFAULT_POLICY, NOW)
    assert kept == [] and refused[0].reason == "contains a secret"


def test_policy_patterns_add_secrets_and_low_confidence_is_refused() -> None:
    policy = Policy(secret_patterns=(r"ACME-\d{6}",), min_confidence=0.8)
    kept, refused = decide(
        [candidate(span="id ACME-123456"), candidate(confidence=0.5)], REQUEST, policy, NOW
    )
    assert kept == [] and [r.reason for r in refused] == [
        "contains a secret",
        "confidence below the policy minimum",
    ]


def test_fingerprints_follow_scope_slot_and_value() -> None:
    project = Scope("local", project="p")
    assert fingerprint(project, "semantic", "pm", "yarn", "a") == fingerprint(
        project, "semantic", "pm", "Yarn", "b"
    )
    assert fingerprint(project, "semantic", "pm", "yarn", "a") != fingerprint(
        project, "semantic", "pm", "pnpm", "a"
    )
    assert fingerprint(project, "semantic", "pm", "yarn", "a") != fingerprint(
        Scope("local", project="q"), "semantic", "pm", "yarn", "a"
    )
    assert fingerprint(project, "procedural", None, "", "Never push to main.") == fingerprint(
        project, "procedural", None, "", "never push to main"
    )


def test_subject_labels() -> None:
    assert subject_label(Scope("o", project="p")) == "Project p"
    assert subject_label(Scope("o", user="dana")) == "User dana"
    assert subject_label(Scope("o", user="default")) == "The user"
    assert subject_label(Scope("o")) == "Organisation o"
