"""The memory inspector: a server-rendered page at ``/mnemo/ui``, served by Mnemo itself, with no
build step and nothing fetched from elsewhere (one stylesheet, one small script of its own).

Browse memories by scope with filters and a search ranked as recall ranks; read one record's
provenance and versions; correct, pin and delete records, delete by filter, pause, disable and
resume scopes, export and import; review the quarantine; read the audit log. Authentication is the
management API's (``proxy.ui.session``); what a principal sees is ruled by ``admin.listing``.
"""

from proxy.ui.pages import router

__all__ = ["router"]
