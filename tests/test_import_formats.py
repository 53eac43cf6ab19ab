"""Memory brought in from other tools' files and written back: `mnemo memories import --from FORMAT`
on real files of each format (tests/data/import_formats), a CLAUDE.md's rules recalled by a
Codex-shaped request, rendered into AGENTS.md and imported back without duplicates."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from harness.upstream import UpstreamStub
from proxy.importers.markdown import read_document
from proxy.importers.render import END, render_section, replace_section
from proxy.recall import BLOCK_OPEN
from tests.conftest import RunningMnemo, mnemo_on_own_store
from tests.test_memories_cli import mnemo_cli
from tests.test_responses_api import codex_input

pytestmark = pytest.mark.integration

DATA = Path(__file__).parent / "data" / "import_formats"
CLI = [sys.executable, "-m", "proxy.cli", "memories"]
CLI_ENV = {k: v for k, v in os.environ.items() if k != "MNEMO_TOKEN"}


def repository(tmp_path: Path, name: str, data: str | None = None) -> Path:
    """A git checkout named ``name`` whose origin is ``acme/<name>``, holding a copy of ``data``."""
    root = tmp_path / name
    if data:
        shutil.copytree(DATA / data, root)
    root.mkdir(exist_ok=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(
        ["git", "-C", str(root), "remote", "add", "origin", f"git@github.com:acme/{name}.git"], check=True
    )
    return root


def slots(records: list[dict[str, Any]]) -> set[tuple[str | None, str | None, str | None]]:
    return {(m["key"], m["value"], m["qualifier"]) for m in records if m["key"]}


def current(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in records if m["status"] == "active" and m["valid_to"] is None]


def imported(mnemo: RunningMnemo, *args: str) -> Any:
    done = mnemo_cli(mnemo, "import", *args, "--json")
    assert done.returncode in (0, 6), done.stderr
    return json.loads(done.stdout)


# Reading and writing files, no server ---------------------------------------------------------------


def test_a_claude_md_is_read_bullet_by_bullet_and_code_quotes_tables_references_are_not() -> None:
    document = read_document((DATA / "claude" / "CLAUDE.md").read_text())
    assert [(b.line, b.text) for b in document.blocks] == [
        (3, "This file gives Claude Code guidance for working in this repository."),
        (7, "Use pnpm, not npm, for installing packages."),
        (8, "Run tests with `pytest -q` before committing."),
        (9, "We use Python 3.11 and ruff for linting."),
        (17, "Never commit directly to main."),
        (18, "Always use 4-space indentation."),
        (19, "In the docs/ folder, use npm."),
    ]
    rules = read_document((DATA / "cursor" / ".cursor" / "rules" / "frontend.mdc").read_text())
    assert rules.globs == ["web/**/*.tsx"] and [b.line for b in rules.blocks] == [7]
    everywhere = read_document((DATA / "cursor" / ".cursor" / "rules" / "general.mdc").read_text())
    assert everywhere.globs == [] and everywhere.front_matter["alwaysApply"] == "true"


def test_the_marked_section_is_replaced_or_appended_and_every_other_byte_kept() -> None:
    record = {
        "kind": "procedural",
        "text": "Project web: never push to main.",
        "scope": {"org": "local", "project": "web", "user": None, "session": None},
        "status": "active",
        "valid_to": None,
    }
    section = render_section([record], "web", "agents-md")
    assert "- Project web: never push to main." in section and section.endswith(END + "\n")
    before, after = "# AGENTS.md\r\n\nKeep PRs small.  \n", "\n## Later\n\ttabs\n"
    placed = replace_section(before, section)
    assert placed == before + "\n" + section
    replaced = replace_section(placed + after.lstrip("\n"), render_section([], "web", "agents-md"))
    assert replaced.startswith(before + "\n<!-- mnemo:begin") and replaced.endswith(after.lstrip("\n"))
    assert "never push" not in replaced and "Mnemo holds no rules" in replaced
    # read back, the section is its bullets only: markers, headings and notes are comments or titles
    assert [b.text for b in read_document(section).blocks] == ["Project web: never push to main."]


# Each format ----------------------------------------------------------------------------------------

EXPECTED = {
    "claude-md": {
        ("package_manager", "pnpm", None),
        ("pre_commit_check", "pytest -q", None),
        ("python_version", "3.11", None),
        ("linter", "ruff", None),
        ("indentation", "4-space indentation", None),
        ("package_manager", "npm", "in docs/"),
    },
    "agents-md": {("package_manager", "yarn", None), ("database", "PostgreSQL 15", None)},
    "cursor-rules": {
        ("package_manager", "pnpm", "in web/**/*.tsx"),
        ("python_version", "3.11", None),
        ("linter", "ruff", None),
    },
    "copilot-instructions": {
        ("database", "PostgreSQL 16", None),
        ("pre_commit_check", "pytest -q", None),
        ("package_manager", "npm", "in docs/**"),
    },
}
FOLDERS = {
    "claude-md": "claude",
    "agents-md": "agents",
    "cursor-rules": "cursor",
    "copilot-instructions": "copilot",
}


@pytest.mark.parametrize("fmt", sorted(EXPECTED))
def test_each_instructions_format_gives_its_facts_and_rules_with_their_source(
    mnemo: RunningMnemo, tmp_path: Path, unique: Callable[[str], str], fmt: str
) -> None:
    project = unique(fmt)
    root = repository(tmp_path, project, FOLDERS[fmt])
    results = imported(mnemo, "--from", fmt, str(root))  # the folder: read as the tool reads it
    results = results if isinstance(results, list) else [results]
    assert {r["project"] for r in results} == {project}  # from the git remote, as the proxy names it
    records = mnemo.memories(project=project)
    assert slots(records) == EXPECTED[fmt]
    assert {m["evidence"] for m in records} == {"imported"}
    for record in records:
        source = record["source"]
        path = Path(source["request_id"]).expanduser()
        block = next(b for b in read_document(path.read_text()).blocks if b.line == source["message_index"])
        assert source["role"] == "import" and source["client"] == f"mnemo-import/{fmt}"
        assert source["message_sha256"] == hashlib.sha256(block.text.encode()).hexdigest()
        assert record["extra"]["file_sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    rules = [m["text"] for m in records if m["kind"] == "procedural" and m["key"] is None]
    if fmt != "copilot-instructions":
        assert f"Project {project} rule: Never commit directly to main." in rules


def test_claude_codes_auto_memory_folder_belongs_to_the_project_it_was_kept_for(
    mnemo: RunningMnemo, tmp_path: Path, unique: Callable[[str], str]
) -> None:
    project = unique("auto")
    root = repository(tmp_path, project)
    # ~/.claude/projects/<the working folder, slashes as dashes>/memory
    folder = tmp_path / ".claude" / "projects" / str(root).replace("/", "-") / "memory"
    shutil.copytree(DATA / "auto-memory", folder)
    results = imported(mnemo, "--from", "claude-md", str(folder))
    assert [Path(r["file"]).name for r in results] == ["MEMORY.md", "testing.md"]
    assert slots(mnemo.memories(project=project)) == {
        ("database", "PostgreSQL 16", None),
        ("pre_commit_check", "make check", None),
    }


def test_mem0_exports_become_one_record_per_memory_and_import_again_as_merges(
    mnemo: RunningMnemo, unique: Callable[[str], str]
) -> None:
    first = imported(mnemo, "--from", "mem0", str(DATA / "mem0" / "export.json"))
    assert first["rejected"] == 0 and first["imported"] + first["merged"] == 2
    alice = {m["text"]: m for m in mnemo.memories(user="alice") if m["extractor"] == "mem0"}
    allergy = alice["Is allergic to peanuts"]
    assert allergy["evidence"] == "imported" and allergy["scope"]["user"] == "alice"
    assert allergy["observed_at"].startswith("2025-04-01T12:00:00")
    assert allergy["extra"]["run_id"] == "trip-42" and allergy["id"].startswith("mem0-7c8d9e0f")
    assert imported(mnemo, "--from", "mem0", str(DATA / "mem0" / "export.json"))["merged"] == 2
    results = imported(mnemo, "--from", "mem0", str(DATA / "mem0" / "get_all.json"))
    assert results["rejections"] == [{"line": 2, "reason": "memory: missing (the memory's text)"}]
    assert any(m["text"] == "Works as a data engineer in Lisbon" for m in mnemo.memories(user="bob"))


def test_jsonl_min_fills_the_rest_from_defaults_and_names_each_bad_line(
    mnemo: RunningMnemo, unique: Callable[[str], str]
) -> None:
    project = unique("min")
    good = imported(
        mnemo, "--from", "jsonl-min", "--project", project, str(DATA / "jsonl-min" / "good.jsonl")
    )
    assert (good["imported"], good["rejected"]) == (3, 0)
    records = {m["text"]: m for m in mnemo.memories(project=project)}
    assert records["Deploys go out on Tuesdays."]["kind"] == "procedural"
    assert records["Deploys go out on Tuesdays."]["observed_at"].startswith("2025-06-01T10:00:00")
    assert records["The staging database is refreshed every Sunday night."]["evidence"] == "imported"
    british = [
        m for m in mnemo.memories(user="default") if m["text"] == "Prefers answers in British English."
    ]
    assert british and british[0]["scope"]["project"] is None
    bad = mnemo_cli(
        mnemo, "import", "--from", "jsonl-min", "--project", project, str(DATA / "jsonl-min" / "bad.jsonl")
    )
    assert bad.returncode == 6 and "imported 1, merged 0, rejected 4" in bad.stdout
    said = bad.stderr.splitlines()
    assert said[0] == "  line 2: text: missing"
    assert said[1].startswith("  line 3: kind: must be one of") and said[2].startswith("  line 4: not JSON")
    assert said[3].startswith("  line 5: unknown fields: owner")


def test_a_dry_run_shows_what_would_be_stored_and_writes_nothing(
    mnemo: RunningMnemo, tmp_path: Path, unique: Callable[[str], str]
) -> None:
    project = unique("dry")
    root = repository(tmp_path, project, "claude")
    shown = mnemo_cli(mnemo, "import", "--from", "claude-md", "--dry-run", str(root / "CLAUDE.md"))
    assert shown.returncode == 0, shown.stderr
    assert f"(project {project}): would import 7" in shown.stdout
    assert "line    7  insert" in shown.stdout and "uses pnpm" in shown.stdout
    assert mnemo.memories(project=project) == []


# The round trip ------------------------------------------------------------------------------------


def test_claude_md_to_codex_to_agents_md_and_back_without_duplicates(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub, tmp_path: Path, unique: Callable[[str], str]
) -> None:
    project = unique("trip")
    root = repository(tmp_path, project, "claude")
    claude = root / "CLAUDE.md"
    first = imported(mnemo, "--from", "claude-md", str(claude))
    assert first["imported"] == 7 and first["project"] == project
    held = current(mnemo.memories(project=project))
    assert len(held) == 7

    # 2. recalled by Codex, which says only its working folder
    api = openai.OpenAI(base_url=mnemo.openai_base, api_key="sk-codex", max_retries=0)
    api.responses.create(model="gpt-x", input=codex_input(project, "How do I install the dependencies?"))
    block = fresh_upstream.responses_requests()[-1].json()["input"][2]["content"][0]["text"]
    assert block.startswith(BLOCK_OPEN) and f"Project {project} uses pnpm" in block
    assert "Never commit directly to main" in block

    # 3. rendered into an AGENTS.md that has text of its own
    agents = root / "AGENTS.md"
    mine = b"# AGENTS.md\r\n\n```sh\nmake   check\n```\n\t<!-- keep -->\n"
    agents.write_bytes(mine)
    wrote = mnemo_cli(mnemo, "render", "--format", "agents-md", "--write", str(agents))
    assert wrote.returncode == 0 and f"updated {agents} (project {project})" in wrote.stdout
    text = agents.read_bytes()
    assert text.startswith(mine + b"\n<!-- mnemo:begin") and text.endswith(b"<!-- mnemo:end -->\n")
    assert f"- Project {project} uses pnpm as its JavaScript package manager, not npm.".encode() in text

    # 4. imported back: every line already held, nothing added
    back = imported(mnemo, "--from", "agents-md", str(agents))
    assert back["imported"] == back["superseded"] == back["closed"] == 0
    assert back["unchanged"] == 7 and {r["action"] for r in back["records"]} == {"unchanged"}
    after = current(mnemo.memories(project=project))
    assert sorted(m["id"] for m in after) == sorted(m["id"] for m in held)
    assert len({m["text"] for m in after}) == len(after)

    # the same CLAUDE.md again changes nothing, not even a count
    again = imported(mnemo, "--from", "claude-md", str(claude))
    assert (again["imported"], again["superseded"], again["closed"], again["unchanged"]) == (0, 0, 0, 7)
    assert {(m["id"], m["seen_count"], m["version"]) for m in current(mnemo.memories(project=project))} == {
        (m["id"], m["seen_count"], m["version"]) for m in held
    }

    # an edited CLAUDE.md: a new value supersedes, a removed rule is closed
    edited = claude.read_text().replace("Use pnpm, not npm", "Use yarn, not npm")
    claude.write_text(edited.replace("- Never commit directly to main.\n", ""))
    changed = imported(mnemo, "--from", "claude-md", str(claude))
    assert (changed["superseded"], changed["closed"], changed["unchanged"]) == (1, 1, 5)
    now = current(mnemo.memories(project=project))
    assert ("package_manager", "yarn", None) in slots(now) and ("package_manager", "pnpm", None) not in slots(
        now
    )
    assert not any("Never commit" in m["text"] for m in now)
    old = next(m for m in mnemo.memories(project=project) if m["value"] == "pnpm")
    assert old["status"] == "superseded" and old["superseded_by"] is not None

    # written again: only the section changed
    assert mnemo_cli(mnemo, "render", "--write", str(agents)).returncode == 0
    rewritten = agents.read_bytes()
    assert rewritten.startswith(mine + b"\n<!-- mnemo:begin") and b"uses yarn" in rewritten
    assert b"pnpm" not in rewritten.replace(b"not npm", b"")
    assert mnemo_cli(mnemo, "render", "--write", str(agents)).stdout.startswith("unchanged:")
    assert agents.read_bytes() == rewritten
    printed = mnemo_cli(mnemo, "render", "--project", project)  # no --write: the section on stdout
    assert printed.returncode == 0 and printed.stdout.encode() == rewritten[len(mine) + 1 :]
    claude_md = mnemo_cli(mnemo, "render", "--project", project, "--format", "claude-md").stdout
    assert claude_md.splitlines()[1] == "## Memory (Mnemo)" and f"Project {project} uses yarn" in claude_md


def test_the_api_takes_a_format_and_refuses_an_unknown_one(
    mnemo: RunningMnemo, unique: Callable[[str], str]
) -> None:
    project = unique("api")
    body = (DATA / "agents" / "AGENTS.md").read_bytes()
    url = f"{mnemo.url}/mnemo/v1/import"
    done = httpx.post(
        url,
        params={"from": "agents-md", "project": project, "file": "AGENTS.md"},
        content=body,
        headers={"content-type": "text/markdown; charset=utf-8"},
    )
    assert done.status_code == 200 and done.json()["imported"] == 4
    wrong = httpx.post(
        url, params={"from": "notes"}, content=b"x", headers={"content-type": "application/json"}
    )
    assert wrong.status_code == 400 and "from must be one of" in wrong.json()["error"]["message"]


ORG_KEY, CI_KEY = "mk-import-org-key", "mk-import-ci-key"
KEYS_POLICY = f"""name: import-keys
version: 1
mode: keys
principals:
  - {{name: dev, key_sha256: {hashlib.sha256(ORG_KEY.encode()).hexdigest()}, org: acme, default_user: dev}}
  - name: ci
    key_sha256: {hashlib.sha256(CI_KEY.encode()).hexdigest()}
    org: acme
    default_user: ci
    read: [org, project]
    write: [project]
    projects: [web]
