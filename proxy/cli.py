"""The `mnemo` command."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import logging
import os
import signal
import socket
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from core.errors import ConfigError, MnemoError
from proxy import audit_cli, memories_cli
from proxy.mcp import command as mcp_command
from proxy.memories_client import DEFAULT_URL
from proxy.observability import configure_logging
from proxy.settings import ENV_VARS, Settings

if TYPE_CHECKING:
    from litestar import Litestar

    from policies import Policy

log = logging.getLogger("mnemo")


def _with_env(text: str, name: str) -> str:
    """A flag's help with the variable that also sets it and the default: "... [MNEMO_PORT; default 8080]"."""
    default = getattr(Settings(), name)
    shown = (
        "unset"
        if default is None
        else ",".join(sorted(default)) or "none"
        if isinstance(default, frozenset)
        else default
    )
    return f"{text} [{ENV_VARS[name]}; default {shown}]"


def _environment_epilog(flags: Sequence[str]) -> str:
    """The settings only the environment sets, with their defaults, for `mnemo serve --help`."""
    defaults = Settings()
    lines = ["settings read from the environment only:"]
    for name, var in ENV_VARS.items():
        if name not in flags:
            value = getattr(defaults, name)
            shown = (
                "unset"
                if value is None
                else ",".join(sorted(value)) or "none"
                if isinstance(value, frozenset)
                else value
            )
            lines.append(f"  {var:<36} default {shown}")
    return "\n".join(lines)


