"""Export (a download of JSON Lines, the management API's format) and import (an uploaded file) from
the page, and the audit log with its times in ISO 8601."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

from litestar import Response, get, post
from litestar.datastructures import UploadFile
from litestar.di import NamedDependency
from litestar.response import Stream

from core.errors import BadRequest
from proxy.portability import export_lines, import_lines
from proxy.routes.admin import MemoryFilters, listing
from proxy.routes.export_import import EXPORT_MEDIA_TYPE, importer_for
from proxy.ui.render import SECURITY_HEADERS
from proxy.ui.view import View, filters_from

AUDIT_ROWS = 200
UPLOAD_CHUNK = 1 << 16


@get("/transfer", name="ui-transfer")
async def transfer(view: NamedDependency[View]) -> Response[str]:
    return await view.page("transfer.html", report=None)


@get("/export", name="ui-export")
async def export(view: NamedDependency[View]) -> Stream:
    params = view.request.query_params
    filters = filters_from({**params, "status": params.get("status") or "any"})
    vectors = params.get("vectors") == "1"
    services, principal = view.services, view.principal
    query = listing(principal, filters, changing=False)
    total = await services.store.count(query)
    await services.store.record_audit(principal.org, principal.name, "export", count=str(total))

    async def lines() -> AsyncIterator[bytes]:
        async for chunk in export_lines(services.store, query, vectors, services.embeddings.model_id):
            yield chunk

    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return Stream(
        lines(),
        media_type=EXPORT_MEDIA_TYPE,
        headers={
            **SECURITY_HEADERS,
            "x-mnemo-export-count": str(total),
            "content-disposition": f'attachment; filename="mnemo-export-{stamp}.jsonl"',
        },
    )


async def _chunks(upload: UploadFile) -> AsyncIterator[bytes]:
    while chunk := await upload.read(UPLOAD_CHUNK):
        yield chunk


@post("/import", name="ui-import")
async def import_file(view: NamedDependency[View]) -> Response[str]:
    form = await view.form()
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise BadRequest("choose a file to import (JSON Lines, as an export writes it)", param="file")
    dry_run = form.get("dry_run") == "1"
    services, principal = view.services, view.principal
    importer = importer_for(services, principal, dry_run)
    report = await import_lines(_chunks(upload), importer)
    if not dry_run:
        counts = {"imported": report.imported, "merged": report.merged, "rejected": report.rejected}
        await services.store.record_audit(
            principal.org, principal.name, "import", **{k: str(v) for k, v in counts.items()}
        )
    return await view.page("transfer.html", report=report.to_json(), dry_run=dry_run, name=upload.filename)


@get("/audit", name="ui-audit")
async def audit(view: NamedDependency[View]) -> Response[str]:
    query = listing(view.principal, MemoryFilters(), changing=False)
    rows = await view.services.store.audit(query.org or view.principal.org, AUDIT_ROWS)
    shown = ("action", "org", "actor", "at", "memory_id", "new_id")
    entries = [
        {**{k: row.get(k, "") for k in shown}, "details": {k: v for k, v in row.items() if k not in shown}}
        for row in rows
    ]
    return await view.page("audit.html", entries=entries)


ROUTES = [transfer, export, import_file, audit]
