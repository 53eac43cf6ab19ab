"""`mnemo memories ...` as a user runs it: a separate process against the served Mnemo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from core.model import new_id
from tests.conftest import RunningMnemo

pytestmark = pytest.mark.integration


def mnemo_cli(
    mnemo: RunningMnemo | None, *args: str, token: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the command with the server's URL (and a key) in the environment, as a user would."""
    env = {**os.environ, "MNEMO_URL": mnemo.url if mnemo else "http://127.0.0.1:9", "COLUMNS": "200"}
    env.pop("MNEMO_TOKEN", None)
    if token:
        env["MNEMO_TOKEN"] = token
    return subprocess.run(
        [sys.executable, "-m", "proxy.cli", "memories", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def lines_for(project: str, count: int) -> list[dict[str, Any]]:
    return [
        {
            "id": new_id(),
            "kind": "semantic",
            "text": f"Service {i} of {project} runs on port {8000 + i}.",
            "scope": {"org": "local", "project": project},
            "observed_at": f"2026-05-01T10:{i:02d}:00+00:00",
        }
        for i in range(count)
    ]


def test_import_list_search_show_edit_export_delete(
    mnemo: RunningMnemo, tmp_path: Path, unique: Callable[[str], str]
) -> None:
    project = unique("cli")
    source = tmp_path / "in.jsonl"
    records = lines_for(project, 12)
    source.write_text("\n".join(json.dumps(r) for r in records) + "\n{broken\n")

    imported = mnemo_cli(mnemo, "import", str(source), "--progress")
    assert imported.returncode == 6, imported.stderr  # finished, but one line was rejected
    assert "imported 12, merged 0, rejected 1" in imported.stdout
    assert "line 13: not JSON" in imported.stderr and "import [" in imported.stderr  # the bar
    again = mnemo_cli(mnemo, "import", str(source), "--json")
    assert json.loads(again.stdout)["merged"] == 12

    table = mnemo_cli(mnemo, "list", "--project", project, "--limit", "5")
    assert table.returncode == 0
    rows = table.stdout.splitlines()
    assert rows[0].split() == ["ID", "KIND", "EVIDENCE", "STATUS", "SCOPE", "OBSERVED", "TEXT"]
    assert len(rows) == 6 and records[-1]["id"] in rows[1]
    assert "5 of 12 shown; next page: --cursor" in table.stderr
    everything = json.loads(
        mnemo_cli(mnemo, "list", "--project", project, "--limit", "5", "--all", "--json").stdout
    )
    assert sorted(m["id"] for m in everything["data"]) == sorted(r["id"] for r in records)

    found = json.loads(
        mnemo_cli(mnemo, "search", "which port does service 3 use", "--project", project, "--json").stdout
    )
    assert found["data"][0]["score"] > 0 and len(found["data"]) == 10

    target = records[3]["id"]
    edited = mnemo_cli(
        mnemo, "edit", target, "--text", f"Service 3 of {project} runs on port 9999.", "--json"
    )
    new = json.loads(edited.stdout)
    assert new["supersedes"] == target and new["evidence"] == "admin"
    shown = mnemo_cli(mnemo, "show", new["id"])
    assert (
        "history (oldest first):" in shown.stdout and target in shown.stdout and "superseded" in shown.stdout
    )
    assert mnemo_cli(mnemo, "edit", target, "--text", "again").returncode == 2  # an old version: 409

    out = tmp_path / "out.jsonl"
    exported = mnemo_cli(mnemo, "export", "--project", project, "-o", str(out), "--progress")
    assert exported.returncode == 0 and "exported 13 memories" in exported.stdout
    assert "export [" in exported.stderr
    assert {json.loads(line)["id"] for line in out.read_text().splitlines()} == {r["id"] for r in records} | {
        new["id"]
    }

    assert mnemo_cli(mnemo, "delete", "--project", project).returncode == 2  # bulk needs --yes off a terminal
    gone = mnemo_cli(mnemo, "delete", records[0]["id"], "--json")
    assert json.loads(gone.stdout)["deleted"] == 1
    assert mnemo_cli(mnemo, "show", records[0]["id"]).returncode == 5
    assert (
        mnemo_cli(mnemo, "delete", "--scope", f"project={project}", "--yes").stdout.strip()
        == "deleted 12 memories"
    )
    assert json.loads(mnemo_cli(mnemo, "list", "--project", project, "--json").stdout)["total"] == 0


def test_exit_codes_for_usage_unreachable_and_not_found(mnemo: RunningMnemo) -> None:
    assert mnemo_cli(None, "list").returncode == 3
    assert "cannot reach" in mnemo_cli(None, "list").stderr
    assert mnemo_cli(mnemo, "delete").returncode == 2
    assert mnemo_cli(mnemo, "delete", "--scope", "planet=mars", "--yes").returncode == 2
    assert mnemo_cli(mnemo, "list", "--kind", "rumour").returncode == 2
    assert mnemo_cli(mnemo, "edit", new_id(), "--pin").returncode == 5
    some = json.loads(mnemo_cli(mnemo, "list", "--limit", "1", "--json").stdout)["data"]
    if some:  # nothing to change given, and no editor off a terminal
        assert mnemo_cli(mnemo, "edit", some[0]["id"]).returncode == 2
