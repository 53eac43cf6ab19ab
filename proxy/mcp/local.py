"""The tools against this server's own memory: the caller is the proxy's (same key, same scope
headers), and every step is the proxy's own: recall's ranking, the management API's record view,
the learner's write path, the Eraser that deletes everywhere."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from litestar.exceptions import NotFoundException

from core.errors import BadRequest, StoreUnavailable
from core.model import Memory
from core.scope import Mode, Principal, Scope, is_visible
from extractors import Extractor, build_extractor
from proxy.forget import forget
from proxy.lifespan import Services
from proxy.mcp.remember import remember
from proxy.mcp.views import summary
from proxy.recall import search
from proxy.routes.admin import readable_memory
from proxy.routes.common import mode_for


@dataclass(frozen=True, slots=True)
class Caller:
    """Who calls and for what context: the proxy's principal, and the scope its headers resolve to."""

    principal: Principal
    scope: Scope
    mode: Mode  # X-Mnemo-Mode, before the scope's pause and disable controls apply


@dataclass(slots=True)
class Extractors:
    """The extractor ``remember`` reads with: the in-process worker's, else one loaded on first use."""

    loaded: Extractor | None = None
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def get(self) -> Extractor:
        async with self._lock:
            if self.loaded is None:
                self.loaded = await asyncio.to_thread(build_extractor)
            return self.loaded


class LocalBackend:
    """The four tools for one caller, on this server's services."""

    def __init__(self, services: Services, caller: Caller, extractors: Extractors) -> None:
        self.services = services
        self.caller = caller
        self.extractors = extractors

    async def _ready(self) -> None:
        if not await self.services.ensure_store(at_once=True):
            raise StoreUnavailable("memory store unavailable; try again shortly")

    async def search(self, query: str, limit: int) -> dict[str, Any]:
        await self._ready()
        scope, services = self.caller.scope, self.services
        mode = await mode_for(services, scope, self.caller.mode)
        if not mode.recalls:
            return {"scope": scope.as_dict(), "data": [], "note": f"recall is {mode.value} for this scope"}
        found = await search(
            services.store,
            services.embeddings,
            services.recall_settings(),
            scope,
            query,
            limit,
            self.caller.principal.read,
        )
        return {
            "scope": scope.as_dict(),
            "data": [
                {"score": round(hit.score, 6), "similarity": hit.similarity, **summary(hit.memory)}
                for hit in found
            ],
        }

    async def show(self, memory_id: str) -> dict[str, Any]:
        await self._ready()
        memory = await self._visible(memory_id, changing=False)
        history = await self.services.store.history(memory)
        return {"memory": memory.to_json(), "history": [version.to_json() for version in history]}

    async def remember(self, text: str) -> dict[str, Any]:
        await self._ready()
        mode = await mode_for(self.services, self.caller.scope, self.caller.mode)
        if not mode.learns:
            raise BadRequest(f"learning is {mode.value} for this scope: nothing was stored")
        extractor = await self.extractors.get()
        return await remember(self.services, extractor, self.caller.principal, self.caller.scope, text)

    async def forget(self, memory_id: str | None, about: str | None) -> dict[str, Any]:
        await self._ready()
        principal, services = self.caller.principal, self.services
        actor = f"{principal.name}:{self.caller.scope.user or ''}"
        if memory_id is not None:
            memory = await self._visible(memory_id, changing=True)
            receipt = await services.eraser.erase([memory], actor, "deleted through MCP")
            receipt = await services.eraser.settle(receipt, services.settings.erasure_wait_s)
            return receipt.to_json()
        allowed = principal.read & principal.write
        outcome = await forget(
            services.eraser, services.vocabulary, self.caller.scope, [about or ""], actor, allowed
        )
        if outcome.status != "ok":
            raise StoreUnavailable("memory store unavailable: some records may remain")
        return {"object": "deletion", "deleted": len(outcome.deleted), "ids": outcome.deleted}

    async def _visible(self, memory_id: str, changing: bool) -> Memory:
        """The record, if this caller may read (or change) it and it belongs to the caller's context:
        the same answer whether it does not exist or is not the caller's."""
        try:
            memory = await readable_memory(self.services, self.caller.principal, memory_id, changing)
        except NotFoundException:
            memory = None
        if memory is None or not is_visible(memory.scope, self.caller.scope):
            raise BadRequest(f"no memory {memory_id} in this scope", status_code=404)
        return memory
