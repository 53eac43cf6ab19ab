"""``mnemo audit``: walk the audit hash chain of a running server (``verify``), and print the public
key a server's data dir signs exports with (``key``)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import httpx

from proxy.memories_client import CliError, ExitCode, check, client_options, print_json
from proxy.routes import MANAGEMENT_PREFIX
from proxy.settings import default_data_dir
from proxy.signing import data_dir_key, public_text


def add_parser(commands: Any) -> None:
    audit = commands.add_parser("audit", help="check the audit hash chain; the export signing key")
    sub = audit.add_subparsers(dest="audit_command", required=True)
    verify = sub.add_parser(
        "verify", help="walk the audit chain: exit 0 with its count, or 1 naming the first broken entry"
    )
    client_options(verify, token_help="local mode; keys mode needs an admin key")
    key = sub.add_parser("key", help="print the public key the data dir's exports are signed with")
    key.add_argument(
        "--data-dir",
        default=os.environ.get("MNEMO_DATA_DIR") or str(default_data_dir()),
        help="the server's data dir [MNEMO_DATA_DIR]; the key is made (0600) if there is none",
    )


def run(args: argparse.Namespace) -> int:
    if args.audit_command == "key":
        print(public_text(data_dir_key(Path(args.data_dir))))
        return int(ExitCode.OK)
    headers = {"x-mnemo-key": args.token} if args.token else {}
    try:
        with httpx.Client(
            base_url=args.url.rstrip("/") + MANAGEMENT_PREFIX, headers=headers, timeout=300
        ) as client:
            found = check(client.get("/audit/verify")).json()
    except CliError as exc:
        print(f"mnemo: {exc}", file=sys.stderr)
        return int(exc.code)
    except httpx.TransportError as exc:
        print(f"mnemo: cannot reach {args.url}: {exc}", file=sys.stderr)
        return int(ExitCode.UNREACHABLE)
    if args.json:
        print_json(found)
    elif found["intact"]:
        unchained = (
            f" ({found['unchained']} older entries written before the chain)" if found["unchained"] else ""
        )
        print(f"audit chain intact: {found['entries']} entries{unchained}")
    else:
        broken = found["broken"]
        print(f"audit chain broken at entry {broken['entry']} (seq {broken['seq']}): {broken['problem']}")
        print(f"  {found['entries']} entries before it hold", file=sys.stderr)
    return int(ExitCode.OK if found["intact"] else ExitCode.SERVER_ERROR)
