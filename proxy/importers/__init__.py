"""Memory brought in from where it lives today, and written back for tools without a proxy.

Formats ``mnemo memories import --from FORMAT`` and ``POST /mnemo/v1/import?from=FORMAT`` take:
instructions files (``claude-md``, ``agents-md``, ``cursor-rules``, ``copilot-instructions``),
read bullet by bullet through the extractor and the policy (``instructions``); and one-memory-per-
item formats (``mem0``, ``jsonl-min``), each item one record (``records``). ``jsonl``, Mnemo's own
export, stays the default and is ``proxy.portability``'s.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

from core.errors import BadRequest
from proxy.importers.records import Defaults, ItemError, feed_items, mem0_items, mem0_line, min_line
from proxy.portability import Importer, ImportReport

INSTRUCTION_FORMATS = ("claude-md", "agents-md", "cursor-rules", "copilot-instructions")
RECORD_FORMATS = ("mem0", "jsonl-min")
FORMATS = ("jsonl", *INSTRUCTION_FORMATS, *RECORD_FORMATS)
MAX_FILE_BYTES = 32 * 1024 * 1024
T = TypeVar("T")


def check_format(name: str) -> str:
    if name not in FORMATS:
        raise BadRequest(f"from must be one of {', '.join(FORMATS)}; got {name!r}", param="from")
    return name


async def read_body(chunks: AsyncIterator[bytes], limit: int = MAX_FILE_BYTES) -> bytes:
    """A whole file from a streamed body (the formats other than JSON Lines are read whole)."""
    parts: list[bytes] = []
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > limit:
            raise BadRequest(f"the file is larger than {limit // (1024 * 1024)} MB", status_code=413)
        parts.append(chunk)
    return b"".join(parts)


async def import_records(fmt: str, body: bytes, importer: Importer, defaults: Defaults) -> ImportReport:
    """mem0 or jsonl-min through the JSON Lines importer; a bad item is reported by its number
    (the line for jsonl-min, the item's place in the list for mem0)."""
    if fmt == "mem0":
        try:
            items = mem0_items(body)
        except ItemError as exc:
            raise BadRequest(f"mem0: {exc}", param="body") from None
        await feed_items(importer, (_each(n, mem0_line, item, defaults) for n, item in enumerate(items, 1)))
    else:
        lines = enumerate(body.split(b"\n"), start=1)
        await feed_items(
            importer,
            ((n, None) if not raw.strip() else _each(n, min_line, raw, defaults) for n, raw in lines),
        )
    return importer.report


def _each(
    number: int, convert: Callable[[T, int, Defaults], dict[str, Any]], item: T, defaults: Defaults
) -> tuple[int, dict[str, Any] | ItemError]:
    try:
        return number, convert(item, number, defaults)
    except ItemError as exc:
        return number, exc
