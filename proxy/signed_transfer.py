"""The signing flags of ``mnemo memories export`` and ``import`` (``proxy/signing.py`` holds the
format): ``--sign`` asks the server to sign with its data dir's key, ``--signing-key FILE`` signs
here with the operator's key, and ``--trusted-key`` checks a file before any line of it is sent."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from core.errors import ConfigError
from proxy.memories_client import CliError, ExitCode
from proxy.signing import SignatureRefused, Signer, private_key, public_key, public_text, verify_lines


def add_export_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sign",
        action="store_true",
        help="end the file with line digests and a manifest signed by the server's key (in its data dir)",
    )
    parser.add_argument(
        "--signing-key",
        metavar="FILE",
        help="sign here with this Ed25519 private key (PEM) instead of the server's; implies --sign",
    )


def add_import_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--trusted-key",
        metavar="PUBKEY",
        help="refuse the file unless its manifest is signed by this key (ed25519:<base64>, or a file "
        "holding it or a PEM public key) and every line is the one signed",
    )


def export_params(args: argparse.Namespace) -> dict[str, Any]:
    return {"sign": "true"} if args.sign and not args.signing_key else {}


def local_signer(args: argparse.Namespace) -> Signer | None:
    if not args.signing_key:
        return None
    try:
        return Signer(private_key(Path(args.signing_key)))
    except ConfigError as exc:
        raise CliError(str(exc), ExitCode.USAGE) from exc


def verify_file(args: argparse.Namespace) -> None:
    """Check the file against ``--trusted-key`` (if given) before anything is sent."""
    if not getattr(args, "trusted_key", None):
        return
    if args.file == "-":
        raise CliError("--trusted-key checks a file before sending it: give a file, not -", ExitCode.USAGE)
    try:
        trusted = public_key(args.trusted_key)
        with open(args.file, "rb") as source:
            count = verify_lines(source, trusted)
    except ConfigError as exc:
        raise CliError(str(exc), ExitCode.USAGE) from exc
    except SignatureRefused as exc:
        raise CliError(f"{args.file}: refused: {exc}", ExitCode.REFUSED) from exc
    print(f"signature verified: {count} records signed by {public_text(trusted)}", file=sys.stderr)
