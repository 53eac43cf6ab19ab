"""What docker/check_env.py points the installed Mnemo at, started from the repo's dev venv.

The image leaves the embedded store out, so the check borrows it from the dev venv: a private
Valkey with RediSearch stands in for the Redis 8 of compose.yaml (no Redis 8 binary installs on
these machines), and the tests' upstream stand-in plays the provider. Prints one JSON line with
their URLs, then keeps both up until its standard input closes.

    PYTHONPATH=. .venv/bin/python docker/check_services.py DATA_DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from harness.upstream import UpstreamStub
from proxy.memory.embedded import EmbeddedStore


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with EmbeddedStore(Path(argv[0])) as store:
        upstream = UpstreamStub(reply="Noted.").start()
        try:
            print(json.dumps({"redis_url": store.url, "upstream_url": upstream.url}), flush=True)
            sys.stdin.read()  # until the checker closes it, or exits
        finally:
            upstream.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
