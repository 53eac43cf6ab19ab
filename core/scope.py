"""Who is asking and in which scope (DESIGN §3).

The scope comes from the authenticated principal and request metadata, never from
message text. Everything here is pure: the route gathers the inputs, these
functions decide.
"""

from __future__ import annotations

import enum
import hashlib
import json
import re
from dataclasses import dataclass

from core.errors import BadRequest

LOCAL_ORG = "local"
DEFAULT_USER = "default"
MAX_SCOPE_VALUE_CHARS = 1024
SCOPE_LEVELS = ("org", "project", "user", "session")


@dataclass(frozen=True, slots=True)
class Principal:
    """The authenticated caller. Local mode has exactly one, allowed everything in its org."""

    name: str
    org: str
    default_user: str
    read: frozenset[str] = frozenset(SCOPE_LEVELS)  # levels of records it may recall
    write: frozenset[str] = frozenset(SCOPE_LEVELS)  # levels of records it may create
    projects: frozenset[str] = frozenset({"*"})
    admin: bool = False  # an operator: may manage every org's memories
    users: frozenset[str] = frozenset({"*"})  # users it may act as; "*" any (local mode, operators)

    def may_use_project(self, project: str | None) -> bool:
        return project is None or "*" in self.projects or project in self.projects

    def may_act_as(self, user: str | None) -> bool:
        return user is None or self.admin or "*" in self.users or user in self.users

    @property
    def allowed_users(self) -> frozenset[str] | None:
        """The users whose records it may touch; None: any."""
        return None if self.admin or "*" in self.users else self.users

    @property
    def allowed_projects(self) -> frozenset[str] | None:
        """The projects it may touch; None: any."""
        return None if "*" in self.projects else self.projects

    def may_read(self, record: Scope) -> bool:
        """Whether it may see (and so manage reading of) a record: its org, levels and project."""
        if self.admin:
            return True
        return (
            record.org == self.org
            and readable(record, self.read)
            and self.may_use_project(record.project)
            and self.may_act_as(record.user)
        )

    def may_change(self, record: Scope) -> bool:
        """Whether it may correct, delete or import a record: it must both read and write its levels."""
        if self.admin:
            return True
        return self.may_read(record) and readable(record, self.read & self.write)


LOCAL_PRINCIPAL = Principal(name="local", org=LOCAL_ORG, default_user=DEFAULT_USER)


@dataclass(frozen=True, slots=True)
class Scope:
    """A request context, or where a memory applies. ``None`` = unset (applies more broadly)."""

    org: str
    project: str | None = None
    user: str | None = None
    session: str | None = None

    def as_dict(self) -> dict[str, str | None]:
        return {"org": self.org, "project": self.project, "user": self.user, "session": self.session}

    def label(self) -> str:
        """The narrowest level that is set, as shown to the model: ``project acme-web``."""
        for level in ("session", "project", "user"):
            value = getattr(self, level)
            if value is not None:
                return f"{level} {value}"
        return f"org {self.org}"


@dataclass(frozen=True, slots=True)
class ScopeInputs:
    """The request metadata scope resolution reads, in order of precedence per level."""

    header_project: str | None = None
    path_project: str | None = None
    header_user: str | None = None
    body_user: str | None = None
    header_session: str | None = None
    derived_session: str | None = None
    inferred_project: str | None = None  # from the agent's own prompt, when the policy allows


class Mode(enum.Enum):
    """``X-Mnemo-Mode``: what a single request may do with memory."""

    OFF = "off"
    READ = "read"
    WRITE = "write"
    READWRITE = "readwrite"

    @property
    def recalls(self) -> bool:
        return self in (Mode.READ, Mode.READWRITE)

    @property
    def learns(self) -> bool:
        return self in (Mode.WRITE, Mode.READWRITE)

    @classmethod
    def parse(cls, raw: str | None) -> Mode:
        if raw is None or raw.strip() == "":
            return cls.READWRITE
        try:
            return cls(raw.strip().lower())
        except ValueError:
            raise BadRequest(
                f"X-Mnemo-Mode must be one of off, read, write, readwrite; got {raw!r}",
                param="X-Mnemo-Mode",
            ) from None


def effective_mode(requested: Mode, states: set[str]) -> Mode:
    """What a request may do once its scopes' controls apply: a disabled scope stops recall and
    learning, a paused one stops learning only (DESIGN §3; the user's controls win)."""
    if "disabled" in states:
        return Mode.OFF
    if "paused" in states:
        return Mode.READ if requested.recalls else Mode.OFF
    return requested


def _clean(value: str | None, name: str) -> str | None:
    if value is None:
        return None
    value = value.strip()
    if not value:
        return None
    if len(value) > MAX_SCOPE_VALUE_CHARS:
        raise BadRequest(f"{name} is longer than {MAX_SCOPE_VALUE_CHARS} characters", param=name)
    return value


