"""`mnemo mcp`: its flags (read here, so `mnemo --help` loads no MCP SDK) and its run."""

from __future__ import annotations

import argparse
import os
from typing import Any

from proxy.memories_client import DEFAULT_URL


def add_parser(commands: Any) -> None:
    """``commands``: the `mnemo` parser's subparsers."""
    mcp = commands.add_parser(
        "mcp",
        help="Mnemo's memory for an MCP client over stdio (each call goes to a running server)",
        description=(
            "Serve the MCP tools search_memories, show_memory, remember and forget over stdio. Each "
            "call is forwarded to the /mcp endpoint of a running `mnemo serve`, with the key and "
            "scope given here, so keys, scopes and policy are the server's."
        ),
    )
    env = os.environ.get
    mcp.add_argument(
        "--url", default=env("MNEMO_URL", DEFAULT_URL), help=f"the server [MNEMO_URL; default {DEFAULT_URL}]"
    )
    mcp.add_argument(
        "--token",
        default=env("MNEMO_TOKEN"),
        help="Mnemo key, sent as X-Mnemo-Key [MNEMO_TOKEN; default unset: local mode]",
    )
    for level, var in (("project", "MNEMO_PROJECT"), ("user", "MNEMO_USER"), ("session", "MNEMO_SESSION")):
        mcp.add_argument(
            f"--{level}", default=env(var), help=f"sent as X-Mnemo-{level.title()} [{var}; default unset]"
        )


def run(args: argparse.Namespace) -> int:
    from proxy.mcp.stdio import serve_stdio

    headers = {
        name: value
        for name, value in (
            ("x-mnemo-key", args.token),
            ("x-mnemo-project", args.project),
            ("x-mnemo-user", args.user),
            ("x-mnemo-session", args.session),
        )
        if value
    }
    serve_stdio(args.url, headers)
    return 0
