"""Who is calling (DESIGN §3): the one local principal, or in keys mode the principal whose Mnemo
key hashes to a listed sha256. Decided before anything is read or relayed."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping

from core.errors import BadRequest
from core.scope import LOCAL_PRINCIPAL, Principal
from policies.model import Policy


class Unauthorized(BadRequest):
    def __init__(self, message: str) -> None:
        super().__init__(message, status_code=401)


class Forbidden(BadRequest):
    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message, param=param, status_code=403)


def presented_key(headers: Mapping[str, str], policy: Policy) -> str | None:
    """The Mnemo key of a request: ``X-Mnemo-Key``, or the bearer token when the policy says the
    client's bearer is its Mnemo key (Mnemo then holds the provider key itself)."""
    key = headers.get("x-mnemo-key")
    if key:
        return key.strip()
    if policy.bearer_is_mnemo_key:
        scheme, _, token = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
        if headers.get("x-api-key"):
            return headers["x-api-key"].strip()
    return None


def authenticate(headers: Mapping[str, str], policy: Policy) -> Principal:
    if policy.mode != "keys":
        return LOCAL_PRINCIPAL
    key = presented_key(headers, policy)
    if not key:
        raise Unauthorized("a Mnemo key is required: send it as X-Mnemo-Key")
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
    match = None
    for rule in policy.principals:  # compare every entry, in constant time each
        if hmac.compare_digest(digest, rule.key_sha256):
            match = rule
    if match is None:
        raise Unauthorized("unknown Mnemo key")
    return Principal(
        name=match.name,
        org=match.org,
        default_user=match.default_user,
        read=frozenset(match.read),
        write=frozenset(match.write),
        projects=frozenset(match.projects),
        admin=match.admin,
        users=frozenset(match.users or (match.default_user,)),
    )
