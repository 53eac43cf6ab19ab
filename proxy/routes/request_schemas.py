"""The bodies of ``GET /mnemo/v1/requests`` and ``GET /mnemo/v1/requests/{id}``, as types (the served
OpenAPI document is made from them). A trace holds ids, scores, sizes and sources, never prompt text.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from proxy.routes.schemas import RecordScope, Time, _text

ProjectSource = Literal["header", "path", "inferred"]
UserSource = Literal["header", "body", "principal_default"]
SessionSource = Literal["header", "client", "derived"]


class ScopeSources(msgspec.Struct, forbid_unknown_fields=True):
    """Where each part of the call's scope came from; null where the part is unset."""

    org: Annotated[Literal["principal"], _text("the authenticated principal's org")]
    project: Annotated[
        ProjectSource | None,
        _text("X-Mnemo-Project header, the /p/<project>/ path, or inferred from the agent's prompt"),
    ]
    user: Annotated[
        UserSource, _text("X-Mnemo-User header, the body's user, or the principal's default user")
    ]
    session: Annotated[
        SessionSource | None,
        _text("X-Mnemo-Session header, the client's own session id, or derived from the conversation"),
    ]


class RecallState(msgspec.Struct, forbid_unknown_fields=True):
    status: Annotated[Literal["ok", "off", "degraded"], _text("off: this call did not recall")]
    reason: Annotated[str | None, _text("why recall was degraded")]


class InjectedMemory(msgspec.Struct, forbid_unknown_fields=True):
    """A memory the call was given (its record: GET /mnemo/v1/memories/{id})."""

    id: str
    rank: Annotated[int, _text("its place in the injected block, 1 = first")]
    score: Annotated[float, _text("the score recall ranked it by (standing records: 1)")]
    similarity: Annotated[float | None, _text("cosine similarity to the request; null: not a vector match")]
    keyword_rank: Annotated[int | None, _text("rank among the keyword matches; null: not one")]
    kind: str
    level: Annotated[str, _text("the narrowest scope level the record is bound to")]


class SupersedingVersion(msgspec.Struct, forbid_unknown_fields=True):
    id: Annotated[str, _text("the new version written")]
    supersedes: Annotated[str | None, _text("the version it replaced; null once that one is deleted")]


class RefusedCandidate(msgspec.Struct, forbid_unknown_fields=True):
    reason: str
    rule: Annotated[str | None, _text("the extraction rule that proposed it")]


class Learning(msgspec.Struct, forbid_unknown_fields=True):
    """What was queued for learning, and what the job later made of it, by record id."""

    queued: bool
    reason: Annotated[str | None, _text("why nothing was queued")]
    turns: Annotated[dict[str, int], _text("turns queued, by role (their text is not kept)")]
    learned_at: Annotated[str | None, _text("when the worker learned from it; null: not yet", time=True)]
    written: list[str]
    merged: Annotated[list[str], _text("records already held that this call saw again")]
    superseded: list[SupersedingVersion]
    quarantined: Annotated[list[str], _text("stored for review, never recalled")]
    refused: list[RefusedCandidate]


class RequestTrace(msgspec.Struct, forbid_unknown_fields=True):
    """One relayed call: what it was given and why, and what learning made of it."""

    object: Literal["request"]
    id: Annotated[str, _text("the request id (X-Mnemo-Request-Id)")]
    at: Time
    api: str
    client: Annotated[str | None, _text("the client's user agent")]
    model: str | None
    http_status: Annotated[int, _text("the provider's status")]
    status: Annotated[Literal["ok", "off", "degraded"], _text("X-Mnemo-Status")]
    mode: Annotated[Literal["off", "read", "write", "readwrite"], _text("after the scope's controls")]
    scope: RecordScope
    scope_sources: ScopeSources
    recall: RecallState
    injected: Annotated[list[InjectedMemory], _text("in rank order (X-Mnemo-Recalled-Ids)")]
    block_tokens: Annotated[int, _text("the injected block's size in estimated tokens; 0: none")]
    forgotten: Annotated[int, _text("records an in-chat forget deleted")]
    overhead_ms: float
    learning: Learning


class RequestPage(msgspec.Struct):
    """Recent calls, newest first."""

    object: Literal["list"]
    data: list[RequestTrace]
    next_cursor: Annotated[str | None, _text("pass as cursor for the next page; null: last page")]


def request_trace(body: dict[str, Any]) -> RequestTrace:
    return msgspec.convert(body, RequestTrace)
