"""The routes, in three routers assembled by ``create_app``: the LLM APIs (``llm``), the management
API (``management``: ``admin``, ``scopes``, ``export_import``) and health. Each handler reads top to
bottom as the data flow."""

# The management API's prefix, written once: its router, its OpenAPI document and the CLI use it.
MANAGEMENT_PREFIX = "/mnemo/v1"
