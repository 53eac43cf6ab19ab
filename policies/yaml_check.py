"""A YAML document checked against a declared msgspec type, every problem with file, line and field.

msgspec stops at the first problem and knows no lines. This walk over ``yaml.compose`` nodes reads
the same declared type (its fields, ``Annotated`` constraints, ``Literal`` and enum choices) and
reports each problem as ``file:line: field: what``, all at once; a document without problems is
then converted by msgspec itself. Beyond msgspec's constraints the walk reads ``Meta(extra=...)``:
``says`` (what a mismatch is called, ``{raw}`` the value given) and ``check="regex"``.
"""

from __future__ import annotations

import enum
import math
import re
import types
from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, Literal, TypeVar, Union, get_args, get_origin

import msgspec
import yaml

from core.errors import ConfigError

T = TypeVar("T")


class PolicyError(ConfigError):
    """A policy file that cannot be used; ``problems`` lists each one with file, line and field."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True, slots=True)
class Checked(Generic[T]):
    """A document that passed: its typed value, and the line of each dotted field (for the checks
    across fields the type cannot state)."""

    value: T
    name: str
    lines: dict[str, int]

    def where(self, path: str) -> str:
        return f"{self.name}:{self.lines.get(path, 1)}: {path}"


def check(text: str, name: str, kind: type[T]) -> Checked[T]:
    """``text`` as ``kind``, or PolicyError naming every problem as ``name:line: field: what``."""
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise PolicyError([f"{name}{line}: not valid YAML: {getattr(exc, 'problem', exc)}"]) from exc
    if root is None:
        raise PolicyError([f"{name}:1: the file is empty"])
    walk = _Walk(name)
    data = walk.value(root, kind, "")
    if walk.problems:
        raise PolicyError(walk.problems)
    try:
        return Checked(msgspec.convert(data, kind), name, walk.lines)
    except msgspec.ValidationError as exc:  # a constraint the walk does not read
        raise PolicyError([f"{name}: {exc}"]) from exc


@dataclass(slots=True)
class _Walk:
    name: str
    problems: list[str] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)
    # YAML's own reading of a scalar (true/yes/on, 0x1F, 1_000); one per walk, as it keeps every node
    scalars: yaml.constructor.SafeConstructor = field(default_factory=yaml.constructor.SafeConstructor)

    def where(self, node: yaml.Node, path: str) -> str:
        return f"{self.name}:{node.start_mark.line + 1}: {path or '(top level)'}"

    def value(self, node: yaml.Node, kind: Any, path: str) -> Any:
        self.lines[path] = node.start_mark.line + 1
        kind, meta = _unwrap(kind)
        origin = get_origin(kind)
        if isinstance(kind, type) and issubclass(kind, msgspec.Struct):
            return self.struct(node, kind, path)
        if origin is list:
            if not isinstance(node, yaml.SequenceNode):
                return self.problem(node, path, "expected a list", [])
            (item,) = get_args(kind)
            return [self.value(one, item, f"{path}[{i}]") for i, one in enumerate(node.value)]
        if origin is dict:
            if not isinstance(node, yaml.MappingNode):
                return self.problem(node, path, "expected a mapping", {})
            _, item = get_args(kind)
            return {k.value: self.value(v, item, f"{path}.{k.value}") for k, v in node.value}
        if not isinstance(node, yaml.ScalarNode):
            shape = "list" if isinstance(node, yaml.SequenceNode) else "mapping"
            return self.problem(node, path, f"expected a single value, not a {shape}", None)
        try:
            return _scalar(self.scalars.construct_object(node), node.value, kind, meta)
        except (ValueError, re.error) as exc:
            return self.problem(node, path, str(exc), None)

    def struct(self, node: yaml.Node, kind: type[msgspec.Struct], path: str) -> dict[str, Any]:
        if not isinstance(node, yaml.MappingNode):
            return self.problem(node, path, "expected a mapping", {})
        fields = {f.encode_name: f for f in msgspec.structs.fields(kind)}
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = key_node.value
            child = f"{path}.{key}" if path else key
            if key not in fields:
                self.problem(key_node, child, f"unknown field (known: {', '.join(sorted(fields))})", None)
                continue
            out[key] = self.value(value_node, fields[key].type, child)
        for key, spec in fields.items():
            if spec.required and key not in out:
                self.problem(node, f"{path}.{key}" if path else key, "missing required field", None)
        return out

    def problem(self, node: yaml.Node, path: str, what: str, instead: T) -> T:
        """Notes the problem; ``instead`` stands for the value so the walk goes on."""
        self.problems.append(f"{self.where(node, path)}: {what}")
        return instead


def _unwrap(kind: Any) -> tuple[Any, msgspec.Meta]:
    """The type a value must have, and its constraints: ``X | None`` and ``X | UnsetType`` are X
    (None and UNSET stand for "not given"; a file cannot write them)."""
    meta = msgspec.Meta()
    if get_origin(kind) is Annotated:
        kind, meta = get_args(kind)
    if get_origin(kind) in (Union, types.UnionType):
        (kind,) = [t for t in get_args(kind) if t not in (type(None), msgspec.UnsetType)]
        return _unwrap(kind)
    return kind, meta


def _scalar(value: Any, raw: str, kind: Any, meta: msgspec.Meta) -> Any:
    """One YAML scalar as ``kind`` requires, or ValueError saying what is wrong with it."""
    if kind is bool:
        if not isinstance(value, bool):
            raise ValueError(f"expected true or false, got {raw!r}")
        return value
    if kind in (int, float):
        whole = kind is int
        fits = isinstance(value, int) if whole else isinstance(value, int | float) and math.isfinite(value)
        if isinstance(value, bool) or not fits:
            raise ValueError(f"expected a {'whole number' if whole else 'number'}, got {raw!r}")
        number = value if whole else float(value)
        if meta.ge is not None and number < meta.ge:
            raise ValueError(f"must be at least {meta.ge}, got {number}")
        if meta.le is not None and number > meta.le:
            raise ValueError(f"must be at most {meta.le}, got {number}")
        return number
    extra = meta.extra or {}
    says = extra.get("says")
    if not isinstance(value, str):
        raise ValueError(says.format(raw=raw) if says else f"expected text, got {raw!r}")
    choices = _choices(kind)
    if choices is not None and value not in choices:
        raise ValueError(f"must be one of {', '.join(choices)}; got {raw!r}")
    if meta.pattern and not re.search(meta.pattern, value):
        raise ValueError(says.format(raw=raw) if says else f"must match {meta.pattern}; got {raw!r}")
    if extra.get("check") == "regex":
        re.compile(value)
    return value


def _choices(kind: Any) -> tuple[str, ...] | None:
    if get_origin(kind) is Literal:
        return tuple(str(v) for v in get_args(kind))
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return tuple(str(member.value) for member in kind)
    if kind is str:
        return None
    raise TypeError(f"a policy file cannot declare {kind!r}")
