"""``mnemo memories export`` and ``import``: JSON Lines streamed both ways, a progress bar on stderr."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import httpx

from proxy.importers import cli as importers_cli
from proxy.memories_client import ExitCode, check, filter_params, print_json
from proxy.signed_transfer import export_params, local_signer, verify_file

CHUNK_BYTES = 64 * 1024


class Progress:
    """A one-line bar on stderr, redrawn at most ten times a second."""

    def __init__(self, label: str, total: int | None, unit: str, enabled: bool) -> None:
        self.label, self.total, self.unit, self.enabled = label, total, unit, enabled
        self.done = 0
        self._drawn = 0.0
        self._start = time.monotonic()

    def advance(self, amount: int) -> None:
        self.done += amount
        if self.enabled and time.monotonic() - self._drawn >= 0.1:
            self._draw()

    def finish(self) -> None:
        if self.enabled:
            self._draw()
            sys.stderr.write("\n")

    def _draw(self) -> None:
        self._drawn = time.monotonic()
        rate = self.done / max(self._drawn - self._start, 1e-6)
        if self.total:
            share = min(1.0, self.done / self.total)
            bar = "#" * int(share * 30)
            line = f"\r{self.label} [{bar:<30}] {share:4.0%} {self.done}/{self.total} {self.unit}"
        else:
            line = f"\r{self.label} {self.done} {self.unit}"
        sys.stderr.write(f"{line} ({rate:,.0f}/s)")
        sys.stderr.flush()


def _wants_progress(args: argparse.Namespace) -> bool:
    return bool(sys.stderr.isatty() if args.progress is None else args.progress)


def export(client: httpx.Client, args: argparse.Namespace) -> ExitCode:
    params = {**filter_params(args), **({"vectors": "true"} if args.vectors else {}), **export_params(args)}
    signer = local_signer(args)  # --signing-key: signed here; --sign alone: by the server
    target: IO[bytes] = sys.stdout.buffer if args.output == "-" else open(args.output, "wb")  # noqa: SIM115
    lines = 0
    try:
        with client.stream("GET", "/export", params=params, timeout=httpx.Timeout(30, read=None)) as response:
            if not response.is_success:
                response.read()
                check(response)
            total = int(response.headers.get("x-mnemo-export-count", "0")) or None
            bar = Progress("export", total, "records", _wants_progress(args))
            for chunk in response.iter_bytes(CHUNK_BYTES):
                target.write(chunk)
                if signer is not None:
                    signer.feed(chunk)
                count = chunk.count(b"\n")
                lines += count
                bar.advance(count)
            bar.finish()
            if signer is not None:
                target.write(signer.trailer())
            signed_by = signer.public_key if signer else response.headers.get("x-mnemo-export-signed-by")
            if signed_by:
                lines = total or 0  # the trailer's lines are no records
    finally:
        if target is not sys.stdout.buffer:
            target.close()
    if args.output != "-":
        summary = {"exported": lines, "file": args.output, **({"signed_by": signed_by} if signed_by else {})}
        print_json(summary) if args.json else print(f"exported {lines} memories to {args.output}")
        if signed_by and not args.json:
            print(f"signed by {signed_by}")
    return ExitCode.OK


def import_file(client: httpx.Client, args: argparse.Namespace) -> ExitCode:
    if args.from_format != "jsonl":  # another tool's files: proxy.importers reads them
        return importers_cli.import_formats(client, args)
    verify_file(args)  # --trusted-key: the whole file checked before a line is sent
    source: IO[bytes] = sys.stdin.buffer if args.file == "-" else open(args.file, "rb")  # noqa: SIM115
    size = None if args.file == "-" else Path(args.file).stat().st_size
    bar = Progress("import", size, "bytes", _wants_progress(args))

    def body() -> Iterator[bytes]:
        while chunk := source.read(CHUNK_BYTES):
            bar.advance(len(chunk))
            yield chunk

    try:
        response = client.post(
            "/import",
            content=body(),
            params={"dry_run": "true"} if args.dry_run else {},
            headers={"content-type": "application/x-ndjson"},
            timeout=httpx.Timeout(30, read=None, write=None),
        )
    finally:
        bar.finish()
        if source is not sys.stdin.buffer:
            source.close()
    report = check(response).json()
    if args.json:
        print_json(report)
    else:
        verb = "would import" if args.dry_run else "imported"
        print(
            f"{verb} {report['imported']}, merged {report['merged']}, rejected {report['rejected']}, "
            f"re-embedded {report['reembedded']}"
        )
        for rejection in report["rejections"]:
            print(f"  line {rejection['line']}: {rejection['reason']}", file=sys.stderr)
        if report["rejected"] > len(report["rejections"]):
            print(f"  ... by reason: {report['rejected_by_reason']}", file=sys.stderr)
    return ExitCode.PARTIAL if report["rejected"] else ExitCode.OK
