"""Memory that stays true (issue 3), end to end through the proxy with the openai SDK as client:
supersession with history, exceptions, inferred facts, forgetting, lessons, episodes, near-duplicates."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import openai
import pytest

from harness.helpers import injected_block, jobs_added, openai_client, wait_drained, wait_until
from harness.processes import Store
from harness.upstream import UpstreamStub
from tests.conftest import RunningMnemo

pytestmark = pytest.mark.integration


def say(api: openai.OpenAI, *messages: tuple[str, str]) -> Any:
    chat: list[Any] = [{"role": role, "content": text} for role, text in messages]
    return api.chat.completions.with_raw_response.create(model="m", messages=chat)


def current(mnemo: RunningMnemo, project: str, key: str | None = None) -> list[dict[str, Any]]:
    records = mnemo.memories(project=project, status="active")
    return [r for r in records if key is None or r["key"] == key]


def test_a_new_value_supersedes_the_old_and_history_keeps_both(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("switch")
    api = openai_client(mnemo, project)
    say(api, ("user", "This repo uses pnpm."))
    wait_until(lambda: current(mnemo, project, "package_manager"))
    say(api, ("user", "We switched from pnpm to yarn last week."))
    (now_current,) = wait_until(
        lambda: [r for r in current(mnemo, project, "package_manager") if r["value"] == "yarn"]
    )
    assert [r["value"] for r in current(mnemo, project, "package_manager")] == ["yarn"]
    valid_from = datetime.fromisoformat(now_current["valid_from"])
    assert abs((datetime.now(UTC) - timedelta(days=7)) - valid_from) < timedelta(minutes=5)

    detail = httpx.get(f"{mnemo.url}/mnemo/v1/memories/{now_current['id']}").json()
    history = detail["history"]
    assert [(v["value"], v["status"], v["version"]) for v in history] == [
        ("pnpm", "superseded", 1),
        ("yarn", "active", 2),
    ]
    assert history[0]["superseded_by"] == history[1]["id"] and history[1]["supersedes"] == history[0]["id"]
    assert history[0]["valid_to"] is not None and history[1]["valid_to"] is None

    fresh_upstream.requests.clear()
    say(api, ("user", "How do I install the dependencies?"))
    block = injected_block(fresh_upstream.chat_requests()[-1]) or ""
    assert "uses yarn" in block and "pnpm" not in block


def test_switching_from_an_unknown_value_records_both_versions(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("moved")
    say(openai_client(mnemo, project), ("user", "We moved from npm to pnpm two weeks ago."))
    (record,) = wait_until(lambda: current(mnemo, project, "package_manager"))
    history = httpx.get(f"{mnemo.url}/mnemo/v1/memories/{record['id']}").json()["history"]
    assert [(v["value"], v["status"]) for v in history] == [("npm", "superseded"), ("pnpm", "active")]


def test_a_qualified_exception_lives_beside_the_general_rule(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("exception")
    api = openai_client(mnemo, project)
    say(api, ("user", "This repo uses pnpm, not npm."))
    wait_until(lambda: current(mnemo, project, "package_manager"))
    say(api, ("user", "In the docs/ folder we use npm."))
    records = wait_until(
        lambda: (
            len(current(mnemo, project, "package_manager")) == 2
            and current(mnemo, project, "package_manager")
        )
    )
    by_value = {r["value"]: r for r in records}
    assert by_value["pnpm"]["qualifier"] is None
    assert by_value["npm"]["qualifier"] == "in docs/"
    assert all(r["status"] == "active" and r["superseded_by"] is None for r in records)
    say(api, ("user", "For hotfix branches skip the tests."))
    hotfix = wait_until(lambda: [r for r in current(mnemo, project) if r["kind"] == "procedural"])
    assert hotfix[0]["qualifier"] == "for hotfix branches"

    fresh_upstream.requests.clear()
    say(api, ("user", "Which package manager should I use for the docs?"))
    block = injected_block(fresh_upstream.chat_requests()[-1]) or ""
    assert "uses pnpm" in block
    assert "In docs/: Project" in block and "uses npm" in block
    assert "For hotfix branches" in block


def test_an_assistant_fact_is_inferred_and_a_user_statement_overrides_it(
    mnemo: RunningMnemo, store: Store, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("inferred")
    api = openai_client(mnemo, project)
    fresh_upstream.reply = "Done: I've upgraded the project to Python 3.12 and refreshed the lockfile."
    say(api, ("user", "Please bring the runtime up to date."))
    (inferred,) = wait_until(lambda: current(mnemo, project, "python_version"))
    assert (inferred["value"], inferred["evidence"], inferred["source"]["role"]) == (
        "3.12",
        "inferred",
        "assistant",
    )
    assert inferred["confidence"] < 0.8

    fresh_upstream.requests.clear()
    fresh_upstream.reply = "Sure."
    say(api, ("user", "What Python version are we on?"))
    assert "| inferred |" in (injected_block(fresh_upstream.chat_requests()[-1]) or "")

    say(api, ("user", "We're on Python 3.11, actually."))
    (stated,) = wait_until(
        lambda: [r for r in current(mnemo, project, "python_version") if r["value"] == "3.11"]
    )
    assert stated["evidence"] == "stated" and stated["supersedes"] == inferred["id"]

    # and an inference never supersedes what the user stated
    fresh_upstream.reply = "I've upgraded the project to Python 3.13."
    added = jobs_added(store.url)
    say(api, ("user", "Anything else to upgrade?"))
    wait_drained(store.url, added + 1)
    assert [r["value"] for r in current(mnemo, project, "python_version")] == ["3.11"]


def test_a_repeated_inference_gains_confidence(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("repeat")
    api = openai_client(mnemo, project)
    fresh_upstream.reply = "I've migrated the project to Node 22."
    say(api, ("user", "Update node please."))
    (first,) = wait_until(lambda: current(mnemo, project, "node_version"))
    say(api, ("user", "Check the runtime again."))
    again = wait_until(lambda: [r for r in current(mnemo, project, "node_version") if r["seen_count"] == 2])
    assert len(current(mnemo, project, "node_version")) == 1
    assert again[0]["confidence"] > first["confidence"]


def test_forget_removes_records_from_recall_and_listing_at_once(
    mnemo: RunningMnemo, store: Store, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("forget")
    api = openai_client(mnemo, project)
    say(api, ("user", "We use yarn. We use Sentry for error tracking."))
    wait_until(lambda: len(current(mnemo, project)) == 2)
    fresh_upstream.requests.clear()
    response = say(api, ("user", "Forget that we use yarn."))
    assert response.headers["x-mnemo-forgotten"] == "1"
    # this very request no longer carries it
    assert "yarn" not in (injected_block(fresh_upstream.chat_requests()[-1]) or "")
    assert [r["value"] for r in mnemo.memories(project=project)] == ["Sentry"]
    fresh_upstream.requests.clear()
    added = jobs_added(store.url)
    say(api, ("user", "How do I install dependencies?"))
    assert "yarn" not in (injected_block(fresh_upstream.chat_requests()[-1]) or "")
    # the forget sentence itself is never learned back: once the job queued after it is done too
    wait_drained(store.url, added + 1)
    assert [r["value"] for r in mnemo.memories(project=project)] == ["Sentry"]


def test_a_correction_after_a_wrong_step_teaches_a_lesson(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("lesson")
    say(
        openai_client(mnemo, project),
        ("user", "Install the dependencies."),
        ("assistant", "Running npm install now."),
        ("user", "No, use yarn, not npm."),
    )
    records = wait_until(lambda: len(current(mnemo, project)) >= 2 and current(mnemo, project))
    kinds = {r["kind"]: r for r in records}
    assert kinds["semantic"]["value"] == "yarn"
    lesson = kinds["reflection"]
    assert "use yarn, not npm" in lesson["text"] and "corrected" in lesson["text"]
    assert lesson["source"]["message_index"] == 2 and lesson["extra"]["corrects_message_index"] == "1"


def test_an_outcome_report_becomes_an_episode(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("episode")
    say(
        openai_client(mnemo, project),
        ("user", "Heads up: yesterday's deploy failed because the migration was missing."),
    )
    (episode,) = wait_until(lambda: current(mnemo, project))
    assert episode["kind"] == "episodic"
    assert episode["extra"]["outcome"] == "failed"
    assert episode["extra"]["cause"] == "the migration was missing"
    assert "deploy" in episode["extra"]["event"]


def test_near_duplicates_merge(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project = unique("neardup")
    api = openai_client(mnemo, project)
    say(api, ("user", "Never commit directly to main."))
    wait_until(lambda: current(mnemo, project))
    say(api, ("user", "Never commit straight to main."))
    merged = wait_until(lambda: [r for r in current(mnemo, project) if r["seen_count"] == 2])
    assert len(current(mnemo, project)) == 1 and merged


def test_commands_in_three_sessions_of_a_project_become_an_inference_there_only(
    mnemo: RunningMnemo, store: Store, fresh_upstream: UpstreamStub, unique: Callable[[str], str]
) -> None:
    project, elsewhere = unique("habit"), unique("habit-other")
    commands = [
        "Can you check why `pnpm install` fails?",
        "I ran pnpm add zod and it hangs.",
        "After pnpm test the snapshot is stale.",
    ]
    added = jobs_added(store.url)
    for session, text in enumerate(commands[:2], start=1):
        say(openai_client(mnemo, project, **{"X-Mnemo-Session": f"s{session}"}), ("user", text))
    say(
        openai_client(mnemo, project, **{"X-Mnemo-Session": "s2"}), ("user", commands[2])
    )  # same session again
    wait_drained(store.url, added + 3)
    assert current(mnemo, project) == []
    say(openai_client(mnemo, project, **{"X-Mnemo-Session": "s3"}), ("user", commands[2]))
    (inferred,) = wait_until(lambda: current(mnemo, project, "package_manager"))
    assert (inferred["value"], inferred["evidence"], inferred["extra"]["sessions"]) == (
        "pnpm",
        "inferred",
        "3",
    )
    assert "inferred from the user's commands in 3 sessions" in inferred["text"]
    assert current(mnemo, elsewhere) == []
    # a stated fact is not overridden by the habit
    say(openai_client(mnemo, project, **{"X-Mnemo-Session": "s4"}), ("user", "This repo uses yarn."))
    wait_until(lambda: [r for r in current(mnemo, project, "package_manager") if r["value"] == "yarn"])
    added = jobs_added(store.url)
    say(openai_client(mnemo, project, **{"X-Mnemo-Session": "s5"}), ("user", "pnpm install again?"))
    wait_drained(store.url, added + 1)
    assert [r["value"] for r in current(mnemo, project, "package_manager")] == ["yarn"]
