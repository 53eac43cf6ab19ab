"""In-chat forgetting: "forget that we use yarn" deletes the matching records before recall, so
neither this request nor any later one sees them."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from extractors.pipeline import match_slots
from extractors.rules import Rule
from proxy.errors import StoreError
from proxy.memory.model import Memory
from proxy.memory.ranking import STOPWORDS
from proxy.memory.store import ListQuery, MemoryStore
from proxy.scope import SCOPE_LEVELS, Scope

log = logging.getLogger("mnemo.forget")

_WORD = re.compile(r"\w+", re.UNICODE)
_FILLER = STOPWORDS | {"use", "uses", "using", "used", "project", "repo", "please", "memory", "remember"}


@dataclass(frozen=True, slots=True)
class ForgetOutcome:
    deleted: list[str] = field(default_factory=list)
    status: str = "ok"


def matches(memory: Memory, slots: list[tuple[str, str]], words: set[str]) -> bool:
    """A slot command matches records of that key and value; otherwise every content word must appear."""
    if slots:
        return any(
            memory.key == key and (memory.value or "").lower() == value.lower() for key, value in slots
        )
    text = {w.lower() for w in _WORD.findall(f"{memory.text} {memory.value or ''}")}
    return bool(words) and words <= text


async def forget(
    store: MemoryStore,
    rules: list[Rule],
    scope: Scope,
    requests: list[str],
    actor: str,
    readable: frozenset[str] = frozenset(SCOPE_LEVELS),
) -> ForgetOutcome:
    """Delete what the user asked to forget among the records this request may see (any version)."""
    deleted: list[str] = []
    try:
        for what in requests:
            slots = match_slots(rules, what)
            words = {w.lower() for w in _WORD.findall(what)} - _FILLER
            query = ListQuery(
                org=scope.org,
                visible_to=scope,
                readable=readable,
                key=slots[0][0] if len(slots) == 1 else None,
                limit=1000,
            )
            page = await store.list_memories(query)
            for memory in page.memories:
                if memory.id not in deleted and matches(memory, slots, words):
                    await store.delete(memory, actor=actor, reason="forget request in chat")
                    deleted.append(memory.id)
    except StoreError as exc:
        log.warning("forget degraded: %s", exc)
        return ForgetOutcome(deleted=deleted, status="degraded")
    return ForgetOutcome(deleted=deleted)
