"""`mnemo memories ...`: the management API from a terminal, against a running server.

Tables for people, ``--json`` for scripts, a progress bar on stderr for exports and imports
(``memories_transfer``), and exit codes a script can branch on (``memories_client.ExitCode``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

from proxy import memories_transfer, signed_transfer
from proxy.importers import cli as importers_cli
from proxy.memories_client import (
    CliError,
    ExitCode,
    check,
    client_options,
    filter_params,
    print_json,
)
from proxy.routes import MANAGEMENT_PREFIX

LEVELS = ("org", "project", "user", "session")


# Arguments -----------------------------------------------------------------------------------------


def add_parser(commands: Any) -> None:
    memories = commands.add_parser("memories", help="inspect, search, correct, delete, export, import memory")
    sub = memories.add_subparsers(dest="memories_command", required=True)
    _add_reading(sub)
    _add_changing(sub)
    _add_transfer(sub)


def _filters(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--org", help="another org (admin keys only)")
    parser.add_argument("--project")
    parser.add_argument("--user")
    parser.add_argument("--session")
    parser.add_argument(
        "--visible", action="store_true", help="what a request with this project/user/session may see"
    )
    parser.add_argument(
        "--kind", action="append", choices=["semantic", "procedural", "episodic", "reflection"]
    )
    parser.add_argument("--evidence", action="append", choices=["stated", "inferred", "imported", "admin"])
    parser.add_argument("--status", action="append", choices=["active", "superseded", "quarantined"])
    parser.add_argument("--key", help="slot key, e.g. package_manager")
    parser.add_argument("--contains", help="words the text holds, in order")
    parser.add_argument("--since", dest="observed_after", help="observed at or after (ISO 8601)")
    parser.add_argument("--before", dest="observed_before", help="observed before (ISO 8601)")


def _progress(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--progress", action=argparse.BooleanOptionalAction, default=None, help="progress bar on stderr"
    )


def _add_reading(sub: Any) -> None:
    """list, search, show."""
    listing = sub.add_parser("list", help="list memories, newest first")
    client_options(listing)
    _filters(listing)
    listing.add_argument("--limit", type=int, default=50, help="page size (1-1000)")
    listing.add_argument("--cursor", help="continue after a previous page")
    listing.add_argument("--all", action="store_true", help="follow every page")

    search = sub.add_parser("search", help="rank memories as recall would for a text, with scores")
    client_options(search)
    search.add_argument("query")
    search.add_argument("--org")
    search.add_argument("--project")
    search.add_argument("--user")
    search.add_argument("--session")
    search.add_argument("--limit", type=int, default=10)

    show = sub.add_parser("show", help="one memory with every field and its history")
    client_options(show)
    show.add_argument("id")


def _add_changing(sub: Any) -> None:
    """edit, delete."""
    edit = sub.add_parser("edit", help="correct a memory (a new version supersedes it) or pin it")
    client_options(edit)
    edit.add_argument("id")
    edit.add_argument("--text", help="the corrected sentence (no flag: open $EDITOR)")
    edit.add_argument("--value", help="the corrected slot value")
    edit.add_argument("--valid-from", help="when the correction applies from (ISO 8601)")
    edit.add_argument("--pin", dest="pinned", action="store_true", default=None, help="never expire")
    edit.add_argument("--unpin", dest="pinned", action="store_false", help="expire by the retention policy")
    edit.add_argument("--reason", help="kept on the new version")

    remove = sub.add_parser("delete", help="delete memories everywhere: by id, by filter or a whole scope")
    client_options(remove)
    _filters(remove)
    remove.add_argument("ids", nargs="*", metavar="ID")
    remove.add_argument("--scope", metavar="LEVEL=VALUE", help="a whole scope, e.g. project=acme-web")
    remove.add_argument("--all", action="store_true", help="everything this key may delete")
    remove.add_argument("--yes", "-y", action="store_true", help="do not ask before a bulk delete")


def _add_transfer(sub: Any) -> None:
    """export, import (from Mnemo's JSON Lines or another tool's files), render."""
    export = sub.add_parser("export", help="export as JSON Lines (every field, schema-versioned)")
    client_options(export)
    _filters(export)
    export.add_argument("-o", "--output", default="-", help="file to write (default stdout)")
    export.add_argument("--vectors", action="store_true", help="include vectors (import skips re-embedding)")
    signed_transfer.add_export_flags(export)
    _progress(export)

    load = sub.add_parser("import", help="import JSON Lines; duplicates merge, bad lines are reported")
    client_options(load)
    load.add_argument("file", help="a file (or, by --from, a folder), or - for stdin")
    load.add_argument("--dry-run", action="store_true", help="check and count, write nothing; show what")
    _progress(load)
    signed_transfer.add_import_flags(load)
    importers_cli.add_arguments(load, sub, client_options)


# Running -------------------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    headers = {"x-mnemo-key": args.token} if args.token else {}
    headers["user-agent"] = "mnemo-cli"
    try:
        with httpx.Client(
            base_url=args.url.rstrip("/") + MANAGEMENT_PREFIX, headers=headers, timeout=30
        ) as client:
            handler = {
                "list": _list,
                "search": _search,
                "show": _show,
                "edit": _edit,
                "delete": _delete,
                "export": memories_transfer.export,
                "import": memories_transfer.import_file,
                "render": importers_cli.render,
            }[args.memories_command]
            return int(handler(client, args))
    except CliError as exc:
        print(f"mnemo: {exc}", file=sys.stderr)
        return int(exc.code)
    except httpx.TransportError as exc:
        print(f"mnemo: cannot reach {args.url}: {exc}", file=sys.stderr)
        return int(ExitCode.UNREACHABLE)


def _scope_label(scope: dict[str, Any]) -> str:
    parts = [f"{level}={scope[level]}" for level in ("project", "user", "session") if scope.get(level)]
    return ",".join(parts) or f"org={scope.get('org')}"


def _table(rows: list[list[str]], header: list[str]) -> None:
    """Columns sized to their content; the last one (the text) gets what the terminal has left."""
    width = shutil.get_terminal_size((120, 20)).columns
    widths = [max(len(header[i]), *(len(r[i]) for r in rows)) for i in range(len(header) - 1)] if rows else []
    # on a terminal the text is cut to fit; piped, it stays whole (for grep and friends)
    room = max(20, width - sum(widths) - 2 * len(widths)) if sys.stdout.isatty() else 1 << 30
    for row in [header, *rows]:
        cells = [cell.ljust(widths[i]) for i, cell in enumerate(row[:-1])] if rows else row[:-1]
        text = row[-1] if len(row[-1]) <= room else row[-1][: room - 1] + "…"
        print("  ".join([*cells, text]).rstrip())


def _memory_row(memory: dict[str, Any]) -> list[str]:
    return [
        memory["id"],
        memory["kind"],
        memory["evidence"],
        memory["status"],
        _scope_label(memory["scope"]),
        memory["observed_at"][:16].replace("T", " "),
        memory["text"],
    ]


MEMORY_HEADER = ["ID", "KIND", "EVIDENCE", "STATUS", "SCOPE", "OBSERVED", "TEXT"]


def _list(client: httpx.Client, args: argparse.Namespace) -> ExitCode:
    params = {**filter_params(args), "limit": args.limit}
    cursor = args.cursor
    memories: list[dict[str, Any]] = []
    while True:
        page = check(
            client.get("/memories", params={**params, **({"cursor": cursor} if cursor else {})})
        ).json()
        memories += page["data"]
        cursor = page["next_cursor"]
        if not args.all or cursor is None:
            break
    if args.json:
        print_json({"data": memories, "total": page["total"], "next_cursor": cursor})
        return ExitCode.OK
    _table([_memory_row(m) for m in memories], MEMORY_HEADER)
    more = f"; next page: --cursor {cursor}" if cursor else ""
    print(f"\n{len(memories)} of {page['total']} shown{more}", file=sys.stderr)
    return ExitCode.OK


def _search(client: httpx.Client, args: argparse.Namespace) -> ExitCode:
    params = {
        name: getattr(args, name) for name in ("org", "project", "user", "session") if getattr(args, name)
    }
    found = check(
        client.get("/memories/search", params={**params, "q": args.query, "limit": args.limit})
    ).json()
    if args.json:
        print_json(found)
        return ExitCode.OK
    rows = [
        [
            f"{hit['score']:.3f}",
            hit["memory"]["id"],
            _scope_label(hit["memory"]["scope"]),
            hit["memory"]["text"],
        ]
        for hit in found["data"]
    ]
    _table(rows, ["SCORE", "ID", "SCOPE", "TEXT"])
    return ExitCode.OK


def _show(client: httpx.Client, args: argparse.Namespace) -> ExitCode:
    memory = check(client.get(f"/memories/{args.id}")).json()
    if args.json:
        print_json(memory)
        return ExitCode.OK
    history = memory.pop("history", [])
    for name, value in memory.items():
        shown = json.dumps(value, ensure_ascii=False) if isinstance(value, dict) else value
        print(f"{name:>15}  {'' if shown is None else shown}")
    print("\nhistory (oldest first):")
    for version in history:
        mark = "*" if version["id"] == memory["id"] else " "
        print(f" {mark} v{version['version']}  {version['status']:<11} {version['id']}  {version['text']}")
    return ExitCode.OK


def _edit(client: httpx.Client, args: argparse.Namespace) -> ExitCode:
    change: dict[str, Any] = {
        name: value
        for name, value in (
            ("text", args.text),
            ("value", args.value),
            ("valid_from", args.valid_from),
            ("pinned", args.pinned),
            ("reason", args.reason),
        )
        if value is not None
    }
    if not change:
        current = check(client.get(f"/memories/{args.id}")).json()
        text = _in_editor(current["text"])
        if text is None or text == current["text"]:
            print("mnemo: nothing changed", file=sys.stderr)
            return ExitCode.OK
        change["text"] = text
    updated = check(client.patch(f"/memories/{args.id}", json=change)).json()
    if args.json:
        print_json(updated)
    elif updated["id"] == args.id:
        print(f"updated {updated['id']} in place (pinned: {updated['extra'].get('pinned', False)})")
    else:
        print(f"{updated['id']} (version {updated['version']}) now supersedes {args.id}")
    return ExitCode.OK


def _in_editor(text: str) -> str | None:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor or not sys.stdin.isatty():
        raise CliError("give --text (or --value, --pin) or set $EDITOR on a terminal", ExitCode.USAGE)
    with tempfile.NamedTemporaryFile("w+", suffix=".txt", delete=False) as handle:
        handle.write(text + "\n")
        path = Path(handle.name)
    try:
        subprocess.run([*editor.split(), str(path)], check=True)
        edited = " ".join(path.read_text().split())
    finally:
        path.unlink(missing_ok=True)
    return edited or None


def _delete(client: httpx.Client, args: argparse.Namespace) -> ExitCode:
    params = filter_params(args)
    if sum(bool(x) for x in (args.ids, args.scope, params or args.all)) != 1:
        raise CliError("give memory ids, or --scope LEVEL=VALUE, or filters (or --all)", ExitCode.USAGE)
    if args.ids:
        receipts = [check(client.delete(f"/memories/{memory_id}")).json() for memory_id in args.ids]
        result: dict[str, Any] = {"deleted": sum(r["deleted"] for r in receipts), "receipts": receipts}
    else:
        path, selected = _bulk_target(args, params)
        if not args.yes:
            total = check(client.get("/memories", params={**selected, "limit": 1})).json()["total"]
            if not _confirm(f"Delete {total} memories everywhere? This cannot be undone. [y/N] "):
                print("mnemo: nothing deleted", file=sys.stderr)
                return ExitCode.OK
        bulk = {"all": "true"} if args.all else {}
        # a scope's path names it; only an admin's --org goes along
        admin_org = {"org": args.org} if args.org else {}
        deleting = admin_org if args.scope else {**selected, **bulk}
        result = check(client.delete(path, params=deleting, timeout=None)).json()
    if args.json:
        print_json(result)
    else:
        print(f"deleted {result['deleted']} memories")
    return ExitCode.OK


def _bulk_target(args: argparse.Namespace, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """Where a bulk delete goes, and the listing filters that select the same records."""
    if not args.scope:
        return "/memories", params
    level, sep, value = args.scope.partition("=")
    if not sep or level not in LEVELS or not value:
        raise CliError("--scope takes LEVEL=VALUE, LEVEL one of org, project, user, session", ExitCode.USAGE)
    selected = {level: value} if level != "org" else {}
    if level == "org" or args.org:
        selected["org"] = value if level == "org" else args.org
    return f"/scopes/{level}/{value}", selected


def _confirm(question: str) -> bool:
    if not sys.stdin.isatty():
        raise CliError("a bulk delete needs --yes when not on a terminal", ExitCode.USAGE)
    return input(question).strip().lower() in ("y", "yes")
