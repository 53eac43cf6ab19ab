"""The packages stack in one direction: core <- extractors <- policies <- proxy. A lower layer
never imports a higher one, not even lazily inside a function."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["core", "extractors", "policies", "proxy"]


def imported_packages(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found & set(LAYERS)


@pytest.mark.parametrize("layer", LAYERS[:-1])
def test_a_layer_imports_only_the_layers_below_it(layer: str) -> None:
    allowed = set(LAYERS[: LAYERS.index(layer) + 1])
    wrong = {
        str(path.relative_to(ROOT)): sorted(imported_packages(path) - allowed)
        for path in (ROOT / layer).rglob("*.py")
        if imported_packages(path) - allowed
    }
    assert wrong == {}


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from proxy.app import create_app\n    import core.scope\n")
    assert imported_packages(module) == {"proxy", "core"}
