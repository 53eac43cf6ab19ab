"""What the ``mnemo memories`` commands share: exit codes, the error a command stops with, the
API's answers checked and mapped to exit codes, the listing filters as query parameters."""

from __future__ import annotations

import argparse
import enum
import json
import os
from typing import Any

import httpx


class ExitCode(enum.IntEnum):
    OK = 0
    SERVER_ERROR = 1  # the server refused or failed the request
    USAGE = 2  # bad flags or arguments (argparse uses 2 as well)
    UNREACHABLE = 3  # no server answered at --url
    UNAUTHORIZED = 4  # 401 or 403: no key, an unknown key, or not this key's to do
    NOT_FOUND = 5  # no such memory (or not visible to this key)
    PARTIAL = 6  # an import finished but rejected some lines
    REFUSED = 7  # a file did not verify against --trusted-key (nothing was sent)


class CliError(Exception):
    def __init__(self, message: str, code: ExitCode) -> None:
        super().__init__(message)
        self.code = code


DEFAULT_URL = "http://127.0.0.1:8080"


def check(response: httpx.Response) -> httpx.Response:
    if response.is_success:
        return response
    try:
        message = response.json()["error"]["message"]
    except (ValueError, KeyError, TypeError):
        message = response.text[:200] or response.reason_phrase
    code = {
        401: ExitCode.UNAUTHORIZED,
        403: ExitCode.UNAUTHORIZED,
        404: ExitCode.NOT_FOUND,
        400: ExitCode.USAGE,
        409: ExitCode.USAGE,
    }.get(response.status_code, ExitCode.SERVER_ERROR)
    raise CliError(f"{response.status_code}: {message}", code)


def filter_params(args: argparse.Namespace) -> dict[str, Any]:
    names = ("org", "project", "user", "session", "key", "contains", "observed_after", "observed_before")
    params: dict[str, Any] = {name: getattr(args, name) for name in names if getattr(args, name, None)}
    for name in ("kind", "evidence", "status"):
        if getattr(args, name, None):
            params[name] = getattr(args, name)
    if getattr(args, "visible", False):
        params["visible"] = "true"
    return params


def print_json(value: Any) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


def client_options(parser: argparse.ArgumentParser, token_help: str = "local mode") -> None:
    """The flags every command that talks to a running server takes: where it is, the key, JSON."""
    parser.add_argument(
        "--url",
        default=os.environ.get("MNEMO_URL", DEFAULT_URL),
        help=f"the server [MNEMO_URL; default {DEFAULT_URL}]",
    )
    parser.add_argument(
        "--token",
        default=os.environ.get("MNEMO_TOKEN"),
        help=f"Mnemo key, sent as X-Mnemo-Key [MNEMO_TOKEN; default unset: {token_help}]",
    )
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
