"""Signed exports (issue 16): an Ed25519 signature over a manifest that ends the file.

A signed export is the usual JSON Lines, then its trailer:

- lines ``{"mnemo_line_sha256": [...], "from": N}``: the sha256 (hex) of each record line (its bytes
  without the newline), 500 a line, in order, so a verifier can name the first line that differs;
- one last line ``{"mnemo_manifest": {...}, "signature": "<base64>"}``. The manifest says the
  ``count`` of record lines, ``lines_sha256`` (sha256 of those line digests joined by newlines),
  the ``algorithm`` (ed25519), the signer's ``public_key`` and when it was signed; the signature is
  over the manifest's canonical JSON (keys sorted, no spaces, UTF-8).

Keys: the server's is ``export-signing.key`` in its data dir (PKCS8 PEM, created 0600 on first
use); an operator may sign with a key file of their own (PEM, e.g. ``openssl genpkey -algorithm
ed25519``). A public key is written ``ed25519:<base64 of the 32 raw bytes>``; a PEM public key file
is read too. Importers skip trailer lines; ``verify_lines`` checks them against a trusted key.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from core.errors import ConfigError
from core.model import canonical_json, utcnow

KEY_FILE = "export-signing.key"
DIGESTS_PER_LINE = 500
MANIFEST = "mnemo_manifest"
LINE_DIGESTS = "mnemo_line_sha256"
_TRAILER_STARTS = (b'{"' + MANIFEST.encode(), b'{"' + LINE_DIGESTS.encode())


class SignatureRefused(Exception):
    """A file that does not verify against the trusted key; the message says where and why."""


def is_trailer(record: dict[str, Any]) -> bool:
    """A decoded line that belongs to a signed export's trailer, not a record."""
    return MANIFEST in record or LINE_DIGESTS in record


# Keys ------------------------------------------------------------------------------------------------


def data_dir_key(data_dir: Path) -> Ed25519PrivateKey:
    """The data dir's signing key, made (0600) on first use."""
    path = data_dir / KEY_FILE
    if not path.exists():
        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        pem = Ed25519PrivateKey.generate().private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another process made it first: use theirs
        else:
            with os.fdopen(fd, "wb") as out:
                out.write(pem)
    return private_key(path)


def private_key(path: Path) -> Ed25519PrivateKey:
    """An Ed25519 private key from a PEM file (PKCS8 or OpenSSH)."""
    try:
        raw = path.read_bytes()
        key: Any = (
            serialization.load_ssh_private_key(raw, password=None)
            if raw.startswith(b"-----BEGIN OPENSSH")
            else serialization.load_pem_private_key(raw, password=None)
        )
    except (OSError, ValueError, TypeError) as exc:
        raise ConfigError(f"cannot read the signing key {path}: {exc}") from exc
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigError(f"{path} is not an Ed25519 private key")
    return key


