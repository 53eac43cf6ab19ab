"""The rule extractor on real spaCy: which sentence shapes become which slots, and which must not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from extractors import RuleExtractor, Turn, load_rules
from extractors.rules import parse_rule
from proxy.errors import ConfigError


@pytest.fixture(scope="module")
def extractor() -> RuleExtractor:
    return RuleExtractor()


def _slots(extractor: RuleExtractor, text: str) -> list[tuple[str | None, str]]:
    return [(c.key, c.value) for c in extractor.extract([Turn("user", text, 0)])]


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ("This repo uses pnpm, not npm.", ("package_manager", "pnpm")),
        ("We use yarn in this project.", ("package_manager", "yarn")),
        ("We switched from pnpm to yarn last week.", ("package_manager", "yarn")),
        ("Our package manager is bun.", ("package_manager", "bun")),
        ("We manage dependencies with uv.", ("python_package_manager", "uv")),
        ("Always run pnpm test before opening a pull request.", ("pre_pr_check", "pnpm test")),
        ("Please run make lint before you open a PR.", ("pre_pr_check", "make lint")),
        ("Run the unit tests before committing.", ("pre_commit_check", "the unit tests")),
        ("The test command is make test.", ("test_command", "make test")),
        ("Run cargo clippy to lint.", ("lint_command", "cargo clippy")),
        ("Tests are run with tox -e py312.", ("test_command", "tox -e py312")),
        ("We're on Python 3.12.", ("python_version", "3.12")),
        ("The service runs on Node 20.", ("node_version", "20")),
        ("Our frontend is built with React.", ("frontend_framework", "React")),
        ("We use Postgres for everything.", ("database", "postgres")),
        ("We use Sentry for error tracking.", ("tool_for:error_tracking", "Sentry")),
        ("I prefer concise bullet points.", (None, "concise bullet points")),
        ("I'd prefer answers in German.", (None, "answers in German")),
        ("Please answer in Spanish.", ("response_language", "Spanish")),
        ("Keep your answers short.", ("response_length", "short")),
        ("My name is Dana Smith.", ("name", "Dana Smith")),
        ("I'm a senior backend engineer.", ("role", "senior backend engineer")),
        ("My timezone is UTC+2.", ("timezone", "UTC+2")),
        ("Never commit directly to main.", (None, "Never commit directly to main")),
        (
            "From now on, write commit messages in the imperative mood.",
            (None, "write commit messages in the imperative mood"),
        ),
    ],
)
def test_shapes_the_rules_catch(extractor: RuleExtractor, text: str, slot: tuple[str | None, str]) -> None:
    found = _slots(extractor, text)
    assert slot in [(k, v if k != "database" else v.lower()) for k, v in found], found


@pytest.mark.parametrize(
    "text",
    [
        "Do we use pnpm?",
        "Should I run pnpm test before opening a pull request?",
        "If we used yarn, would installs be faster?",
        "We might switch to bun next quarter.",
        "We don't use npm here.",
        "We no longer use npm.",
        "We used to use npm.",
        "My colleague said they use yarn.",
        "He prefers tabs.",
        "According to the docs, the project uses yarn.",
        "Thanks, that worked!",
        "I want to fix this bug.",
        "What's the weather like today?",
        '"We use yarn" is what the old README said.',
        "> This repo uses yarn.",
        "```\nnpm install # we use npm\n```",
        "Imagine a project that uses bun.",
    ],
)
def test_shapes_that_must_yield_nothing(extractor: RuleExtractor, text: str) -> None:
    assert _slots(extractor, text) == []


def test_one_message_can_hold_several_facts(extractor: RuleExtractor) -> None:
    text = "This repo uses pnpm, not npm. Always run pnpm test before opening a pull request."
    assert _slots(extractor, text) == [("package_manager", "pnpm"), ("pre_pr_check", "pnpm test")]


def test_candidates_keep_their_source_span_and_rule(extractor: RuleExtractor) -> None:
    (candidate,) = extractor.extract([Turn("user", "Thanks! This repo uses pnpm, not npm.", 3)])
    assert candidate.span in "Thanks! This repo uses pnpm, not npm."
    assert candidate.turn.index == 3
    assert candidate.rule_id == "project.package_manager.js.v1"
    assert candidate.extractor == "mnemo.rules.v1"
    assert candidate.scope_level == "project"


def test_the_injected_memory_block_is_never_extracted(extractor: RuleExtractor) -> None:
    text = "<mnemo-memory>\n- [project x | stated | 2026-01-01] Project x uses bun.\n</mnemo-memory>\nok"
    assert _slots(extractor, text) == []


def test_batches_keep_their_own_results(extractor: RuleExtractor) -> None:
    results = extractor.extract_many(
        [[Turn("user", "We use yarn.", 0)], [Turn("user", "hello", 0)], [Turn("user", "I prefer tabs.", 0)]]
    )
    assert [[c.value for c in r] for r in results] == [["yarn"], [], ["tabs"]]


def test_shipped_rules_load_and_have_unique_versioned_ids() -> None:
    rules = load_rules()
    assert len(rules) >= 20
    assert len({r.qualified_id for r in rules}) == len(rules)
    assert all(r.qualified_id.endswith(f".v{r.version}") for r in rules)


def _rule(**changes: object) -> dict[str, object]:
    base: dict[str, object] = {
        "id": "x",
        "version": 1,
        "kind": "semantic",
        "scope": "project",
        "key": "k",
        "pattern": "uses (?P<value>\\w+)",
        "text": ["{subject} uses {value}."],
        "confidence": 0.8,
    }
    base.update(changes)
    return base


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"colour": "red"}, "unknown field"),
        ({"version": "1"}, "wrong type"),
        ({"kind": "opinion"}, "kind must be"),
        ({"pattern": "uses (\\w+)"}, "named group 'value'"),
        ({"pattern": "uses (?P<value>"}, "does not compile"),
        ({"text": ["{subject} uses {thing}."]}, "unknown names"),
        ({"text": ["It uses {value}."]}, "name its subject"),
        ({"confidence": 2}, "between 0 and 1"),
        ({"guards": ["vibes"]}, "unknown guard"),
    ],
)
def test_rule_schema_is_strict(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_rule(_rule(**changes), "rules.jsonl:1")


def test_a_bad_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "rules.jsonl"
    path.write_text(json.dumps(_rule()) + "\n" + json.dumps(_rule(id="y", kind="opinion")) + "\n")
    with pytest.raises(ConfigError, match=r"rules\.jsonl:2: kind must be"):
        load_rules(path)
