"""Formats that already hold one memory per item: a mem0 export (or ``get_all``) and minimal JSON
Lines. Each item becomes an export line and goes through the JSONL importer, so the same checks
(secrets, sizes, scopes the key may write), merging and reconciliation apply; evidence ``imported``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from core.scope import Principal
from proxy.portability import Importer

_LEVELS = ("org", "project", "user", "session")
_KINDS = ("semantic", "procedural", "episodic", "reflection")
_ID_UNSAFE = re.compile(r"[^0-9A-Za-z_-]")
_MIN_FIELDS = frozenset({"text", "scope", "kind", "observed_at"})


class ItemError(ValueError):
    """An item that cannot become a record; the message is the reason shown for its line."""


@dataclass(frozen=True, slots=True)
class Defaults:
    """What an item does not say: the key's org, the project asked for, the key's user."""

    org: str
    project: str | None
    user: str
    file: str
    format: str


def defaults_for(principal: Principal, project: str | None, file: str, fmt: str) -> Defaults:
    return Defaults(org=principal.org, project=project, user=principal.default_user, file=file, format=fmt)


def _source(defaults: Defaults, index: int, text: str, digest: str | None = None) -> dict[str, Any]:
    return {
        "role": "import",
        "request_id": defaults.file,
        "message_index": index,
        "message_sha256": digest or hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "span": text,
        "client": f"mnemo-import/{defaults.format}",
    }


# mem0 ----------------------------------------------------------------------------------------------


def mem0_items(document: bytes) -> list[Any]:
    """The items of a mem0 export: a list, or ``{"results": [...]}`` (``get_all`` since v1.1),
    or ``{"memories": [...]}``."""
    try:
        data = json.loads(document)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ItemError(f"not JSON: {exc}") from None
    if isinstance(data, dict):
        data = data.get("results", data.get("memories"))
    if not isinstance(data, list):
        raise ItemError('a mem0 export is a list of memories, or {"results": [...]}')
    return data


def mem0_line(item: Any, index: int, defaults: Defaults) -> dict[str, Any]:
    """One mem0 memory as an export line: its text, its user's scope, its times; the rest kept in
    ``extra``. The id comes from mem0's, so importing the export again merges."""
    if not isinstance(item, dict):
        raise ItemError("not a JSON object")
    text = item.get("memory")
    if not isinstance(text, str) or not text.strip():
        raise ItemError("memory: missing (the memory's text)")
    user = item.get("user_id") if isinstance(item.get("user_id"), str) and item["user_id"] else defaults.user
    mem0_id = str(item.get("id") or "")
    line: dict[str, Any] = {
        "kind": "semantic",
        "text": text,
        "scope": {"org": defaults.org, "project": defaults.project, "user": user},
        "evidence": "imported",
        "source": _source(
            defaults, index, text, item.get("hash") if isinstance(item.get("hash"), str) else None
        ),
        "extractor": "mem0",
        "extra": {
            name: item[name]
            for name in ("agent_id", "run_id", "metadata", "categories", "hash")
            if item.get(name) not in (None, "", {}, [])
        }
        | ({"mem0_id": mem0_id} if mem0_id else {}),
    }
    if mem0_id:
        line["id"] = "mem0-" + _ID_UNSAFE.sub("", mem0_id)[:59]
    for name, field in (
        ("observed_at", "created_at"),
        ("valid_from", "created_at"),
        ("last_seen_at", "updated_at"),
    ):
        if isinstance(item.get(field), str) and item[field]:
            line[name] = item[field]
    return line


# jsonl-min -----------------------------------------------------------------------------------------


def min_line(raw: bytes, index: int, defaults: Defaults) -> dict[str, Any]:
    """A line holding ``text`` and maybe ``scope``, ``kind``, ``observed_at``, as an export line.

    ``scope`` is a level (``"project"``: the project asked for; ``"user"``: the key's user), a
    ``level=value`` pair (``"project=acme-web"``), or an object of levels; unset: the project asked
    for, else the key's user."""
    try:
        item = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ItemError(f"not JSON: {exc}") from None
    if not isinstance(item, dict):
        raise ItemError("not a JSON object")
    unknown = set(item) - _MIN_FIELDS
    if unknown:
        raise ItemError(
            f"unknown fields: {', '.join(sorted(unknown))} (jsonl-min takes text, scope, kind, observed_at)"
        )
    text = item.get("text")
    if not isinstance(text, str) or not text.strip():
        raise ItemError("text: missing")
    kind = item.get("kind", "semantic")
    if kind not in _KINDS:
        raise ItemError(f"kind: must be one of {', '.join(_KINDS)}; got {kind!r}")
    line: dict[str, Any] = {
        "kind": kind,
        "text": text,
        "scope": _scope(item.get("scope"), defaults),
        "evidence": "imported",
        "source": _source(defaults, index, text),
    }
    if "observed_at" in item:
        if not isinstance(item["observed_at"], str):
            raise ItemError("observed_at: must be a time in ISO 8601")
        line["observed_at"] = item["observed_at"]
    return line


def _scope(raw: Any, defaults: Defaults) -> dict[str, str | None]:
    scope: dict[str, str | None] = {"org": defaults.org}
    if raw is None:
        return scope | ({"project": defaults.project} if defaults.project else {"user": defaults.user})
    if isinstance(raw, dict):
        wrong = set(raw) - set(_LEVELS)
        if wrong or not all(isinstance(v, str | None) for v in raw.values()):
            raise ItemError("scope: an object of org, project, user, session (text values)")
        return scope | {k: v for k, v in raw.items() if k != "org"}
    if not isinstance(raw, str):
        raise ItemError("scope: a level (project, user, ...), level=value, or an object")
    level, sep, value = raw.partition("=")
    if level not in _LEVELS:
        raise ItemError(f"scope: level must be one of {', '.join(_LEVELS)}; got {level!r}")
    if sep:
        return scope if level == "org" else scope | {level: value}
    if level == "project":
        if defaults.project is None:
            raise ItemError('scope: "project" needs a project (give --project or "project=NAME")')
        return scope | {"project": defaults.project}
    if level == "session":
        raise ItemError('scope: "session" needs a value ("session=ID")')
    return scope if level == "org" else scope | {"user": defaults.user}


# Feeding the JSONL importer ------------------------------------------------------------------------


async def feed_items(
    importer: Importer, items: Iterator[tuple[int, dict[str, Any] | ItemError | None]]
) -> None:
    """Give the importer one export line per item, in order; an item that is no record is
    reported under its own line number."""
    for number, item in items:
        if isinstance(item, ItemError):
            importer.report.reject(number, str(item))
            await importer.feed(b"")  # keeps the importer's line count on this line
        elif item is None:
            await importer.feed(b"")
        else:
            await importer.feed(json.dumps(item, ensure_ascii=False).encode("utf-8"))
    await importer.flush()
