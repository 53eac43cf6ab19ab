"""Policy files: strict schema with file and line in every error, `mnemo policy check`, the shipped
files, retention as pure functions, and hot reload that keeps the last good policy."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.model import Evidence, Kind, Status
from core.scope import Scope
from harness.helpers import memory_record
from policies.loader import PolicyHolder, load_policy, parse_policy
from policies.model import Policy, Retention, TtlRule
from policies.retention import eviction_order, expires_at, over_limit
from policies.schema import PolicyError

ROOT = Path(__file__).resolve().parent.parent
NOW = datetime(2026, 11, 29, tzinfo=UTC)
MINIMAL = "name: test\nversion: 1\n"


def problems(text: str) -> list[str]:
    with pytest.raises(PolicyError) as caught:
        parse_policy(text, "p.yaml")
    return caught.value.problems


def test_minimal_policy_takes_the_defaults() -> None:
    policy = parse_policy(MINIMAL, "p.yaml")
    assert policy.name == "test" and policy.mode == "local"
    assert policy.recall == Policy().recall and policy.retention == Retention()
    assert policy.label.startswith("test@") and policy.source_sha256 is not None


def test_unknown_key_names_file_line_and_field() -> None:
    assert problems(MINIMAL + "recall:\n  max_memories: 5\n  max_memorys: 6\n") == [
        "p.yaml:5: recall.max_memorys: unknown field (known: max_memories, max_tokens, min_score, "
        "min_similarity, placement, standing_max_memories, standing_max_tokens)"
    ]


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (
            "recall:\n  max_memories: lots\n",
            "p.yaml:4: recall.max_memories: expected a whole number, got 'lots'",
        ),
        ("recall:\n  min_score: 2\n", "p.yaml:4: recall.min_score: must be at most 1"),
        ("mode: open\n", "p.yaml:3: mode: must be one of local, keys; got 'open'"),
        (
            "learning:\n  roles:\n    tool: stated\n    user: believed\n",
            "p.yaml:6: learning.roles.user: must be one of stated, inferred; got 'believed'",
        ),
        ("retention:\n  ttl:\n    - {kind: episodic, ttl: soon}\n", "retention.ttl[0].ttl: not a duration"),
        ("learning:\n  secret_patterns: ['(unclosed']\n", "p.yaml:4: learning.secret_patterns[0]:"),
        ("scopes:\n  infer_project_from_prompt: maybe\n", "expected true or false, got 'maybe'"),
        ("mode: keys\n", "keys mode needs at least one principal"),
    ],
)
def test_wrong_values_are_named(extra: str, expected: str) -> None:
    found = problems(MINIMAL + extra)
    assert any(expected in problem for problem in found), found


def test_every_problem_is_reported_at_once() -> None:
    found = problems("name: x\nversion: 1\ncolour: red\nrecall: {max_tokens: -1}\n")
    assert len(found) == 2


def test_missing_required_fields_and_bad_yaml() -> None:
    assert problems("version: 1\n") == ["p.yaml:1: name: missing required field"]
    assert problems("name: [unclosed\n")[0].startswith("p.yaml:")


def test_shipped_policies_are_valid() -> None:
    default = load_policy(ROOT / "policies" / "default.yaml")
    assert default.name == "default" and default.retention.ttl[0] == TtlRule(ttl_s=86400.0, scope="session")
    for example in (ROOT / "policies" / "examples").glob("*.yaml"):
        assert load_policy(example).name


def test_policy_check_command(tmp_path: Path) -> None:
    good = subprocess.run(
        [sys.executable, "-m", "proxy.cli", "policy", "check", str(ROOT / "policies" / "default.yaml")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert good.returncode == 0 and "ok" in good.stdout
    bad_file = tmp_path / "bad.yaml"
    bad_file.write_text(MINIMAL + "recall:\n  max_memories: lots\n")
    bad = subprocess.run(
        [sys.executable, "-m", "proxy.cli", "policy", "check", str(bad_file)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 1
    assert f"{bad_file}:4: recall.max_memories: expected a whole number" in bad.stderr


def test_ttl_rules_first_match_wins_and_pins_never_expire() -> None:
    policy = Policy(
        retention=Retention(
            ttl=(
                TtlRule(ttl_s=60, scope="session"),
                TtlRule(ttl_s=3600, kind="episodic"),
                TtlRule(ttl_s=None, evidence="stated"),
            )
        )
    )
    session = memory_record(Scope("o", user="u", session="s"), "x")
    episode = memory_record(Scope("o", project="p"), "x", kind=Kind.EPISODIC, evidence=Evidence.INFERRED)
    stated = memory_record(Scope("o", project="p"), "x")
    inferred = memory_record(Scope("o", project="p"), "x", evidence=Evidence.INFERRED)
    assert expires_at(session, policy, NOW) == NOW + timedelta(seconds=60)
    assert expires_at(episode, policy, NOW) == NOW + timedelta(seconds=3600)
    assert expires_at(stated, policy, NOW) is None
    assert expires_at(inferred, policy, NOW) is None  # no rule matched
    assert expires_at(session.with_changes(extra={"pinned": True}), policy, NOW) is None


def test_eviction_goes_in_the_stated_order() -> None:
    scope = Scope("o", project="p")
    old = memory_record(scope, "old", observed_at=NOW - timedelta(days=10))
    new = memory_record(scope, "new", observed_at=NOW)
    superseded = memory_record(scope, "superseded", status=Status.SUPERSEDED, observed_at=NOW)
    inferred = memory_record(scope, "inferred", evidence=Evidence.INFERRED, observed_at=NOW)
    pinned = memory_record(scope, "pinned", observed_at=NOW - timedelta(days=99), extra={"pinned": True})
    policy = Policy(retention=Retention(max_per_scope=3, eviction=("superseded", "inferred", "oldest")))
    order = [m.text for m in eviction_order([new, old, inferred, superseded, pinned], policy)]
    assert order == ["superseded", "inferred", "old", "new"]
    assert [m.text for m in over_limit([new, old, inferred, superseded, pinned], policy)] == [
        "superseded",
        "inferred",
    ]


def test_hot_reload_refuses_a_bad_edit_and_keeps_the_last_good(tmp_path: Path) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text(MINIMAL + "recall:\n  max_memories: 5\n")
    holder = PolicyHolder.from_file(path)
    assert holder.policy.recall.max_memories == 5
    path.write_text(MINIMAL + "recall:\n  max_memories: many\n")
    assert holder.refresh() is False
    assert holder.policy.recall.max_memories == 5 and "max_memories" in (holder.error or "")
    path.write_text(MINIMAL + "recall:\n  max_memories: 7\n")
    assert holder.refresh() is True
    assert holder.policy.recall.max_memories == 7 and holder.error is None
