"""Mnemo: a portable memory layer for AI agents, delivered as an OpenAI-compatible proxy.

Public surface: ``create_app(settings)`` assembles the ASGI app from ``Settings``.
Imported lazily so that the CLI and the worker load without the whole app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from proxy.app import create_app
    from proxy.settings import Settings

__all__ = ["Settings", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from proxy.app import create_app

        return create_app
    if name == "Settings":
        from proxy.settings import Settings

        return Settings
    raise AttributeError(name)