def resolve_scope(inputs: ScopeInputs, principal: Principal) -> Scope:
    """The request's context: org from the principal; the rest from headers, path and body."""
    project = (
        _clean(inputs.header_project, "X-Mnemo-Project")
        or _clean(inputs.path_project, "project")
        or _clean(inputs.inferred_project, "project")
    )
    user = (
        _clean(inputs.header_user, "X-Mnemo-User")
        or _clean(inputs.body_user, "user")
        or principal.default_user
    )
    session = _clean(inputs.header_session, "X-Mnemo-Session") or inputs.derived_session
    return Scope(org=principal.org, project=project, user=user, session=session)


def is_visible(memory: Scope, request: Scope) -> bool:
    """DESIGN §3: same org, and each narrower level unset on the memory or equal to the request's.

    The store enforces the same rule inside its query (see ``memory.redis_store``); this
    function is the reference the tests hold the query to.
    """
    if memory.org != request.org:
        return False
    return all(
        getattr(memory, level) is None or getattr(memory, level) == getattr(request, level)
        for level in ("project", "user", "session")
    )


UNSET_TAG = "none"


def scope_tag(value: str | None) -> str:
    """The TAG value stored and queried for a scope value.

    A digest, so no value (commas, braces, quotes, case, non-ASCII, any length) can
    escape the tag syntax or collide with another by case folding. The sentinel for
    unset is not 32 hex digits, so it cannot collide either.
    """
    if value is None:
        return UNSET_TAG
    return hashlib.sha256(value.encode("utf-8")).hexdigest()[:32]


def scope_key(scope: Scope) -> str:
    """One TAG for a record's exact scope: which of org/project/user/session it is bound to."""
    parts = [scope.org, *(getattr(scope, level) for level in ("project", "user", "session"))]
    joined = "\x1f".join(_key_part(part) for part in parts)
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()[:32]


def _key_part(part: str | None) -> str:
    """A level as written into the key: unset is "\\x00"; a value holding one of the key's own marks
    ("\\x00", "\\x01", "\\x1f") is escaped, so no value reads as unset or as two levels. Values
    without them, every real one, keep the key they always had."""
    if part is None:
        return "\x00"
    if any(mark in part for mark in _KEY_MARKS):
        return "\x01" + json.dumps(part)
    return part


_KEY_MARKS = ("\x00", "\x01", "\x1f")


def level_of(scope: Scope) -> str:
    """The narrowest level set: where a record lives."""
    for level in ("session", "user", "project"):
        if getattr(scope, level) is not None:
            return level
    return "org"


def readable(record: Scope, levels: frozenset[str]) -> bool:
    """A principal that may read ``levels`` may read a record when every level the record is bound
    to is among them (an org-wide record needs "org")."""
    bound = {level for level in ("project", "user", "session") if getattr(record, level) is not None}
    return bound <= levels if bound else "org" in levels


def visible_scope_keys(request: Scope, levels: frozenset[str] = frozenset(SCOPE_LEVELS)) -> list[str]:
    """The scope keys of every record a request may see (DESIGN §3): each narrower level either
    unset or the request's own value, so at most eight keys.

    Filtering on these keys reads only the posting lists of visible records, however many
    records other projects, users and sessions hold; per-level filters would walk the org's
    whole "unset" lists.
    """
    options = [
        [None] if getattr(request, level) is None else [None, getattr(request, level)]
        for level in ("project", "user", "session")
    ]
    combos = [
        Scope(org=request.org, project=project, user=user, session=session)
        for project in options[0]
        for user in options[1]
        for session in options[2]
    ]
    return [scope_key(combo) for combo in combos if readable(combo, levels)]


_CWD_PATTERNS = (
    re.compile(r"Primary working directory:\s*(\S+)"),  # Claude Code
    re.compile(r"<cwd>\s*([^<\s]+)\s*</cwd>"),  # Codex
    re.compile(r"(?:current|working) directory(?: is)?:?\s*`?(/[^\s`]+)", re.IGNORECASE),
)
_GIT_REMOTE = re.compile(r"(?:git@|https?://)[\w.@:-]+[:/](?:[\w.-]+/)*([\w.-]+?)(?:\.git)?(?=[\s\"'<>)]|$)")


def infer_project(agent_prompt: str) -> str | None:
    """The project an agent works in, from what its own system prompt says: the git remote's
    repository name when given, else the working directory's last part."""
    if not agent_prompt:
        return None
    remote = _GIT_REMOTE.search(agent_prompt)
    if remote:
        return remote.group(1)
    for pattern in _CWD_PATTERNS:
        match = pattern.search(agent_prompt)
        if match:
            name = match.group(1).rstrip("/").rsplit("/", 1)[-1]
            return name or None
    return None


def derive_session_id(first_turns: str) -> str | None:
    """A stable session id from the conversation's opening, which repeats on every turn."""
    if not first_turns:
        return None
    return "conv-" + hashlib.sha256(first_turns.encode("utf-8")).hexdigest()[:16]
