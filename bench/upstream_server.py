"""The upstream stand-in as its own process, so it does not share a GIL with what it measures.

Streams send ``--chunks`` frames ``--chunk-delay-ms`` apart; the bench compares those gaps with
what arrives through Mnemo.
"""

from __future__ import annotations

import argparse
import asyncio
import json

import uvicorn

from harness.upstream import UpstreamStub, chat_chunks, respond


class PacedUpstream(UpstreamStub):
    chunks: int = 10

    async def _chat(self, record, send):  # type: ignore[no-untyped-def]
        payload = json.loads(record.body)
        if not payload.get("stream"):
            await super()._chat(record, send)
            return
        frames = chat_chunks(" ".join(f"w{i}" for i in range(self.chunks)), payload.get("model", "m"))
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        for frame in frames:
            await send({"type": "http.response.body", "body": frame, "more_body": True})
            await asyncio.sleep(self.chunk_delay_s)
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _echo(self, record, send):  # type: ignore[no-untyped-def]
        await respond(send, 200, {"ok": True})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--chunks", type=int, default=10)
    parser.add_argument("--chunk-delay-ms", type=float, default=5.0)
    args = parser.parse_args()
    app = PacedUpstream(chunk_delay_s=args.chunk_delay_ms / 1000)
    app.chunks = args.chunks
    app.requests = _Discard()  # keep nothing: a long benchmark must not grow this process
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning", access_log=False)


class _Discard(list):  # type: ignore[type-arg]
    def append(self, item: object) -> None:
        pass


if __name__ == "__main__":
    main()
