"""Shared loading of the YAML case files under tests/config/cases."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

CASES = Path(__file__).parent / "cases"


def load(stem: str) -> dict[str, Any]:
    return yaml.safe_load((CASES / f"{stem}.yaml").read_text(encoding="utf-8"))


def params(stem: str, prefix: str) -> list[Any]:
    """One pytest.param per case, id ``<prefix>_<case name>``."""
    return [pytest.param(case, id=f"{prefix}_{case['name']}") for case in load(stem)["cases"]]


def pairs(errors: Any) -> list[tuple[str, str]]:
    return [(e.field, e.type) for e in errors]