def public_text(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return "ed25519:" + base64.b64encode(raw).decode("ascii")


def public_key(spec: str) -> Ed25519PublicKey:
    """A trusted key as given: ``ed25519:<base64>``, or a file holding that or a PEM key."""
    path = Path(spec)
    raw = path.read_bytes().strip() if path.is_file() else spec.strip().encode()
    try:
        if raw.startswith(b"-----BEGIN"):
            loaded: Any = (
                serialization.load_pem_public_key(raw)
                if b"PUBLIC KEY" in raw.splitlines()[0]
                else serialization.load_pem_private_key(raw, password=None).public_key()
            )
        else:
            loaded = Ed25519PublicKey.from_public_bytes(
                base64.b64decode(raw.removeprefix(b"ed25519:"), validate=True)
            )
    except (ValueError, TypeError, binascii.Error) as exc:
        raise ConfigError(
            f"not an Ed25519 public key (ed25519:<base64>, or a PEM file): {spec[:80]}"
        ) from exc
    if not isinstance(loaded, Ed25519PublicKey):
        raise ConfigError(f"not an Ed25519 public key: {spec[:80]}")
    return loaded


# Signing ---------------------------------------------------------------------------------------------


class Signer:
    """Fed the export's bytes as they go out (any chunking); ``trailer`` is what ends the file."""

    def __init__(self, key: Ed25519PrivateKey) -> None:
        self._key = key
        self.public_key = public_text(key)
        self._pending = b""
        self.digests: list[str] = []

    def feed(self, chunk: bytes) -> None:
        *lines, self._pending = (self._pending + chunk).split(b"\n")
        self.digests.extend(hashlib.sha256(line).hexdigest() for line in lines if line.strip())

    def trailer(self) -> bytes:
        """The digest lines and the signed manifest (after a newline, if the last line lacked one)."""
        ended = b"\n" if self._pending else b""
        if ended:
            self.feed(ended)
        out = [
            {LINE_DIGESTS: self.digests[start : start + DIGESTS_PER_LINE], "from": start + 1}
            for start in range(0, len(self.digests), DIGESTS_PER_LINE)
        ]
        manifest = {
            "format": "mnemo-export",
            "version": 1,
            "count": len(self.digests),
            "lines_sha256": _joined(self.digests),
            "algorithm": "ed25519",
            "public_key": self.public_key,
            "signed_at": utcnow().isoformat(),
        }
        signature = base64.b64encode(self._key.sign(canonical_json(manifest))).decode("ascii")
        out.append({MANIFEST: manifest, "signature": signature})
        return ended + b"".join(json.dumps(line, separators=(",", ":")).encode() + b"\n" for line in out)


def _joined(digests: list[str]) -> str:
    return hashlib.sha256("\n".join(digests).encode("ascii")).hexdigest()


# Verifying -------------------------------------------------------------------------------------------


def verify_lines(lines: Iterable[bytes], trusted: Ed25519PublicKey) -> int:
    """Check a signed export against ``trusted``: how many records it holds, or ``SignatureRefused``
    naming the first line that is not the one signed."""
    records: list[tuple[int, str]] = []
    listed: list[str] = []
    signed: dict[str, Any] | None = None
    for number, line in enumerate(lines, 1):
        line = line.removesuffix(b"\n")
        if signed is not None and line.strip():
            raise SignatureRefused(f"line {number}: after the manifest, which must end the file (added)")
        if not line.startswith(_TRAILER_STARTS):
            if listed and line.strip():
                raise SignatureRefused(f"line {number}: a record among the manifest's lines (added)")
            if line.strip():
                records.append((number, hashlib.sha256(line).hexdigest()))
            continue
        trailer = _trailer_line(line, number)
        if MANIFEST in trailer:
            signed = trailer
        else:
            listed.extend(trailer[LINE_DIGESTS])
    if signed is None:
        raise SignatureRefused("not signed: the file has no manifest line (export it with --sign)")
    manifest = _check_signature(signed, trusted)
    if _joined(listed) != manifest.get("lines_sha256") or len(listed) != manifest.get("count"):
        raise SignatureRefused("the manifest's list of line digests was altered")
    return _check_records(records, listed)


def _trailer_line(line: bytes, number: int) -> dict[str, Any]:
    try:
        trailer = json.loads(line)
    except ValueError:
        raise SignatureRefused(f"line {number}: a manifest line that is not JSON (altered)") from None
    digests = trailer.get(LINE_DIGESTS, []) if isinstance(trailer, dict) else None
    if not isinstance(digests, list) or not all(isinstance(d, str) for d in digests):
        raise SignatureRefused(f"line {number}: a manifest line of the wrong shape (altered)")
    return dict(trailer)


def _check_signature(signed: dict[str, Any], trusted: Ed25519PublicKey) -> dict[str, Any]:
    manifest = signed.get(MANIFEST)
    if not isinstance(manifest, dict) or manifest.get("algorithm") != "ed25519":
        raise SignatureRefused("the manifest is not an ed25519 manifest of this format")
    if manifest.get("public_key") != public_text(trusted):
        raise SignatureRefused(f"signed by another key ({manifest.get('public_key')}), not the trusted one")
    try:
        trusted.verify(
            base64.b64decode(str(signed.get("signature", "")), validate=True), canonical_json(manifest)
        )
    except (InvalidSignature, binascii.Error, ValueError):
        raise SignatureRefused(
            "the manifest's signature does not verify with the trusted key (altered)"
        ) from None
    return manifest


def _check_records(records: list[tuple[int, str]], listed: list[str]) -> int:
    for index, (number, digest) in enumerate(records):
        if index >= len(listed):
            raise SignatureRefused(f"line {number}: not in the signed export (added)")
        if digest != listed[index]:
            raise SignatureRefused(
                f"line {number}: altered (its sha256 is not the one signed; or a line before it was removed)"
            )
    if len(records) < len(listed):
        raise SignatureRefused(
            f"line {records[-1][0] + 1 if records else 1}: missing: the signed export holds {len(listed)} "
            f"records, the file {len(records)}"
        )
    return len(records)
