"""Secrets: what of a credential could reach the store or the disk, and what ordinary text is cut.

``tests/data/secrets.jsonl``: 129 secrets of 43 kinds (synthetic, in each provider's format), each in
three forms: sent plainly, inside a statement that would be learned ("our stripe key is ..."), and
inside an assistant's reply. Each exchange goes the way the proxy sends it: ``learning_turns`` (the
job payload, which is what is queued and persisted) and extract -> decide (what would be stored).
``tests/data/benign_technical.jsonl``: git output, UUIDs, digests, build ids, trace ids, versions,
paths: every cut there is a false cut. ``tests/test_attacks.py`` runs the same corpus through a
running server and scans the store's files.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from bench.common import ROOT, report, table
from extractors import build_extractor
from policies import DEFAULT_POLICY, decide
from policies.secrets import secret_matcher
from proxy.jobs import ExtractionJob
from proxy.routes.memory_relay import learning_turns
from proxy.scope import Scope
from proxy.wire.openai_chat import OPENAI_CHAT

DATA = ROOT / "tests" / "data"


def main(quick: bool, record: bool) -> None:
    rows = [json.loads(line) for line in (DATA / "secrets.jsonl").read_text().splitlines() if line]
    benign = [json.loads(line)["text"] for line in (DATA / "benign_technical.jsonl").read_text().splitlines()]
    extractor = build_extractor()
    scope = Scope("local", project="bench", user="u")
    now = datetime.now(UTC)
    reached_queue = reached_store = 0
    per_form: dict[str, int] = {"plain": 0, "statement": 0, "reply": 0}
    for row in rows:
        for form, user, reply in (
            ("plain", row["secret"], ""),
            ("statement", row["statement"], ""),
            ("reply", "Set up the credentials please.", row["reply"]),
        ):
            body = {"messages": [{"role": "user", "content": user}]}
            turns, _ = learning_turns(OPENAI_CHAT, body, reply, DEFAULT_POLICY)
            job = ExtractionJob(request_id="b", scope=scope, turns=turns, observed_at=now, api="bench")
            queued = row["secret"] in job.to_json()
            kept, _ = decide(extractor.extract(turns), scope, DEFAULT_POLICY, now) if turns else ([], [])
            stored = any(row["secret"] in f"{d.text} {d.candidate.value} {d.candidate.span}" for d in kept)
            reached_queue += queued
            reached_store += stored
            per_form[form] += queued or stored
    scanner = secret_matcher()
    false_cuts = [text for text in benign if scanner.redact(text) != text]
    kinds = len({row["kind"] for row in rows})
    sections = [
        (
            "Secrets: what reaches the queue (persisted) or the store, per form; goal 0",
            table(
                [
                    "kinds",
                    "secrets",
                    "forms",
                    "in a queued job",
                    "in a stored record",
                    "plain",
                    "statement",
                    "reply",
                ],
                [[kinds, len(rows), 3, reached_queue, reached_store, *per_form.values()]],
            ),
        ),
        (
            "False cuts on ordinary technical text (git output, UUIDs, digests, build ids, traces, versions)",
            table(
                ["lines", "cut", "share"],
                [[len(benign), len(false_cuts), round(len(false_cuts) / len(benign), 3)]],
            ),
        ),
    ]
    figures: dict[str, Any] = {
        "kinds": kinds,
        "secrets": len(rows),
        "reached_queue": reached_queue,
        "reached_store": reached_store,
        "false_cuts": [len(false_cuts), len(benign)],
    }
    report("secrets", quick, sections, figures, record)