_SERVE_FLAGS = (
    "host", "port", "upstream_url", "anthropic_upstream_url", "policy_file", "redis_url", "data_dir",
    "log_level", "log_format",
)  # fmt: skip


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mnemo", description="A portable memory layer for AI agents.")
    parser.add_argument("--version", action="version", version=f"mnemo {_version()}")
    commands = parser.add_subparsers(dest="command", required=True)

    def store_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument(
            "--redis-url",
            help=_with_env("use this Redis 8 (with search); unset: the embedded store", "redis_url"),
        )
        sub.add_argument("--data-dir", help=_with_env("where the embedded store keeps its data", "data_dir"))
        sub.add_argument(
            "--log-level", choices=["debug", "info", "warning", "error"], help=_with_env("", "log_level")
        )
        sub.add_argument(
            "--log-format", choices=["text", "json"], help=_with_env("json: one object a line", "log_format")
        )

    serve = commands.add_parser(
        "serve",
        help="run the proxy (and an in-process extraction worker)",
        epilog=_environment_epilog(_SERVE_FLAGS),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    serve.add_argument("--host", help=_with_env("address to listen on", "host"))
    serve.add_argument("--port", type=int, help=_with_env("port to listen on", "port"))
    serve.add_argument(
        "--upstream", dest="upstream_url", help=_with_env("OpenAI-style base URL", "upstream_url")
    )
    serve.add_argument(
        "--anthropic-upstream",
        dest="anthropic_upstream_url",
        help=_with_env("Anthropic base URL", "anthropic_upstream_url"),
    )
    serve.add_argument("--policy", dest="policy_file", help=_with_env("policy file (YAML)", "policy_file"))
    serve.add_argument("--no-worker", action="store_true", help="do not run an extraction worker in process")
    serve.add_argument("--insecure", action="store_true", help="allow a non-loopback address without keys")
    store_options(serve)

    worker = commands.add_parser("worker", help="run an extraction worker")
    worker.add_argument("--policy", dest="policy_file", help=_with_env("policy file (YAML)", "policy_file"))
    store_options(worker)

    policy = commands.add_parser("policy", help="policy files")
    policy_commands = policy.add_subparsers(dest="policy_command", required=True)
    check = policy_commands.add_parser("check", help="validate a policy file: exit 0, or 1 with each problem")
    check.add_argument("file")

    memories_cli.add_parser(commands)
    audit_cli.add_parser(commands)
    mcp_command.add_parser(commands)

    doctor = commands.add_parser("doctor", help="ask a running server how it is, and check its policy file")
    doctor.add_argument(
        "--url",
        default=os.environ.get("MNEMO_URL", DEFAULT_URL),
        help=f"the server [MNEMO_URL; default {DEFAULT_URL}]",
    )
    doctor.add_argument("--policy", dest="policy_file", help=_with_env("policy file to check", "policy_file"))
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mnemo-proxy")
    except PackageNotFoundError:
        return "unknown (not installed)"


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = Settings.from_sources(
            {"log_level": getattr(args, "log_level", None), "log_format": getattr(args, "log_format", None)}
        )
        level = settings.log_level if args.command in ("serve", "worker") else "warning"
        configure_logging(level, settings.log_format)
        if args.command == "serve":
            return _serve(args)
        if args.command == "policy":
            return _policy_check(args)
        if args.command == "doctor":
            return _doctor(args)
        if args.command == "memories":
            return memories_cli.run(args)
        if args.command == "audit":
            return audit_cli.run(args)
        if args.command == "mcp":
            return mcp_command.run(args)
        return _worker(args)
    except MnemoError as exc:
        print(f"mnemo: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        # SIGINT or SIGTERM (uvicorn re-raises the signal after its graceful shutdown): by now the
        # `with` blocks have stopped the embedded store, so this is a clean exit.
        return 0


def _settings(args: argparse.Namespace, names: Sequence[str]) -> Settings:
    flags = {name: getattr(args, name, None) for name in names}
    return Settings.from_sources(flags)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _check_port_free(host: str, port: int) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror}") from exc


def _serve(args: argparse.Namespace) -> int:
    from proxy.app import create_app
    from proxy.lifespan import load_models
    from proxy.memory.embedded import EmbeddedStore
    from proxy.memory.supervisor import StoreSupervisor

    settings = _settings(
        args,
        _SERVE_FLAGS,
    ).with_changes(insecure=args.insecure, run_worker=not args.no_worker)
    mode = _refuse_bad_policy(settings.policy_file).mode if settings.policy_file is not None else "local"
    if not _is_loopback(settings.host) and mode != "keys" and not settings.insecure:
        raise ConfigError(
            f"refusing to listen on {settings.host} without keys mode: anyone who reaches it could read "
            "and write memory. Bind to 127.0.0.1, use a keys-mode policy, or pass --insecure if you mean it."
        )
    _check_port_free(settings.host, settings.port)
    _terminate_on_sigterm()
    if settings.redis_url is not None:
        return _run_uvicorn(create_app(settings), settings)
    # The store and the models each take a second or more: load the models in a thread meanwhile.
    # The store is started from this thread: its parent-death signal follows the forking thread.
    with ThreadPoolExecutor(max_workers=1) as pool:
        models = pool.submit(load_models, settings)
        with EmbeddedStore(settings.data_dir) as store, StoreSupervisor(store) as supervisor:
            log.info("embedded store in %s", settings.data_dir)
            app = create_app(
                settings.with_changes(redis_url=store.url), models=models.result(), embedded=supervisor
            )
            return _run_uvicorn(app, settings)


def _run_uvicorn(app: Litestar, settings: Settings) -> int:
    import uvicorn

    from proxy.server import server_config

    server = uvicorn.Server(server_config(app, settings.host, settings.port, settings.log_level))
    server.run()
    return 0 if server.started else 1


def _terminate_on_sigterm() -> None:
    # Before uvicorn installs its handlers, a SIGTERM must unwind through `with EmbeddedStore` so
    # the store is stopped; uvicorn re-raises SIGTERM after its graceful shutdown, and as
    # KeyboardInterrupt that also ends in a clean exit 0 from main().
    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def _refuse_bad_policy(path: Path) -> Policy:
    from policies import PolicyError, load_policy

    try:
        return load_policy(path)
    except PolicyError as exc:
        raise ConfigError("the policy file is refused:\n" + "\n".join(exc.problems)) from exc


def _policy_check(args: argparse.Namespace) -> int:
    """`mnemo policy check FILE`: 0 and a summary when the file is usable, else 1 and each problem."""
    from policies.loader import load_policy
    from policies.schema import PolicyError

    try:
        policy = load_policy(Path(args.file))
    except PolicyError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    print(
        f"{args.file}: ok: policy {policy.label}, mode {policy.mode}, {len(policy.principals)} principal(s), "
        f"{len(policy.retention.ttl)} retention rule(s)"
    )
    return 0


def _doctor(args: argparse.Namespace) -> int:
    """`mnemo doctor`: what a running server says about itself, and whether its policy file is good."""
    import httpx

    from policies.loader import load_policy
    from policies.schema import PolicyError

    problems = 0
    url = args.url.rstrip("/")
    try:
        response = httpx.get(f"{url}/readyz", timeout=5)
        ready = response.json()
        for name, value in ready.get("checks", {}).items():
            print(f"{name}: {value}")
        if not ready.get("ready"):
            problems += 1
            print(f"server at {url}: not ready")
        else:
            print(f"server at {url}: ready")
    except (httpx.HTTPError, ValueError) as exc:
        problems += 1
        print(f"server at {url}: no answer ({exc})")
    settings = Settings.from_sources({"policy_file": args.policy_file})
    if settings.policy_file is not None:
        try:
            policy = load_policy(settings.policy_file)
            print(f"policy file {settings.policy_file}: ok ({policy.label})")
        except PolicyError as exc:
            problems += 1
            print(f"policy file {settings.policy_file}: refused: {exc}")
    return 1 if problems else 0


def _worker(args: argparse.Namespace) -> int:
    from proxy.memory.embedded import discover_url

    settings = _settings(args, ["redis_url", "data_dir", "policy_file"])
    url = settings.redis_url or discover_url(settings.data_dir)
    if url is None:
        raise ConfigError(
            f"no store to work on: pass --redis-url, or start `mnemo serve` with data dir {settings.data_dir}"
        )
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_run_worker(settings.with_changes(redis_url=url)))
    return 0


async def _run_worker(settings: Settings) -> None:
    from extractors import build_extractor
    from policies import PolicyHolder
    from proxy.memory.embeddings import EmbeddingService, build_embedder
    from proxy.memory.redis_store import RedisMemoryStore
    from proxy.observability import Tracing
    from proxy.worker.learner import Learner
    from proxy.worker.loop import run_worker
    from proxy.worker.queue import JobQueue

    assert settings.redis_url is not None
    embedder = await asyncio.to_thread(
        build_embedder, settings.embedding_url, settings.embedding_model, settings.embedding_api_key
    )
    store = RedisMemoryStore(settings.redis_url, embedder.model_id, embedder.dims, timeout_s=5)
    queue = JobQueue(settings.redis_url)
    tracing = Tracing.from_env("mnemo-worker")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await store.open()
        extractor = await asyncio.to_thread(build_extractor)
        learner = Learner(
            extractor, EmbeddingService(embedder), store, PolicyHolder.from_file(settings.policy_file)
        )
        log.info("worker %s ready", queue.consumer)
        await run_worker(queue, learner, stop, tracing=tracing)
    finally:
        tracing.shutdown()
        await queue.close()
        await store.close()


if __name__ == "__main__":
    sys.exit(main())
