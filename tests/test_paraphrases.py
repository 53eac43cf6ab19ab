"""Issue 3's four scenarios in other words: a first pass on these found 16 of 33; they now guard
the rules that were added for them. (New paraphrases belong in a fresh file first, scored before
any rule is changed.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.model import Evidence, Kind, Memory, Source
from core.scope import Scope
from extractors import ClauseExtractor, Turn
from extractors.commands import forget_requests
from extractors.vocabulary import load_vocabulary, slots_in
from proxy.forget import matches

CASES = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "paraphrases.jsonl").read_text().splitlines()
]


def _ids(case: dict[str, str]) -> str:
    return f"{case['scenario']}: {case['text']}"


@pytest.mark.parametrize("case", [c for c in CASES if c["scenario"] != "forget"], ids=_ids)
def test_statements(extractor: ClauseExtractor, case: dict[str, str]) -> None:
    found = [(c.key, c.value, c.qualifier) for c in extractor.extract([Turn(case["role"], case["text"], 0)])]
    if case["scenario"] == "switch":
        assert ("package_manager", "yarn", None) in [(k, v.lower(), q) for k, v, q in found]
        assert all(value != "pnpm" for _, value, _ in found)
    elif case["scenario"] == "exception":
        assert any(
            key == "package_manager" and value == "npm" and qualifier for key, value, qualifier in found
        )
    else:
        assert ("python_version", "3.12", None) in found


YARN = Memory(
    id="m",
    kind=Kind.SEMANTIC,
    text="Project p uses yarn as its JavaScript package manager.",
    scope=Scope("local", project="p"),
    evidence=Evidence.STATED,
    confidence=0.9,
    source=Source("user", "r", 0, "", "we use yarn"),
    observed_at=__import__("datetime").datetime.now(),
    key="package_manager",
    value="yarn",
)


@pytest.mark.parametrize("case", [c for c in CASES if c["scenario"] == "forget"], ids=_ids)
def test_forget_commands_reach_the_yarn_record(case: dict[str, str]) -> None:
    (what,) = forget_requests(case["text"])
    slots = slots_in(load_vocabulary(), what)
    words = {w.lower() for w in what.replace(".", " ").split()} - {
        "we",
        "use",
        "the",
        "thing",
        "us",
        "using",
        "anymore",
        "that",
    }
    assert matches(YARN, slots, words)
