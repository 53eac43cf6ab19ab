"""Per-API request shapes, SSE parsing, stream reassembly and error shapes."""
