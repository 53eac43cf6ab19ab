"""Rule patterns as data: JSON Lines, one rule a line, validated against a strict schema on load."""

from __future__ import annotations

import json
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from proxy.errors import ConfigError

KINDS = frozenset({"semantic", "procedural", "episodic", "reflection"})
SCOPE_LEVELS = frozenset({"org", "project", "user", "session"})
GUARDS = ("question", "hypothetical", "negation", "reported", "past", "quoted")

# field -> (type, required)
_SCHEMA: dict[str, tuple[type | tuple[type, ...], bool]] = {
    "id": (str, True),
    "version": (int, True),
    "kind": (str, True),
    "scope": (str, True),
    "key": ((str, type(None)), True),
    "pattern": (str, True),
    "text": (list, True),
    "confidence": ((int, float), True),
    "values": (list, False),
    "values_category": (dict, False),
    "guards": (list, False),
    "case_sensitive": (bool, False),
    "roles": (list, False),
}
ROLES = frozenset({"user", "assistant"})


@dataclass(frozen=True, slots=True)
class Rule:
    id: str
    version: int
    kind: str
    scope: str
    key: str | None
    pattern: re.Pattern[str]
    text: tuple[str, ...]
    confidence: float
    values: frozenset[str] | None = None
    values_category: dict[str, str] = field(default_factory=dict)
    guards: tuple[str, ...] = GUARDS
    # Whose turns the rule reads. User-only by default: what the user says about themselves, and
    # every instruction-like rule, must never come from model output.
    roles: frozenset[str] = frozenset({"user"})

    @property
    def qualified_id(self) -> str:
        return f"{self.id}.v{self.version}"


def read_jsonl(shipped: str, path: Path | None = None) -> Iterator[tuple[str, Any]]:
    """(``file:line``, parsed object) for each non-blank line of a shipped pattern file or ``path``."""
    if path is None:
        text = resources.files("extractors").joinpath(f"patterns/{shipped}").read_text(encoding="utf-8")
        name = f"extractors/patterns/{shipped}"
    else:
        text, name = path.read_text(encoding="utf-8"), str(path)
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{name}:{number}"
        try:
            yield where, json.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{where}: not valid JSON: {exc.msg}") from exc


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def parse_rule(raw: Any, where: str) -> Rule:
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: a rule must be a JSON object")
    unknown = set(raw) - set(_SCHEMA)
    if unknown:
        raise ConfigError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    for name, (kind, required) in _SCHEMA.items():
        if name not in raw:
            if required:
                raise ConfigError(f"{where}: missing field {name!r}")
            continue
        if not isinstance(raw[name], kind) or (kind is int and isinstance(raw[name], bool)):
            raise ConfigError(f"{where}: field {name!r} has the wrong type")
    if raw["kind"] not in KINDS:
        raise ConfigError(f"{where}: kind must be one of {sorted(KINDS)}")
    if raw["scope"] not in SCOPE_LEVELS:
        raise ConfigError(f"{where}: scope must be one of {sorted(SCOPE_LEVELS)}")
    if not 0 <= raw["confidence"] <= 1:
        raise ConfigError(f"{where}: confidence must be between 0 and 1")
    flags = 0 if raw.get("case_sensitive") else re.IGNORECASE
    try:
        pattern = re.compile(raw["pattern"], flags)
    except re.error as exc:
        raise ConfigError(f"{where}: pattern does not compile: {exc}") from exc
    groups = set(pattern.groupindex)
    if "value" not in groups:
        raise ConfigError(f"{where}: pattern needs a named group 'value'")
    known = groups | {"subject", "Value"} | ({"category"} if raw.get("values_category") else set())
    templates = [raw["key"]] if raw["key"] else []
    templates += raw["text"]
    if not raw["text"] or not all(isinstance(t, str) for t in raw["text"]):
        raise ConfigError(f"{where}: text must be a non-empty list of templates")
    for template in templates:
        missing = _placeholders(template) - known
        if missing:
            raise ConfigError(f"{where}: template {template!r} uses unknown names {sorted(missing)}")
    if "{subject}" not in "".join(raw["text"]):
        raise ConfigError(f"{where}: every rule's text must name its subject ({{subject}})")
    guards = tuple(raw.get("guards", GUARDS))
    bad_guards = set(guards) - set(GUARDS)
    if bad_guards:
        raise ConfigError(f"{where}: unknown guard(s) {sorted(bad_guards)}")
    roles = frozenset(raw.get("roles", ["user"]))
    if not roles or not roles <= ROLES:
        raise ConfigError(f"{where}: roles must be a non-empty subset of {sorted(ROLES)}")
    if raw["kind"] == "procedural" and "assistant" in roles:
        raise ConfigError(
            f"{where}: a procedural rule cannot read assistant turns (model output is not a rule)"
        )
    return Rule(
        roles=roles,
        id=raw["id"],
        version=raw["version"],
        kind=raw["kind"],
        scope=raw["scope"],
        key=raw["key"],
        pattern=pattern,
        text=tuple(raw["text"]),
        confidence=float(raw["confidence"]),
        values=frozenset(v.lower() for v in raw["values"]) if "values" in raw else None,
        values_category={k.lower(): v for k, v in raw.get("values_category", {}).items()},
        guards=guards,
    )


def load_rules(path: Path | None = None) -> list[Rule]:
    """The shipped rules, or those of ``path``. Any invalid line fails the whole load, naming it."""
    rules: list[Rule] = []
    seen: set[str] = set()
    for where, raw in read_jsonl("facts.jsonl", path):
        rule = parse_rule(raw, where)
        if rule.id in seen:
            raise ConfigError(f"{where}: duplicate rule id {rule.id!r}")
        seen.add(rule.id)
        rules.append(rule)
    return rules


@dataclass(frozen=True, slots=True)
class QualifierPattern:
    """A phrase that narrows where a fact applies ("in docs/", "for hotfix branches")."""

    id: str
    pattern: re.Pattern[str]


def load_qualifiers(path: Path | None = None) -> list[QualifierPattern]:
    patterns = []
    for where, raw in read_jsonl("qualifiers.jsonl", path):
        if (
            not isinstance(raw, dict)
            or set(raw) != {"id", "pattern"}
            or not all(isinstance(v, str) for v in raw.values())
        ):
            raise ConfigError(f'{where}: a qualifier is exactly {{"id": str, "pattern": str}}')
        try:
            pattern = re.compile(raw["pattern"], re.IGNORECASE)
        except re.error as exc:
            raise ConfigError(f"{where}: pattern does not compile: {exc}") from exc
        if "q" not in pattern.groupindex:
            raise ConfigError(f"{where}: pattern needs a named group 'q'")
        patterns.append(QualifierPattern(raw["id"], pattern))
    return patterns
