"""Benchmarks: `python -m bench NAME [--quick]`. Each prints a table and, last, one JSON line."""
