"""The command line tells an operator what it reads: every flag's variable and default, every
environment-only setting, the version; and the README names every MNEMO_* variable the code reads."""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

import pytest

from proxy.cli import main
from proxy.settings import ENV_VARS

ROOT = Path(__file__).resolve().parent.parent


def _help(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as done:
        main([*argv, "--help"])
    assert done.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # argparse wraps lines


def test_the_version_is_the_installed_one(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"mnemo {version('mnemo-proxy')}"


def test_serve_help_names_every_setting_with_its_default(capsys: pytest.CaptureFixture[str]) -> None:
    said = _help(capsys, "serve")
    for var in ENV_VARS.values():
        assert var in said, var
    assert "[MNEMO_PORT; default 8080]" in said
    assert re.search(r"MNEMO_HELD_JOBS_MAX default 10000", said)


@pytest.mark.parametrize(
    ("command", "variables"),
    [
        (
            ["worker"],
            ["MNEMO_REDIS_URL", "MNEMO_DATA_DIR", "MNEMO_POLICY_FILE", "MNEMO_LOG_LEVEL", "MNEMO_LOG_FORMAT"],
        ),
        (["doctor"], ["MNEMO_URL", "MNEMO_POLICY_FILE"]),
        (["memories", "list"], ["MNEMO_URL", "MNEMO_TOKEN"]),
        (["memories", "delete"], ["MNEMO_URL", "MNEMO_TOKEN"]),
    ],
)
def test_every_command_names_its_variables(
    capsys: pytest.CaptureFixture[str], command: list[str], variables: list[str]
) -> None:
    said = _help(capsys, *command)
    for var in variables:
        assert re.search(rf"\[{var}; default [^\]]+\]", said), (var, said)


def test_the_readme_names_every_variable_the_code_reads() -> None:
    read = set()
    for package in ("proxy", "extractors", "policies"):
        for path in (ROOT / package).rglob("*.py"):
            read |= set(re.findall(r"[\"'](MNEMO_[A-Z_]+)[\"']", path.read_text()))
    assert len(read) >= len(ENV_VARS)
    readme = (ROOT / "README.md").read_text()
    assert sorted(var for var in read if f"`{var}`" not in readme) == []
