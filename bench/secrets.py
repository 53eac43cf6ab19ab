"""Secrets: what of a credential could reach the store or the disk, and what ordinary text is cut.

Two corpora, both written blind (synthetic secrets in each provider's format):
``tests/data/secrets.jsonl``, 129 secrets of 43 kinds, each in three forms: sent plainly, inside a
statement that would be learned ("our stripe key is ..."), inside an assistant's reply;
``tests/data/secrets_round2.jsonl``, 90 secrets of 50 kinds, each in one form (PEM blocks, keys
inside JSON, passwords in URLs). Each exchange goes the way the proxy sends it: ``learning_turns``
(the job payload, which is what is queued and persisted) and extract -> decide (what would be
stored). A secret counts as reached if any 12 characters of its body survive, not only the whole.
``tests/data/benign_technical*.jsonl``: git output, UUIDs, digests, lockfiles, public keys,
certificates, headers, paths: every cut there is a false cut; cuts of e-mail addresses and phone
numbers are counted apart (personal data, cut by design). ``tests/test_attacks.py`` runs the first
corpus through a running server and scans the store's files.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.common import ROOT, report, table
from core.scope import Scope
from extractors import build_extractor
from policies import DEFAULT_POLICY, decide
from policies.secrets import SecretScanner, secret_matcher, shipped_kinds
from proxy.routes.memory_relay import learning_turns
from proxy.wire.openai_chat import OPENAI_CHAT
from proxy.worker.queue import ExtractionJob

DATA = ROOT / "tests" / "data"
SECRETS = (
    ("secrets.jsonl", "43 kinds x 3 forms"),
    ("secrets_round2.jsonl", "50 kinds, PEM/JSON/URLs"),
    ("secrets_round3.jsonl", "55 kinds, round 3"),
)
BENIGN = ("benign_technical.jsonl", "benign_technical_round2.jsonl", "benign_technical_round3.jsonl")
FORMS = ("plain", "statement", "reply")


@dataclass(frozen=True, slots=True)
class Case:
    kind: str
    form: str
    user: str
    reply: str
    secret: str


def cases(path: Path) -> list[Case]:
    out: list[Case] = []
    for row in (json.loads(line) for line in path.read_text().splitlines() if line.strip()):
        if "form" in row:  # one form per row: the text is sent as the user, or is the reply
            text, form = row["text"], row["form"]
            user, reply = ("Set up the credentials please.", text) if form == "reply" else (text, "")
            out.append(Case(row["kind"], form, user, reply, row["secret"]))
            continue
        out += [
            Case(row["kind"], "plain", row["secret"], "", row["secret"]),
            Case(row["kind"], "statement", row["statement"], "", row["secret"]),
            Case(row["kind"], "reply", "Set up the credentials please.", row["reply"], row["secret"]),
        ]
    return out


def survives(secret: str, text: str, sent: str = "") -> bool:
    """Any 12 characters of the secret's made parts in the text: a partly cut key still leaks. Words
    around a value ("DefaultEndpointsProtocol=https;AccountName=") and a bot's public numeric id
    before its token are not the secret."""
    body = re.sub(r"\s+", "", re.sub(r"-----[A-Z0-9 ]+-----", "", secret).replace("\\n", ""))
    parts = [
        p for p in re.split(r"[;=:/@,\"']+", body) if len(p) >= 6 and not re.fullmatch(r"[A-Za-z.-]+", p)
    ]
    parts = [p for p in parts if not (p.isdigit() and len(p) < 12)]
    flat = re.sub(r"\s+", "", text.replace("\\n", ""))
    # what the message holds outside the secret is no evidence of a leak (a certificate beside a key
    # shares the base64 of "-----BEGIN ")
    around = re.sub(r"\s+", "", sent.replace(secret, " ").replace("\\n", ""))
    windows = [
        w for p in parts for w in ([p] if len(p) <= 12 else [p[i : i + 12] for i in range(0, len(p) - 11, 4)])
    ]
    return any(window in flat and window not in around for window in windows)


def main(quick: bool, record: bool) -> None:
    extractor = build_extractor()
    scope = Scope("local", project="bench", user="u")
    now = datetime.now(UTC)
    leak_rows: list[list[Any]] = []
    figures: dict[str, Any] = {}
    for name, label in SECRETS:
        corpus = cases(DATA / name)
        queued = stored = 0
        per_form = dict.fromkeys(FORMS, 0)
        for case in corpus:
            body = {"messages": [{"role": "user", "content": case.user}]}
            turns, _ = learning_turns(OPENAI_CHAT, body, case.reply, DEFAULT_POLICY)
            job = ExtractionJob(request_id="b", scope=scope, turns=turns, observed_at=now, api="bench")
            sent = f"{case.user} {case.reply}"
            in_job = survives(case.secret, job.to_json(), sent) or any(
                survives(case.secret, turn.text, sent) for turn in turns
            )
            kept, _ = decide(extractor.extract(turns), scope, DEFAULT_POLICY, now) if turns else ([], [])
            in_store = any(
                survives(case.secret, f"{d.text} {d.candidate.value} {d.candidate.span}", sent) for d in kept
            )
            queued += in_job
            stored += in_store
            per_form[case.form] += in_job or in_store
        kinds = len({case.kind for case in corpus})
        leak_rows.append([label, kinds, len(corpus), queued, stored, *per_form.values()])
        figures[name] = {
            "kinds": kinds,
            "cases": len(corpus),
            "reached_queue": queued,
            "reached_store": stored,
        }
    scanner = secret_matcher()
    secrets_only = SecretScanner(tuple(k for k in shipped_kinds() if k.source != "personal data"))
    cut_rows: list[list[Any]] = []
    for name in BENIGN:
        lines = [json.loads(line)["text"] for line in (DATA / name).read_text().splitlines() if line.strip()]
        cut = [text for text in lines if scanner.redact(text) != text]
        not_personal = [text for text in cut if secrets_only.redact(text) != text]
        cut_rows.append(
            [
                name,
                len(lines),
                len(not_personal),
                round(len(not_personal) / len(lines), 3),
                len(cut) - len(not_personal),
            ]
        )
        figures[name] = {
            "lines": len(lines),
            "false_cuts": len(not_personal),
            "personal_data_cuts": len(cut) - len(not_personal),
        }
    sections = [
        (
            "Secrets: cases where 12 characters of a secret reach the queue (persisted) or the store; goal 0",
            table(["corpus", "kinds", "cases", "in a queued job", "in a stored record", *FORMS], leak_rows),
        ),
        (
            "False cuts on ordinary technical text (e-mail addresses, phone numbers: cut by design, apart)",
            table(["corpus", "lines", "false cuts", "share", "personal data cut"], cut_rows),
        ),
    ]
    report("secrets", quick, sections, figures, record)
