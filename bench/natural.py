"""Natural-phrasing sets (``tests/data/natural_phrasing*.jsonl``): what learning keeps, per category,
and whether a fact reaches a later session's prompt.

Two measurements:
- **extraction** (``learn_cases``): each case's messages go through the same turn selection as the
  proxy (``learning_turns``), the extractor and the default policy; what would be stored is scored by
  ``extractors.natural``. Earlier statements (``before``, ``context``) are learned first, so a
  change or correction can be checked against the slot the old statement filled.
- **end to end** (``end_to_end``): the same messages through a running Mnemo (embedded store,
  the upstream stand-in on a port, the in-process worker); then a new session asks the case's
  ``probe`` and the fact's value must be in the memory block the upstream received. Each case
  has its own project and user.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
import redis

from core.scope import Scope, level_of
from extractors import Candidate, Extractor, Turn
from extractors.natural import NaturalCase, StoredRecord, contains
from policies import DEFAULT_POLICY, decide
from proxy.routes.memory_relay import learning_turns
from proxy.wire.openai_chat import OPENAI_CHAT
from proxy.worker.queue import STREAM

BENCH_SCOPE = Scope("local", project="bench-proj", user="bench-user")


def _body(case: NaturalCase, upto: int | None = None, with_text: bool = True) -> dict[str, Any]:
    """The chat body a client would send for a case: its context turns, then its user text."""
    context = case.context if upto is None else case.context[:upto]
    messages = [{"role": role, "content": text} for role, text in context]
    if with_text and case.role == "user":
        messages.append({"role": "user", "content": case.text})
    if not messages or messages[-1]["role"] != "user":
        messages.append({"role": "user", "content": "ok"})
    return {"model": "bench", "messages": messages}


def _context_bodies(case: NaturalCase) -> list[dict[str, Any]]:
    """One request per earlier user turn of the conversation, as the client sent them."""
    return [
        _body(case, upto=i + 1, with_text=False) for i, (role, _) in enumerate(case.context) if role == "user"
    ]


def kept_records(
    candidates: list[Candidate], scope: Scope = BENCH_SCOPE
) -> list[tuple[Candidate, StoredRecord]]:
    """What the default policy keeps of ``candidates``: each candidate with the record it writes."""
    kept, _ = decide(candidates, scope, DEFAULT_POLICY, datetime.now(UTC))
    return [
        (
            d.candidate,
            StoredRecord(
                text=d.text,
                value=d.candidate.value,
                scope_level=level_of(d.scope),
                key=d.candidate.key,
                qualifier=d.candidate.qualifier,
                span=d.candidate.span,
            ),
        )
        for d in kept
    ]


def _records(candidates: list[Candidate], scope: Scope) -> list[StoredRecord]:
    return [record for _, record in kept_records(candidates, scope)]


def main_turns(cases: list[NaturalCase]) -> list[list[Turn]]:
    """Each case's own turns, as the proxy would queue them: its conversation, then its text."""
    jobs = []
    for case in cases:
        reply = case.text if case.role == "assistant" else ""
        jobs.append(learning_turns(OPENAI_CHAT, _body(case), reply, DEFAULT_POLICY)[0])
    return jobs


def learn_cases(
    extractor: Extractor, scope: Scope = BENCH_SCOPE
) -> Callable[[list[NaturalCase]], list[tuple[list[StoredRecord], list[StoredRecord]]]]:
    def learn(cases: list[NaturalCase]) -> list[tuple[list[StoredRecord], list[StoredRecord]]]:
        earlier_jobs: list[list[Turn]] = []
        owners: list[int] = []
        for n, case in enumerate(cases):
            for said in case.before:
                body = {"messages": [{"role": "user", "content": said}]}
                earlier_jobs.append(learning_turns(OPENAI_CHAT, body, "", DEFAULT_POLICY)[0])
                owners.append(n)
            for body in _context_bodies(case):
                earlier_jobs.append(learning_turns(OPENAI_CHAT, body, "", DEFAULT_POLICY)[0])
                owners.append(n)
        main_jobs = main_turns(cases)
        earlier: list[list[StoredRecord]] = [[] for _ in cases]
        for owner, found in zip(owners, extractor.extract_many(earlier_jobs), strict=True):
            earlier[owner] += _records(found, scope)
        results = []
        for n, (case, found) in enumerate(zip(cases, extractor.extract_many(main_jobs), strict=True)):
            own = [c for c in found if c.turn.text == case.text and c.turn.role == case.role]
            results.append((_records(own, scope), earlier[n]))
        return results

    return learn


