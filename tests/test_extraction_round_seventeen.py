"""Shapes of language learned in round seventeen (bench/RESULTS.md), read off blind sets of hobbyists'
rambling messages, agents' bullet-list summaries and terse engineers' rundowns: each test has a case
that must be read one way and one that must not; all fail on the round's start (c7c7917). An agent's
own summary heading, an agent's change told without its "I", a symptom beside a request for help, a
"whenever" clause alone, a pasted git log, a likeness ("like im 5"), and the speaker's own clause
inside a question, a name in parentheses after a place, a pasted CI log, an agent's change in its
own case."""

from __future__ import annotations

from extractors import ClauseExtractor, Turn
from extractors.text import learnable_lines
from tests.test_extraction import facts


def stored(extractor: ClauseExtractor, text: str, role: str = "user") -> str:
    return " | ".join(c.text_template for c in extractor.extract([Turn(role, text, 0)]))


def values(extractor: ClauseExtractor, text: str, key: str, role: str = "user") -> list[str]:
    return [c.value for c in extractor.extract([Turn(role, text, 0)]) if (c.key or "").split(":")[0] == key]


def test_an_agents_summary_heads_its_own_report(extractor: ClauseExtractor) -> None:
    summary = (
        "Summary of what I did:\n- upgraded the Unity project 2021.3 → 2022.3 LTS\n"
        "- switched the render pipeline to URP\n- verified the Android build on a Pixel 6"
    )
    said = stored(extractor, summary, "assistant")
    assert "2022.3 LTS" in said and "URP" in said
    recap = "Here's a summary of the changes:\n- Replaced requests with httpx in the client"
    assert "httpx" in stored(extractor, recap, "assistant")
    # the same heading over a user's paste still marks what follows as someone else's
    assert learnable_lines("Summary of the thread:\n- we use Rust for everything") == []
    assert "we use Rust for everything" in learnable_lines(
        "Summary of the thread:\n- we use Rust for everything", agent=True
    )


def test_an_agents_change_told_without_its_i(extractor: ClauseExtractor) -> None:
    said = (
        "Swapped state management from Provider to Riverpod 2 as requested. All screens migrated "
        "except Settings, which still uses Provider."
    )
    assert values(extractor, said, "state_management", "assistant") == ["Riverpod 2"]
    assert "logback 1.4.14" in stored(
        extractor, "Replaced log4j with logback 1.4.14, removed the log4j-core dep.", "assistant"
    )
    # a user's line that opens the same way is no agent's report
    assert (
        values(extractor, "Swapped state management from Provider to Riverpod 2?", "state_management") == []
    )


def test_a_symptom_beside_a_request_for_help_is_no_rule(extractor: ClauseExtractor) -> None:
    said = "our CI is github actions. the remote cache never hits on the build step, am i missing something"
    assert "rule" not in stored(extractor, said)
    assert "github actions" in stored(extractor, said)
    assert "rule" not in stored(extractor, "The humidity readings jump around every few mins, any idea why.")
    assert "rule" in stored(extractor, "releases always go out on tuesdays")


def test_a_whenever_clause_alone_says_nothing_of_the_speaker(extractor: ClauseExtractor) -> None:
    said = (
        "for my R package i do devtools::check() before every push, and devtools::document() "
        "whenever i touch the roxygen comments"
    )
    assert not any(
        c.text_template.lower().startswith("whenever") for c in extractor.extract([Turn("user", said, 0)])
    )
    assert "guitar" in stored(extractor, "i play guitar when i have time")


def test_a_pasted_git_log_is_not_the_speakers(extractor: ClauseExtractor) -> None:
    pasted = (
        "what does this mean\n\ncommit 9c1e4b2a7f\nAuthor: dana <dana@example.com>\n"
        "Date:   Tue Mar 5 14:02:11 2024\n\n    chore: always use redis for session cache"
    )
    assert extractor.extract([Turn("user", pasted, 0)]) == []
    assert "main" in stored(extractor, "we use pnpm\ncommit to main only after review")


def test_a_likeness_is_no_age(extractor: ClauseExtractor) -> None:
    assert values(extractor, "can you explain big O like im 5", "age") == []
    assert values(extractor, "im 34, a nurse in Leeds", "age") == ["34"]
    assert "five" in stored(extractor, "explain it like i'm five pls, always")


def test_the_speakers_own_clause_inside_a_question_is_no_rule(extractor: ClauseExtractor) -> None:
    said = 'the course i\'m following says "in this course we use yarn" but i only have npm, is that ok?'
    assert "rule" not in stored(extractor, said)
    assert "rule" in stored(extractor, "squash merge only")
    assert facts(extractor, "aisle seat always pls")


def test_a_name_in_parentheses_after_a_place_belongs_to_it(extractor: ClauseExtractor) -> None:
    assert values(extractor, "fyi i'm in NZ (Auckland) so my mornings are ur evenings", "home_city") == [
        "NZ (Auckland)"
    ]
    assert values(extractor, "i live in Porto (Portugal)", "home_city") == ["Porto (Portugal)"]
    # words in parentheses that are no name stay out of the value
    assert values(extractor, "i live in Porto (the north of Portugal)", "home_city") == ["Porto"]


def test_a_pasted_ci_log_is_not_the_speakers(extractor: ClauseExtractor) -> None:
    log = (
        "##[group]Run make lint\nruff check .\nsrc/util.py:12:1: F401 `os` imported but unused\n"
        "Found 1 error.\nmake: *** [lint] Error 1\n##[error]Process completed with exit code 2."
    )
    assert extractor.extract([Turn("user", log, 0)]) == []
    assert "make lint" in stored(extractor, "we lint with `make lint` before every push")


def test_an_agents_change_is_told_in_its_own_case(extractor: ClauseExtractor) -> None:
    said = "Moved the secrets out of settings.py into environment variables, loaded with django-environ."
    assert "the agent moved the secrets" in stored(extractor, said, "assistant")
    now = "Django now reads its config from environment variables."
    assert "Django now reads" in stored(extractor, now, "assistant")
