"""Export and import under the management router: memory as JSON Lines, one record per line
(the format is ``proxy.portability``'s)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated

from litestar import Request, get, post
from litestar.datastructures import ResponseHeader, State
from litestar.di import NamedDependency
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import OpenAPIMediaType, OpenAPIType, Operation, RequestBody, Schema
from litestar.params import QueryParameter
from litestar.response import Stream

from core.scope import Principal
from policies.secrets import secret_matcher
from proxy.importers import FORMATS
from proxy.importers.instructions import FileRequest
from proxy.importers.report import FileImportResult
from proxy.importers.route import UPLOAD_NAME, import_from
from proxy.lifespan import Services
from proxy.portability import Importer, export_lines, import_lines
from proxy.routes import schemas
from proxy.routes.admin import MemoryFilters, listing
from proxy.routes.schemas import ExportLine, ImportResult, errors
from proxy.signing import Signer, data_dir_key

EXPORT_MEDIA_TYPE = "application/x-ndjson"
FROM_HELP = (
    "jsonl (default): Mnemo's export; claude-md, agents-md, cursor-rules, copilot-instructions: an "
    "instructions file, read into facts and rules; mem0: a mem0 export; jsonl-min: lines of text"
)


@get(
    "/export",
    tags=["portability"],
    summary="Export as JSON Lines: one record per line, every field and schema_version; streamed",
    media_type=EXPORT_MEDIA_TYPE,
    operation_id="exportMemories",
    response_headers=[
        ResponseHeader(
            name="x-mnemo-export-count", description="How many records follow", documentation_only=True
        ),
        ResponseHeader(
            name="x-mnemo-embedding-model",
            description="The model that made the vectors (vectors=true)",
            documentation_only=True,
        ),
        ResponseHeader(
            name="x-mnemo-export-signed-by",
            description="sign=true: the public key that signed the manifest (ed25519:<base64>)",
            documentation_only=True,
        ),
    ],
    responses={
        200: ResponseSpec(
            data_container=ExportLine,
            media_type=EXPORT_MEDIA_TYPE,
            description="JSON Lines: each line one record in this shape (every version, every field)",
            generate_examples=False,
        ),
        **errors(),
    },
)
async def export(
    services: NamedDependency[Services],
    principal: NamedDependency[Principal],
    filters: NamedDependency[MemoryFilters],
    vectors: Annotated[
        bool, QueryParameter(description="Include each record's vector (base64 float32) to skip re-embedding")
    ] = False,
    sign: Annotated[
        bool, QueryParameter(description="End with line digests and a manifest signed by the server's key")
    ] = False,
) -> Stream:
    query = listing(principal, filters, changing=False)
    total = await services.store.count(query)
    await services.store.record_audit(principal.org, principal.name, "export", count=str(total))
    signer = Signer(data_dir_key(services.settings.data_dir)) if sign else None

    async def lines() -> AsyncIterator[bytes]:
        async for chunk in export_lines(services.store, query, vectors, services.embeddings.model_id):
            if signer is not None:
                signer.feed(chunk)
            yield chunk
        if signer is not None:
            yield signer.trailer()

    return Stream(
        lines(),
        media_type=EXPORT_MEDIA_TYPE,
        headers={
            "x-mnemo-export-count": str(total),
            "x-mnemo-embedding-model": services.embeddings.model_id,
            "content-disposition": 'attachment; filename="mnemo-export.jsonl"',
            **({"x-mnemo-export-signed-by": signer.public_key} if signer is not None else {}),
        },
    )


@dataclass
class _ImportOperation(Operation):
    """The import reads its body as a raw stream (no ``data`` parameter), so say what it takes."""

    def __post_init__(self) -> None:
        self.request_body = RequestBody(
            required=True,
            description="JSON Lines, one record per line (an export, or records of the same shape); "
            "with from=FORMAT, a file in that format",
            content={
                EXPORT_MEDIA_TYPE: OpenAPIMediaType(
                    schema=Schema(type=OpenAPIType.STRING, description="one JSON record per line")
                )
            },
        )


@post(
    "/import",
    tags=["portability"],
    summary="Import JSON Lines (an export): each line checked, duplicates merged, vectors re-made if needed",
    status_code=200,
    request_max_body_size=None,
    operation_id="importMemories",
    operation_class=_ImportOperation,
    responses={
        200: ResponseSpec(
            data_container=ImportResult,
            description="How the import went; from an instructions format (claude-md, agents-md, "
            "cursor-rules, copilot-instructions), a FileImportResult: outcomes by line",
            generate_examples=False,
        ),
        **errors(415),
    },
)
async def import_memories(
    request: Request[object, object, State],
    services: NamedDependency[Services],
    principal: NamedDependency[Principal],
    dry_run: Annotated[bool, QueryParameter(description="Check and count, write nothing")] = False,
    from_format: Annotated[
        str, QueryParameter(name="from", description=FROM_HELP, enum=list(FORMATS))
    ] = "jsonl",
    project: Annotated[
        str | None, QueryParameter(description="The project the file's records are for")
    ] = None,
    file: Annotated[
        str | None, QueryParameter(description="The file, as the records' source names it")
    ] = None,
) -> ImportResult | FileImportResult:
    importer = importer_for(services, principal, dry_run)
    if from_format != "jsonl":
        asked = FileRequest(from_format, file or UPLOAD_NAME, project, dry_run)
        return await import_from(from_format, request.stream(), asked, services, principal, importer)
    report = await import_lines(request.stream(), importer)
    if not dry_run:
        await services.store.record_audit(
            principal.org,
            principal.name,
            "import",
            imported=str(report.imported),
            merged=str(report.merged),
            rejected=str(report.rejected),
        )
    return schemas.import_result(report, dry_run)


ROUTES = [export, import_memories]


def importer_for(services: Services, principal: Principal, dry_run: bool) -> Importer:
    """The JSON Lines importer for this caller, the same for the API and the inspector."""
    return Importer(
        services.store,
        services.embeddings,
        principal,
        secret_matcher(services.policy.secret_patterns),
        dry_run=dry_run,
        # one org (local mode) or an operator: ids are kept; a key among orgs: ids go into its org
        keep_ids=principal.admin or services.policy.mode != "keys",
    )
