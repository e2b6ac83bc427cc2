"""Machine-readable output: ``-o json`` and ``-o yaml`` print the same structure."""

from __future__ import annotations

import json
from typing import Any

import yaml

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def to_json(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False)


def to_yaml(data: Any) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False)


def dump(data: Any, fmt: str) -> str:
    """``data`` (plain dicts/lists) as ``json`` or ``yaml`` text, ending with a newline."""
    if fmt == "json":
        return to_json(data) + "\n"
    if fmt == "yaml":
        return to_yaml(data)
    raise ValueError(f"not a machine-readable format: {fmt}")
