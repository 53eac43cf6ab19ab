"""A strict schema for policy files: every key known, every value typed, errors with file and line.

YAML is parsed to nodes (``yaml.compose``) so each error can name the line it is on.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from core.errors import ConfigError

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d|w)\s*$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


class PolicyError(ConfigError):
    """A policy file that cannot be used; ``problems`` lists each one with file, line and field."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True, slots=True)
class Field:
    kind: str  # str, int, float, bool, duration, list, map, enum, pattern
    required: bool = False
    items: Field | Schema | None = None  # for list; for map: the value type
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None


@dataclass(frozen=True, slots=True)
class Schema:
    fields: dict[str, Field | Schema] = field(default_factory=dict)


def parse_duration(text: str) -> float:
    match = _DURATION.match(text)
    if not match:
        raise ValueError(f"not a duration (like 30d, 12h, 90m): {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def validate(text: str, name: str, schema: Schema) -> dict[str, Any]:
    """The document as plain data, or PolicyError naming every problem as ``name:line: field: what``."""
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise PolicyError([f"{name}{line}: not valid YAML: {getattr(exc, 'problem', exc)}"]) from exc
    problems: list[str] = []
    if root is None:
        raise PolicyError([f"{name}:1: the file is empty"])
    value = _object(root, schema, name, "", problems)
    if problems:
        raise PolicyError(problems)
    return value


def _where(name: str, node: yaml.Node, path: str) -> str:
    return f"{name}:{node.start_mark.line + 1}: {path or '(top level)'}"


def _object(node: yaml.Node, schema: Schema, name: str, path: str, problems: list[str]) -> dict[str, Any]:
    if not isinstance(node, yaml.MappingNode):
        problems.append(f"{_where(name, node, path)}: expected a mapping")
        return {}
    out: dict[str, Any] = {}
    for key_node, value_node in node.value:
        key = key_node.value
        child = f"{path}.{key}" if path else key
        spec = schema.fields.get(key)
        if spec is None:
            known = ", ".join(sorted(schema.fields))
            problems.append(f"{_where(name, key_node, child)}: unknown field (known: {known})")
            continue
        out[key] = _value(value_node, spec, name, child, problems)
    for key, spec in schema.fields.items():
        if isinstance(spec, Field) and spec.required and key not in out:
            problems.append(f"{_where(name, node, f'{path}.{key}' if path else key)}: missing required field")
    return out


_SCALARS: dict[str, Callable[[str], Any]] = {"str": str, "int": int, "float": float}


def _value(node: yaml.Node, spec: Field | Schema, name: str, path: str, problems: list[str]) -> Any:
    if isinstance(spec, Schema):
        return _object(node, spec, name, path, problems)
    where = _where(name, node, path)
    if spec.kind == "list":
        if not isinstance(node, yaml.SequenceNode):
            problems.append(f"{where}: expected a list")
            return []
        assert spec.items is not None
        return [_value(item, spec.items, name, f"{path}[{i}]", problems) for i, item in enumerate(node.value)]
    if spec.kind == "map":
        if not isinstance(node, yaml.MappingNode):
            problems.append(f"{where}: expected a mapping")
            return {}
        assert spec.items is not None
        return {k.value: _value(v, spec.items, name, f"{path}.{k.value}", problems) for k, v in node.value}
    if not isinstance(node, yaml.ScalarNode):
        shape = "list" if isinstance(node, yaml.SequenceNode) else "mapping"
        problems.append(f"{where}: expected a single value, not a {shape}")
        return None
    raw = node.value
    tag = node.tag
    try:
        if spec.kind == "bool":
            if tag != "tag:yaml.org,2002:bool":
                raise ValueError(f"expected true or false, got {raw!r}")
            return raw.lower() in ("true", "yes", "on")
        if spec.kind in ("int", "float"):
            if tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float") or (
                spec.kind == "int" and tag != "tag:yaml.org,2002:int"
            ):
                raise ValueError(
                    f"expected a {'whole number' if spec.kind == 'int' else 'number'}, got {raw!r}"
                )
            number = _SCALARS[spec.kind](raw)
            if spec.minimum is not None and number < spec.minimum:
                raise ValueError(f"must be at least {spec.minimum}, got {number}")
            if spec.maximum is not None and number > spec.maximum:
                raise ValueError(f"must be at most {spec.maximum}, got {number}")
            return number
        if spec.kind == "duration":
            return parse_duration(raw)
        if tag != "tag:yaml.org,2002:str":
            raise ValueError(f"expected text, got {raw!r}")
        if spec.kind == "enum" and raw not in spec.choices:
            raise ValueError(f"must be one of {', '.join(spec.choices)}; got {raw!r}")
        if spec.kind == "pattern":
            re.compile(raw)
        return raw
    except (ValueError, re.error) as exc:
        problems.append(f"{where}: {exc}")
        return None


def read_policy_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PolicyError([f"{path}: cannot read: {exc.strerror}"]) from exc
