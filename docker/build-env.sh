#!/usr/bin/env bash
# The production image's environment without Docker: the Dockerfile's two install steps
# (docker/install.py deps, then project), run into a prefix instead of the image's /usr/local,
# then docker/check_env.py on the result. CI runs this (.ci/run); see docs/docker.md.
#
#   docker/build-env.sh [PREFIX]   # default: a temporary dir, removed afterwards
#
# PYTHON picks the interpreter (default python3; 3.11 like the image). The check borrows the
# embedded store from the dev venv (.venv, or VENV_PYTHON) to stand in for Redis 8.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
prefix=${1:-}
if [ -z "$prefix" ]; then
    prefix=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-image-env.XXXXXX")
    trap 'rm -rf "$prefix"' EXIT
fi
started=$SECONDS
echo "building the image's environment in $prefix with $("$python" -c 'import sys; print(sys.executable, sys.version.split()[0])')"
"$python" docker/install.py deps --prefix "$prefix"
"$python" docker/install.py project --prefix "$prefix"
echo "installed: $(du -sh "$prefix" | cut -f1) in $((SECONDS - started)) s"
"$python" docker/check_env.py "$prefix" --venv-python "${VENV_PYTHON:-.venv/bin/python}"
echo "docker/build-env.sh: ok in $((SECONDS - started)) s"
