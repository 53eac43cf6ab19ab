"""Which files an import reads, and the project they belong to, found as the proxy finds it for an
agent working there: the git remote's repository name, else the working folder's name
(``core.scope.infer_project`` over what Codex and Claude Code say in their prompts)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from core.scope import infer_project

CLAUDE_FILES = ("CLAUDE.md", "CLAUDE.local.md", ".claude/CLAUDE.md")


def files_for(fmt: str, path: Path) -> list[Path]:
    """The files of ``fmt`` at ``path``: the file itself, or what that tool reads in a folder."""
    if not path.is_dir():
        return [path]
    if fmt == "claude-md":
        named = [path / name for name in CLAUDE_FILES if (path / name).is_file()]
        # no CLAUDE.md: a folder of memory files (Claude Code's auto-memory keeps one per topic)
        return named or sorted(p for p in path.glob("*.md") if p.is_file())
    if fmt == "agents-md":
        return [p for p in (path / "AGENTS.md",) if p.is_file()]
    if fmt == "cursor-rules":
        legacy = [p for p in (path / ".cursorrules",) if p.is_file()]
        rules = path / ".cursor" / "rules" if (path / ".cursor" / "rules").is_dir() else path
        return legacy + sorted(p for p in rules.rglob("*.mdc") if p.is_file())
    if fmt == "copilot-instructions":
        github = path / ".github" if (path / ".github").is_dir() else path
        main = [p for p in (github / "copilot-instructions.md",) if p.is_file()]
        return main + sorted(p for p in (github / "instructions").glob("*.instructions.md") if p.is_file())
    return []


def repository_root(path: Path) -> Path | None:
    """The nearest folder at or above ``path`` holding ``.git``."""
    start = path if path.is_dir() else path.parent
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def _origin(root: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "config", "--get", "remote.origin.url"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def claude_project_folder(path: Path) -> Path | None:
    """The working folder a Claude Code auto-memory folder belongs to:
    ``~/.claude/projects/-home-me-src-acme-web/memory`` is ``/home/me/src/acme-web``. Dashes stand
    for slashes and for dashes, so the folder is found by trying what exists."""
    for folder in (path, *path.parents):
        if folder.parent.name == "projects" and folder.parent.parent.name == ".claude":
            return _decoded(folder.name)
    return None


def _decoded(encoded: str) -> Path | None:
    parts = encoded.strip("-").split("-")
    found: list[Path] = []

    def walk(base: Path, rest: list[str]) -> None:
        if found:
            return
        if not rest:
            found.append(base)
            return
        for take in range(1, len(rest) + 1):
            child = base / "-".join(rest[:take])
            if child.is_dir():
                walk(child, rest[take:])

    walk(Path("/"), parts)
    return found[0] if found else None


def project_for(path: Path) -> str | None:
    """The project of a file or folder, as the proxy would name it for an agent working there;
    None outside any repository (``~/.claude/CLAUDE.md`` is the user's, not a project's)."""
    path = path.expanduser().resolve()
    working = claude_project_folder(path) or path
    root = repository_root(working)
    if root is None:
        return None
    origin = _origin(root)
    said = f"origin {origin}\n" if origin else ""
    return infer_project(f"{said}Primary working directory: {root}")


def source_name(path: Path) -> str:
    """The file as its records' source names it: the full path, the home folder as ``~``, so a
    second import of the same file is known as the same source."""
    path = path.expanduser().resolve()
    home = Path.home()
    return f"~/{path.relative_to(home)}" if path.is_relative_to(home) else str(path)
