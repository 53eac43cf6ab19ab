"""`python -m bench NAME [--quick]`: run one benchmark, print its tables and a JSON line."""

from __future__ import annotations

import argparse
import importlib
import sys

BENCHMARKS = (
    "overhead",
    "recall",
    "relevance",
    "extraction",
    "persona",
    "portability",
    "poisoning",
    "secrets",
    "inspector",
    "calibrate",
)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("name", choices=BENCHMARKS)
    parser.add_argument("--quick", action="store_true", help="a smaller run (under 3 minutes)")
    parser.add_argument("--no-record", action="store_true", help="do not append to bench/RESULTS.md")
    args = parser.parse_args()
    module = importlib.import_module(f"bench.{args.name}")
    module.main(quick=args.quick, record=not args.no_record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
