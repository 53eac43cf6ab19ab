"""How records lie in Redis and how the index is queried: the hash layout, the index schema and
the filters every search is built from (DESIGN §3 visibility among them). Pure functions; the
store (``redis_store``) runs them."""

from __future__ import annotations

import re
from importlib import resources

import yaml
from redisvl.query.filter import FilterExpression, Num, Tag, Text
from redisvl.schema import IndexSchema

from core.model import STANDING_KEYS, Memory, Status, slot_key, to_hash
from core.scope import SCOPE_LEVELS, UNSET_TAG, Scope, scope_key, scope_tag, visible_scope_keys
from proxy.memory.store import ListQuery


def hash_row(memory: Memory) -> dict[str, str | float | int | bytes]:
    """The record as stored: its fields plus the TAGs the index filters on."""
    row = to_hash(memory, {level: scope_tag(value) for level, value in memory.scope.as_dict().items()})
    row.update(derived_tags(memory))
    return row


def derived_tags(memory: Memory) -> dict[str, str]:
    """TAGs computed from the record, which a migration can recompute for older records."""
    tags = {"scope_key": scope_key(memory.scope), "list_order": list_order(memory)}
    if memory.key:
        tags["slot"] = slot_key(memory.scope, memory.key, memory.qualifier)
    return tags


def list_order(memory: Memory) -> str:
    """Sorts like (observed_at, id): a total order, so cursor pages neither skip nor repeat."""
    micros = round(memory.observed_at.timestamp() * 1_000_000)
    return f"{micros:020d}-{memory.id}"


VECTOR_ALGORITHMS = ("flat", "hnsw")


def load_index_schema(dims: int, algorithm: str = "flat") -> IndexSchema:
    """The shipped schema with the model's dims and the chosen vector algorithm filled in."""
    if algorithm not in VECTOR_ALGORITHMS:
        raise ValueError(f"vector algorithm must be one of {VECTOR_ALGORITHMS}, got {algorithm!r}")
    raw = yaml.safe_load(resources.files("proxy.memory").joinpath("index_schema.yaml").read_text())
    for field in raw["fields"]:
        if field["type"] == "vector":
            field["attrs"]["dims"] = dims
            field["attrs"]["algorithm"] = algorithm
    return IndexSchema.from_dict(raw)


def visibility_filter(scope: Scope, levels: frozenset[str] = frozenset(SCOPE_LEVELS)) -> FilterExpression:
    """DESIGN §3 as a query filter: the exact scope keys a request may see (see ``visible_scope_keys``),
    limited to the levels its principal may read."""
    keys = visible_scope_keys(scope, levels)
    # An empty tag list would match everything: a principal that may read nothing sees nothing.
    return Tag("scope_key") == (keys or ["nothing-is-readable"])


_WORD = re.compile(r"\w+", re.UNICODE)


def list_filter(query: ListQuery) -> FilterExpression:
    """A listing's filters and its principal's limits as one query filter."""
    where: FilterExpression = Num("observed_at") >= 0
    if query.visible_to is not None:
        where = where & visibility_filter(query.visible_to, query.readable)
    for level in ("org", "project", "user", "session"):
        value = getattr(query, level)
        if value is not None:
            where = where & (Tag(f"scope_{level}") == scope_tag(value))
    for level in ("project", "user", "session"):
        if level not in query.readable:
            where = where & (Tag(f"scope_{level}") == UNSET_TAG)
    if "org" not in query.readable:
        # org-wide records (no narrower level set) are not readable
        where = where & FilterExpression(
            f"-(@scope_project:{{{UNSET_TAG}}} @scope_user:{{{UNSET_TAG}}} @scope_session:{{{UNSET_TAG}}})"
        )
    if query.projects is not None:
        where = where & (Tag("scope_project") == [UNSET_TAG, *(scope_tag(p) for p in sorted(query.projects))])
    if query.users is not None:
        where = where & (Tag("scope_user") == [UNSET_TAG, *(scope_tag(u) for u in sorted(query.users))])
    if query.key is not None:
        where = where & (Tag("key") == query.key)
    for name, values in (("kind", query.kinds), ("evidence", query.evidence), ("status", query.statuses)):
        if values:
            where = where & (Tag(name) == [v.value for v in values])
    if query.text_contains:
        words = _WORD.findall(query.text_contains)
        # only word characters reach the query syntax; no words at all matches nothing
        where = where & (Text("text") == " ".join(words) if words else Tag("kind") == "no-such-kind")
    if query.observed_after is not None:
        where = where & (Num("observed_at") >= query.observed_after.timestamp())
    if query.observed_before is not None:
        where = where & (Num("observed_at") < query.observed_before.timestamp())
    return where


def current_filter() -> FilterExpression:
    return (Tag("status") == Status.ACTIVE.value) & (Tag("current") == "1")


def standing_filter(standing: bool) -> FilterExpression:
    """Standing records (rules, commands, answer preferences: given on every request), or the others."""
    if standing:
        return (Tag("kind") == "procedural") | (Tag("key") == list(STANDING_KEYS))
    return (Tag("kind") != "procedural") & (Tag("key") != list(STANDING_KEYS))


# Every field of a record's hash but its vector: what searches return and HMGET reads.
ALL_HASH_FIELDS = [
    "id",
    "kind",
    "text",
    "subject",
    "key",
    "value",
    "qualifier",
    "scope",
    "evidence",
    "confidence",
    "source",
    "observed_at",
    "valid_from",
    "valid_to",
    "status",
    "supersedes",
    "superseded_by",
    "version",
    "expires_at",
    "policy",
    "extractor",
    "fingerprint",
    "seen_count",
    "last_seen_at",
    "embedding_model",
    "schema_version",
    "extra",
    "digest",
]
