"""Bad input and limits: oversized bodies, timeouts and broken upstreams answered in the caller's
own API shape; parallel tool calls and usage chunks relayed unchanged; async SDK clients."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anthropic
import httpx
import openai
import pytest

from harness.upstream import UpstreamStub, tool_call_chunks
from proxy.memory.embedded import EmbeddedStore
from proxy.settings import Settings
from proxy.wire.openai_chat import ChatStreamAssembler
from tests.conftest import RunningMnemo, free_port, serve_mnemo

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def strict(
    store: EmbeddedStore, upstream: UpstreamStub, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RunningMnemo]:
    running = serve_mnemo(
        Settings(
            redis_url=store.url,
            upstream_url=upstream.url,
            anthropic_upstream_url=upstream.anthropic_url,
            data_dir=tmp_path_factory.mktemp("strict"),
            max_body_bytes=20_000,
            upstream_first_byte_timeout_s=0.5,
            run_worker=False,
        )
    )
    yield running
    running.stop()


def test_an_oversized_body_is_413_in_each_shape(strict: RunningMnemo, fresh_upstream: UpstreamStub) -> None:
    big = {"model": "m", "messages": [{"role": "user", "content": "x" * 30_000}]}
    chat = httpx.post(f"{strict.openai_base}/chat/completions", json=big)
    assert chat.status_code == 413 and chat.json()["error"]["type"] == "invalid_request_error"
    messages = httpx.post(f"{strict.url}/v1/messages", json={**big, "max_tokens": 5})
    assert messages.status_code == 413 and messages.json()["error"]["type"] == "request_too_large"
    assert fresh_upstream.requests == []


def test_a_slow_upstream_is_a_504_in_the_callers_shape(
    strict: RunningMnemo, fresh_upstream: UpstreamStub
) -> None:
    api = openai.OpenAI(base_url=strict.openai_base, api_key="k", max_retries=0)
    with pytest.raises(openai.APIStatusError) as caught:
        api.chat.completions.create(model="stall-model", messages=[{"role": "user", "content": "hi"}])
    assert caught.value.status_code == 504 and "did not start answering within 0.5 s" in str(caught.value)


def test_an_unreachable_upstream_is_a_502(store: EmbeddedStore, tmp_path: Path) -> None:
    running = serve_mnemo(
        Settings(
            redis_url=store.url,
            upstream_url=f"http://127.0.0.1:{free_port()}/v1",
            data_dir=tmp_path / "d",
            run_worker=False,
        )
    )
    try:
        response = httpx.post(
            f"{running.openai_base}/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
        )
        assert response.status_code == 502 and response.json()["error"]["type"] == "api_error"
    finally:
        running.stop()


def test_parallel_tool_calls_and_usage_reach_the_client_unchanged(
    mnemo: RunningMnemo, fresh_upstream: UpstreamStub
) -> None:
    body = {
        "model": "tools-model",
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [{"role": "user", "content": "read a.py and run the tests"}],
    }
    with httpx.stream("POST", f"{mnemo.openai_base}/chat/completions", json=body, timeout=30) as response:
        raw = b"".join(response.iter_raw())
    assert raw == b"".join(tool_call_chunks())
    assembler = ChatStreamAssembler()  # what the relay's tee rebuilds from exactly these bytes
    assembler.feed(raw)
    assert {i: (c.id, c.name, c.arguments) for i, c in assembler.tool_calls.items()} == {
        0: ("call_a", "read_file", '{"path": "a.py"}'),
        1: ("call_b", "run", '{"cmd": "pnpm test"}'),
    }
    api = openai.OpenAI(base_url=mnemo.openai_base, api_key="k", max_retries=0)
    chunks = list(
        api.chat.completions.create(
            model="tools-model",
            stream=True,
            messages=[{"role": "user", "content": "read a.py and run the tests"}],
            stream_options={"include_usage": True},
        )
    )
    assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens == 12


def test_async_sdk_clients_streamed_and_not(mnemo: RunningMnemo, fresh_upstream: UpstreamStub) -> None:
    async def run() -> None:
        oa = openai.AsyncOpenAI(base_url=mnemo.openai_base, api_key="k", max_retries=0)
        reply = await oa.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        assert reply.choices[0].message.content == fresh_upstream.reply
        stream = await oa.chat.completions.create(
            model="m", stream=True, messages=[{"role": "user", "content": "hi"}]
        )
        text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
        assert text.strip() == fresh_upstream.reply
        resp = await oa.responses.create(model="m", input="hi")
        assert resp.output_text == fresh_upstream.reply
        an = anthropic.AsyncAnthropic(base_url=mnemo.url, api_key="k", max_retries=0)
        message = await an.messages.create(
            model="m", max_tokens=5, messages=[{"role": "user", "content": "hi"}]
        )
        assert message.content[0].type == "text"
        async with an.messages.stream(
            model="m", max_tokens=5, messages=[{"role": "user", "content": "hi"}]
        ) as s:
            streamed = "".join([t async for t in s.text_stream])
        assert streamed.strip() == fresh_upstream.reply
        await oa.close()
        await an.close()

    asyncio.run(run())


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_a_100_mb_upload_streams_through_without_growing_the_proxy(
    store: EmbeddedStore, fresh_upstream: UpstreamStub, tmp_path: Path
) -> None:
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "proxy.cli",
            "serve",
            "--port",
            str(port),
            "--redis-url",
            store.url,
            "--upstream",
            fresh_upstream.url,
            "--data-dir",
            str(tmp_path / "d"),
            "--no-worker",
            "--log-level",
            "warning",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline
            time.sleep(0.1)
        httpx.get(f"http://127.0.0.1:{port}/v1/models")  # warm the relay path
        before = _rss_mb(process.pid)
        samples: list[float] = []
        done = threading.Event()

        def sample() -> None:  # the proxy's resident memory, every 10 ms, while the upload runs
            while not done.is_set():
                try:
                    samples.append(_rss_mb(process.pid))
                except (OSError, AssertionError):
                    return
                time.sleep(0.01)

        sampler = threading.Thread(target=sample)
        sampler.start()
        boundary = "mnemoboundary"
        size = 100 * 1024 * 1024

        def multipart() -> Iterator[bytes]:
            yield (
                f'--{boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\nfine-tune\r\n'
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.jsonl"\r\n'
                "Content-Type: application/octet-stream\r\n\r\n"
            ).encode()
            chunk = b"x" * (1024 * 1024)
            for _ in range(size // len(chunk)):
                yield chunk
            yield f"\r\n--{boundary}--\r\n".encode()

        response = httpx.post(
            f"http://127.0.0.1:{port}/v1/files",
            content=multipart(),
            timeout=120,
            headers={"content-type": f"multipart/form-data; boundary={boundary}"},
        )
        assert response.status_code == 200
        assert response.json()["body_bytes"] > size
        grown = max(samples) - before
        print(f"proxy RSS grew by at most {grown:.1f} MB over {len(samples)} samples of a 100 MB upload")
        assert grown < 16, grown
    finally:
        fresh_upstream.requests.clear()  # the stand-in kept the 100 MB it received
        process.terminate()
        process.wait(timeout=30)
