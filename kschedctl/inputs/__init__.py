"""Bytes in, plain dicts out: YAML/JSON loading with limits and file:line errors, kind dispatch."""