@dataclass(slots=True)
class EndToEnd:
    facts: int = 0
    reached: int = 0
    misses: list[tuple[str, str]] | None = None

    @property
    def share(self) -> float:
        return self.reached / self.facts if self.facts else 1.0


def _wait_drained(client: redis.Redis, added_at_least: int) -> None:
    from harness.helpers import wait_drained_on

    wait_drained_on(client, added_at_least, timeout_s=300.0)


def end_to_end(cases: list[NaturalCase], mnemo_url: str, stub: Any, redis_url: str) -> dict[str, EndToEnd]:
    """Teach each case through Mnemo, then probe it from a new session. ``stub``: the upstream stand-in
    (``harness.upstream.UpstreamStub``), whose reply is set for agent reports and whose recorded
    requests show the injected block."""
    from harness.helpers import injected_block

    store = redis.Redis.from_url(redis_url)
    http = httpx.Client(base_url=mnemo_url, timeout=30)
    run = uuid.uuid4().hex[:6]
    scoped = [c for c in cases if any(not f.optional for f in c.facts) and c.probe]

    def post(case_no: int, session: str, body: dict[str, Any]) -> None:
        headers = {
            "X-Mnemo-Project": f"e2e-{run}-{case_no}",
            "X-Mnemo-User": f"user-{run}-{case_no}",
            "X-Mnemo-Session": f"{session}-{run}-{case_no}",
        }
        response = http.post("/v1/chat/completions", json=body, headers=headers)
        response.raise_for_status()

    def added() -> int:
        try:
            info: Any = store.xinfo_stream(STREAM)
        except redis.ResponseError:
            return 0
        return int(info.get("entries-added", info.get(b"entries-added", 0)))

    base = added()
    sent = 0
    for n, case in enumerate(scoped):  # earlier sessions
        for said in case.before:
            post(n, "before", {"model": "bench", "messages": [{"role": "user", "content": said}]})
            sent += 1
    _wait_drained(store, base + sent)
    for n, case in enumerate(scoped):  # earlier turns of the same conversation
        for body in _context_bodies(case):
            post(n, "talk", body)
            sent += 1
    _wait_drained(store, base + sent)
    for n, case in enumerate(scoped):
        stub.reply = case.text if case.role == "assistant" else "Sure, noted."
        post(n, "talk", _body(case))
        sent += 1
    stub.reply = "Sure, here is what I know."
    _wait_drained(store, base + sent)
    results: dict[str, EndToEnd] = {}
    for n, case in enumerate(scoped):
        stub.requests.clear()
        post(n, "later", {"model": "bench", "messages": [{"role": "user", "content": case.probe}]})
        sent += 1
        block = injected_block(stub.chat_requests()[-1]) or ""
        score = results.setdefault(case.category, EndToEnd(misses=[]))
        for fact in case.facts:
            if fact.optional:
                continue
            score.facts += 1
            if any(contains(block, v) for v in fact.values):
                score.reached += 1
            elif score.misses is not None:
                score.misses.append((case.id, fact.value))
    _wait_drained(store, base + sent)
    http.close()
    store.close()
    total = EndToEnd(misses=[])
    for score in results.values():
        total.facts += score.facts
        total.reached += score.reached
        total.misses = [*(total.misses or []), *(score.misses or [])]
    results["all"] = total
    return results
