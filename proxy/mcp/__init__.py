"""Mnemo's memory for MCP clients, through the official MCP Python SDK.

``tools`` declares the four tools (search, show with source and history, remember, forget) over a
``Backend``; ``http`` serves them on the Litestar app at ``/mcp`` (streamable HTTP, stateless) with
the proxy's keys and scope headers, against the app's own services (``local``, ``remember``);
``stdio`` is `mnemo mcp`: the same tools over stdio, each call forwarded to a running server's
``/mcp``. This package imports the SDK; nothing else in Mnemo does.
"""