"""


def test_a_key_imports_only_into_its_org_and_its_projects_and_reads_stdin(
    upstream: UpstreamStub, tmp_path: Path
) -> None:
    with mnemo_on_own_store(upstream.url, tmp_path, KEYS_POLICY) as (mnemo, _):
        agents = str(DATA / "agents" / "AGENTS.md")
        refused = mnemo_cli(mnemo, "import", "--from", "agents-md", "--project", "api", agents, token=CI_KEY)
        assert refused.returncode == 4 and "may not use project 'api'" in refused.stderr
        done = subprocess.run(
            [*CLI, "import", "--from", "claude-md", "--project", "web", "-", "--json"],
            input=(DATA / "claude" / "CLAUDE.md").read_bytes(),
            capture_output=True,
            env={**CLI_ENV, "MNEMO_URL": mnemo.url, "MNEMO_TOKEN": CI_KEY},
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        assert result["file"] == "-" and result["imported"] == 7 and result["refused"] == 0
        listed = httpx.get(
            f"{mnemo.url}/mnemo/v1/memories", params={"project": "web"}, headers={"x-mnemo-key": ORG_KEY}
        ).json()["data"]
        assert {(m["scope"]["org"], m["scope"]["project"], m["evidence"]) for m in listed} == {
            ("acme", "web", "imported")
        }


def test_a_near_duplicate_line_merges_once_and_a_second_import_counts_nothing(
    mnemo: RunningMnemo, tmp_path: Path, unique: Callable[[str], str]
) -> None:
    project = unique("near")
    notes = tmp_path / "AGENTS.md"
    notes.write_text("- Never edit the generated files by hand.\n- Never edit generated files by hand.\n")
    first = imported(mnemo, "--from", "agents-md", "--project", project, str(notes))
    assert [r["action"] for r in first["records"]] == ["insert", "merge"]
    before = [(m["id"], m["seen_count"], m["last_seen_at"]) for m in mnemo.memories(project=project)]
    assert len(before) == 1
    again = imported(mnemo, "--from", "agents-md", "--project", project, str(notes))
    assert (again["imported"], again["closed"]) == (0, 0)
    assert [r["action"] for r in again["records"]] == ["unchanged", "merge"]
    assert [(m["id"], m["seen_count"], m["last_seen_at"]) for m in mnemo.memories(project=project)] == before
