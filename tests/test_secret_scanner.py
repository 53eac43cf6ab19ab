"""The secret scanner as a pure function: what it cuts, what it leaves, and its data file's schema."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from policies.secrets import REDACTED, SecretScanner, load_kinds, secret_matcher, shipped_kinds

DATA = Path(__file__).parent / "data"
SCANNER = secret_matcher()
BODY = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7" + "Qm4Vk9yA8z2s9Ct" * 3


def made_parts(secret: str) -> list[str]:
    """12-character windows of the secret's random parts (not the words around a value)."""
    body = re.sub(r"\s+", "", re.sub(r"-----[A-Z0-9 ]+-----", "", secret).replace("\\n", ""))
    parts = [
        p for p in re.split(r"[;=:/@,\"']+", body) if len(p) >= 6 and not re.fullmatch(r"[A-Za-z.-]+", p)
    ]
    return [p[i : i + 12] for p in parts for i in range(0, max(len(p) - 11, 1), 4)]


def test_every_secret_of_the_second_corpus_is_cut_whole() -> None:
    """90 secrets of 50 kinds, PEM blocks and keys inside JSON among them: no 12 characters survive."""
    rows = [json.loads(line) for line in (DATA / "secrets_round2.jsonl").read_text().splitlines() if line]
    leaked = [
        row["kind"]
        for row in rows
        if any(w in SCANNER.redact(row["text"]) for w in made_parts(row["secret"]))
    ]
    assert leaked == []


def test_a_private_key_block_is_cut_from_armour_to_armour() -> None:
    lines = [BODY[:64], BODY[64:90], "VVtsRMcxeZzUITcEZIRFGo=="]
    pem = "\n".join(["-----BEGIN EC PRIVATE KEY-----", *lines, "-----END EC PRIVATE KEY-----"])
    assert SCANNER.redact(f"remember this one, it's the signing key:\n{pem}\nthanks") == (
        f"remember this one, it's the signing key:\n{REDACTED}\nthanks"
    )
    # inside a service account JSON, newlines escaped, after a key-like name that matches first
    escaped = pem.replace("\n", "\\n")
    redacted = SCANNER.redact(f'{{"private_key_id": "abc", "private_key": "{escaped}\\n", "type": "x"}}')
    assert "VVtsRMcx" not in redacted and BODY[:20] not in redacted and '"type": "x"' in redacted


