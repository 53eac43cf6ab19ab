"""The `mnemo` command."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import logging
import signal
import socket
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from types import FrameType
from typing import TYPE_CHECKING

from proxy.errors import ConfigError, MnemoError
from proxy.settings import Settings

if TYPE_CHECKING:
    from litestar import Litestar

log = logging.getLogger("mnemo")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mnemo", description="A portable memory layer for AI agents.")
    commands = parser.add_subparsers(dest="command", required=True)

    def store_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--redis-url", help="use this Redis (with search); unset: start the embedded store")
        sub.add_argument("--data-dir", help="where the embedded store keeps its data")
        sub.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])

    serve = commands.add_parser("serve", help="run the proxy (and an in-process extraction worker)")
    serve.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on (default 8080)")
    serve.add_argument("--upstream", dest="upstream_url", help="OpenAI-style base URL")
    serve.add_argument("--anthropic-upstream", dest="anthropic_upstream_url", help="Anthropic base URL")
    serve.add_argument("--policy", dest="policy_file", help="policy file (YAML)")
    serve.add_argument("--no-worker", action="store_true", help="do not run an extraction worker in process")
    serve.add_argument("--insecure", action="store_true", help="allow a non-loopback address without keys")
    store_options(serve)

    worker = commands.add_parser("worker", help="run an extraction worker")
    store_options(worker)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    try:
        if args.command == "serve":
            return _serve(args)
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

    settings = _settings(
        args,
        ["host", "port", "upstream_url", "anthropic_upstream_url", "redis_url", "data_dir", "policy_file"],
    ).with_changes(insecure=args.insecure, run_worker=not args.no_worker, log_level=args.log_level)
    if not _is_loopback(settings.host) and not settings.insecure:
        raise ConfigError(
            f"refusing to listen on {settings.host} without keys mode: anyone who reaches it could read "
            "and write memory. Bind to 127.0.0.1, or pass --insecure if you really mean it."
        )
    _check_port_free(settings.host, settings.port)
    _terminate_on_sigterm()
    if settings.redis_url is not None:
        return _run_uvicorn(create_app(settings), settings)
    # The store and the models each take a second or more: load the models in a thread meanwhile.
    # The store is started from this thread: its parent-death signal follows the forking thread.
    with ThreadPoolExecutor(max_workers=1) as pool:
        models = pool.submit(load_models, settings)
        with EmbeddedStore(settings.data_dir) as store:
            log.info("embedded store in %s", settings.data_dir)
            app = create_app(settings.with_changes(redis_url=store.url), models=models.result())
            return _run_uvicorn(app, settings)


def _run_uvicorn(app: Litestar, settings: Settings) -> int:
    import uvicorn

    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level,
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=5,
    )
    server = uvicorn.Server(config)
    server.run()
    return 0 if server.started else 1


def _terminate_on_sigterm() -> None:
    # Before uvicorn installs its handlers, a SIGTERM must unwind through `with EmbeddedStore` so
    # the store is stopped; uvicorn re-raises SIGTERM after its graceful shutdown, and as
    # KeyboardInterrupt that also ends in a clean exit 0 from main().
    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def _worker(args: argparse.Namespace) -> int:
    from proxy.memory.embedded import discover_url

    settings = _settings(args, ["redis_url", "data_dir"])
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
    from policies import DEFAULT_POLICY
    from proxy.jobs import JobQueue, Learner, run_worker
    from proxy.memory.embeddings import EmbeddingService, build_embedder
    from proxy.memory.redis_store import RedisMemoryStore

    assert settings.redis_url is not None
    embedder = await asyncio.to_thread(
        build_embedder, settings.embedding_url, settings.embedding_model, settings.embedding_api_key
    )
    store = RedisMemoryStore(settings.redis_url, embedder.model_id, embedder.dims, timeout_s=5)
    queue = JobQueue(settings.redis_url)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await store.open()
        extractor = await asyncio.to_thread(build_extractor)
        learner = Learner(extractor, EmbeddingService(embedder), store, DEFAULT_POLICY)
        log.info("worker %s ready", queue.consumer)
        await run_worker(queue, learner, stop)
    finally:
        await queue.close()
        await store.close()


if __name__ == "__main__":
    sys.exit(main())
