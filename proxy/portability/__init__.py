"""Export and import: memory as JSON Lines, one self-contained record per line (DESIGN §4).

Each line is ``Memory.to_json()``: every field including provenance and ``schema_version``, plus
the vector as base64 float32 when asked for (``embedding``, with ``embedding_model`` saying whose).
Lines stand alone, so files can be split, concatenated and imported in any order.

- ``lines``: the line format as declared types, and ``parse_record`` (pure) from a line to a record;
- ``export``: the records a query matches, read a page at a time;
- ``importer``: lines checked one by one and written in batches.
"""

from proxy.portability.export import export_line, export_lines
from proxy.portability.importer import Importer, ImportReport, import_lines, org_id
from proxy.portability.lines import (
    MAX_LINE_BYTES,
    ExportLine,
    Rejected,
    decode_line,
    derived_id,
    parse_record,
    refingerprinted,
    stored_vector,
)

__all__ = [
    "MAX_LINE_BYTES",
    "ExportLine",
    "ImportReport",
    "Importer",
    "Rejected",
    "decode_line",
    "derived_id",
    "export_line",
    "export_lines",
    "import_lines",
    "org_id",
    "parse_record",
    "refingerprinted",
    "stored_vector",
]