@pytest.mark.parametrize(
    "text",
    [
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDYQm4/Vk9yA8z2s9Ct+y8X2PJMMfcdi5AurG/A4sq/9 priya@laptop",
        f"-----BEGIN CERTIFICATE-----\n{BODY}\n-----END CERTIFICATE-----",
        "ED25519 key fingerprint is SHA256:VOmXDPyWIrbPEYQkf3V+PdHCyEQe9bconUJXo8lkmPs.",
        '"integrity": "sha512-H7A70PPxJSyQvh2rdGDBXBBs2xG8XgPCuQwKAZYB2ulLHjZqJMf3GmXyvOrB8Dx=="',
        'etag: W/"SvaG-qFUbI5TpmhC5vj-ma8WNc_m5nkAIL4fOXnE0b-EtgTzXqaAOaTC=="',
        "x-amz-cf-id: r6tW95Y7YMiidNpU01qIBOsDdyNrKuD7WQR_571DqACUwS6niJG0GuuJ==",
        "STRIPE_SECRET_KEY=sk_test_your_key_here",
        "DB_PASSWORD=changeme",
        "MONGO_URI=mongodb+srv://<username>:<password>@cluster0.example.mongodb.net/",
        "arn:aws:lambda:us-east-1:192561623508:function:thumbnailer:10",
        "/Users/marcus/Library/Caches/pypoetry/virtualenvs/acme-backend-4tI2J2Yq-py3.11/lib/python3.11",
        "npm notice 📦  @acme/ui@4.23.9",
        "helm chart version 0.11.2+6923849 rejected by chartmuseum",
        "git checkout -b fix/login-redirect 9f8e7d6c5b4a39281706f5e4d3c2b1a098765432",
        "whats the difference between a salt and a pepper for password hashing? argon2id or bcrypt",
        "aws ecr get-login-password | docker login --username AWS --password-stdin 24.dkr.ecr.aws.com",
        "A-commands-001",
        'variable "db_password" {}\nurl = "postgres://app:${var.db_password}@db:5432/app"',
        "[Peer]\nPublicKey = AuGlpIMMusDQkapMrGIHDd/dCpSmPc1HAGhJqE5mCII=",
        "github.com/gin-gonic/gin v1.9.1 h1:4idEAncQnU5cB7BeOkPtxjfCSye0AAm1R0RVIqJ+Jmg=",
        "mysql -u root -p shop  # it prompts for the password",
        "mkdir -p build && docker run -p 3306:3306 mysql:8",
    ],
)
def test_published_and_placeholder_text_is_left_alone(text: str) -> None:
    assert SCANNER.redact(text) == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8ExKeY29", "wJalrXUtnFEMI/K7MDENG"),
        ("DB_PASSWORD=hunter2x9!", "hunter2x9"),
        ("ssh-rsa-ish but private: " + BODY, BODY[:24]),
        ("mail me at dana.kovac@acme.io", "dana.kovac@acme.io"),
        ("call +44 20 7946 0958 tomorrow", "7946 0958"),
        ("card 4539 1488 0343 6467 exp 12/29", "4539 1488 0343 6467"),
        ("my card is 4111 1111 1111 1111", "4111 1111"),  # a test number, but said as someone's card
        (
            "Done, I set the twilio auth token to `5bf3498dea825dcbb635ba513c3ee00b` in .env",
            "5bf3498dea825dcb",
        ),
        ("my login for the old jira is C0pp3r@2, can you put it in the script", "C0pp3r@2"),
        ("wifi: Acme-Guest / c7fQedaVnaO5", "c7fQedaVnaO5"),
        ("nas is at 192.0.2.7, login admin pw Maple-Harbor-42", "Maple-Harbor-42"),
        ("vercel deploy --prod --token Y4XYXi1ZeN4fjyS7J4ZCZtua", "Y4XYXi1ZeN4fjyS7J4ZCZtua"),
        ("admin:$apr1$2y6eG26M$vVAsfyAGRlyfFEajyf0JvZ", "vVAsfyAGRlyfFEajyf0JvZ"),
        ("the 2fa setup key: e7nm daos yqoo o46i 5ulq k2np mevg pd7h", "o46i 5ulq"),
        ("codes:\n7140c-8d9fa\n63f60-1c25b\nfbf31-8100e\n05219-cf256\n", "63f60-1c25b"),
        ("why does this not connect? mysql -u admin -p'Kest9rel&x' -h db.internal", "Kest9rel"),
        ("mysqldump -uroot -phunter22 shop > dump.sql", "hunter22"),
    ],
)
def test_secrets_and_personal_numbers_are_cut(text: str, secret: str) -> None:
    assert secret not in SCANNER.redact(text)


def test_a_public_kind_must_say_true_or_false() -> None:
    with pytest.raises(ValueError, match=r"secrets\.jsonl:1: public is true or false"):
        load_kinds('{"id": "x", "pattern": "x", "source": "s", "public": "yes"}', "secrets.jsonl")


def test_public_kinds_mask_only_what_lies_inside_them() -> None:
    kinds = load_kinds('{"id": "k", "pattern": "KEY-[0-9]{6}", "source": "s"}', "own.jsonl")
    published = load_kinds(
        '{"id": "p", "pattern": "cert\\\\(KEY-[0-9]{6}\\\\)", "source": "s", "public": true}', "p"
    )
    scanner = SecretScanner((*kinds, *published))
    assert scanner.redact("cert(KEY-123456) and KEY-654321") == f"cert(KEY-123456) and {REDACTED}"
    assert {k.id for k in shipped_kinds() if k.public} >= {"public_certificate", "public_ssh_key"}
