"""``POST /mnemo/v1/import?from=FORMAT``: the formats other than Mnemo's own JSON Lines, read whole
from the body and imported as their kind says (instructions files through the extractor and the
policy, mem0 and jsonl-min one record per item through the JSON Lines importer)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from core.scope import Principal
from proxy.importers import INSTRUCTION_FORMATS, check_format, import_records, read_body
from proxy.importers.instructions import FileRequest, import_instructions
from proxy.importers.records import defaults_for
from proxy.importers.report import FileImportResult
from proxy.lifespan import Services
from proxy.portability import Importer
from proxy.routes import schemas
from proxy.routes.schemas import ImportResult

UPLOAD_NAME = "upload"  # the source's file when the caller names none


async def import_from(
    fmt: str,
    body: AsyncIterator[bytes],
    request: FileRequest,
    services: Services,
    principal: Principal,
    importer: Importer,
) -> ImportResult | FileImportResult:
    check_format(fmt)
    content = await read_body(body)
    if fmt in INSTRUCTION_FORMATS:
        result = await import_instructions(content, request, services, principal)
        counts = {"imported": result.imported + result.superseded, "merged": result.unchanged + result.merged}
        rejected = result.refused
    else:
        defaults = defaults_for(principal, request.project, request.file, fmt)
        report = await import_records(fmt, content, importer, defaults)
        counts = {"imported": report.imported, "merged": report.merged}
        rejected = report.rejected
    if not request.dry_run:
        await services.store.record_audit(
            principal.org,
            principal.name,
            "import",
            **{name: str(value) for name, value in counts.items()},
            rejected=str(rejected),
            reason=f"from {fmt}",
        )
    return result if fmt in INSTRUCTION_FORMATS else schemas.import_result(report, request.dry_run)
