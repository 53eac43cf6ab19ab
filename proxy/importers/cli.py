"""``mnemo memories import --from FORMAT PATH`` and ``mnemo memories render``, against a running
server: the files are read here (where they live), the project found from their repository, and
each file sent to ``POST /mnemo/v1/import?from=FORMAT``; render reads the project's records from
the listing and writes the section here."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import httpx

from proxy.importers import FORMATS, INSTRUCTION_FORMATS
from proxy.importers.project import files_for, project_for, source_name
from proxy.importers.render import RENDER_FORMATS, render_section, write_section
from proxy.memories_client import CliError, ExitCode, check, print_json

PAGE = 1000


def add_arguments(load: argparse.ArgumentParser, sub: Any, common: Any) -> None:
    """``--from`` and ``--project`` on import; the render command."""
    load.add_argument(
        "--from",
        dest="from_format",
        choices=FORMATS,
        default="jsonl",
        help="the file's format (default jsonl: a Mnemo export); a folder is read as that tool reads it",
    )
    load.add_argument("--project", help="the project the records are for (default: the file's repository)")
    render = sub.add_parser("render", help="print a project's rules and facts as a markdown section")
    common(render)
    render.add_argument("--project", help="the project (default: the repository of --write, else of here)")
    render.add_argument("--format", choices=RENDER_FORMATS, default="agents-md")
    render.add_argument(
        "--write", metavar="FILE", help="update only Mnemo's marked section of FILE (added if absent)"
    )


def import_formats(client: httpx.Client, args: argparse.Namespace) -> ExitCode:
    fmt: str = args.from_format
    if args.file == "-":
        sources = [("-", sys.stdin.buffer.read())]
        project = args.project
    else:
        path = Path(args.file).expanduser()
        if not path.exists():
            raise CliError(f"no such file or folder: {args.file}", ExitCode.USAGE)
        files = files_for(fmt, path)
        if not files:
            raise CliError(f"no {fmt} files in {args.file}", ExitCode.USAGE)
        sources = [(source_name(f), f.read_bytes()) for f in files]
        project = args.project or (project_for(path) if fmt in INSTRUCTION_FORMATS else None)
    results = []
    for name, content in sources:
        params = {"from": fmt, "file": name, **({"project": project} if project else {})}
        if args.dry_run:
            params["dry_run"] = "true"
        response = client.post(
            "/import",
            content=content,
            params=params,
            headers={"content-type": _content_type(fmt)},
            timeout=httpx.Timeout(30, read=None),
        )
        results.append(check(response).json())
    if args.json:
        print_json(results[0] if len(results) == 1 else results)
    for result in [] if args.json else results:
        _print_result(result, fmt, project)
    rejected = sum(r.get("rejected", 0) for r in results)
    return ExitCode.PARTIAL if rejected else ExitCode.OK


def _content_type(fmt: str) -> str:
    """What the file is; management writes take only types a cross-site form cannot send."""
    if fmt in INSTRUCTION_FORMATS:
        return "text/markdown"
    return "application/json" if fmt == "mem0" else "application/x-ndjson"


def _print_result(result: dict[str, Any], fmt: str, project: str | None) -> None:
    verb = "would import" if result["dry_run"] else "imported"
    if fmt not in INSTRUCTION_FORMATS:
        print(f"{verb} {result['imported']}, merged {result['merged']}, rejected {result['rejected']}")
        for rejection in result["rejections"]:
            print(f"  line {rejection['line']}: {rejection['reason']}", file=sys.stderr)
        return
    counts = ", ".join(
        f"{name} {result[name]}"
        for name in ("superseded", "merged", "unchanged", "quarantined", "refused", "closed")
        if result[name]
    )
    where = f"project {project}" if project else "no project: user scope"
    print(f"{result['file']} ({where}): {verb} {result['imported']}{', ' + counts if counts else ''}")
    for outcome in result["records"] if result["dry_run"] else []:
        print(f"  line {outcome['line']:>4}  {outcome['action']:<11} {outcome['kind']:<10} {outcome['text']}")


def render(client: httpx.Client, args: argparse.Namespace) -> ExitCode:
    target = Path(args.write).expanduser() if args.write else None
    project = args.project or project_for(target.parent if target else Path.cwd())
    if not project:
        raise CliError("give --project (this folder is in no repository to name one)", ExitCode.USAGE)
    section = render_section(_project_records(client, project), project, args.format)
    if target is None:
        sys.stdout.write(section)
        return ExitCode.OK
    changed = write_section(target, section)
    if args.json:
        print_json({"file": str(target), "project": project, "changed": changed})
    else:
        print(f"{'updated' if changed else 'unchanged:'} {target} (project {project})")
    return ExitCode.OK


def _project_records(client: httpx.Client, project: str) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        params: dict[str, str | int] = {"project": project, "status": "active", "limit": PAGE}
        if cursor:
            params["cursor"] = cursor
        page = check(client.get("/memories", params=params)).json()
        records += page["data"]
        cursor = page["next_cursor"]
        if cursor is None:
            return records
