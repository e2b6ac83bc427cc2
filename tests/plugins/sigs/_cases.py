"""Case files of the out-of-tree plugin tests: ``<dir>/cases/<stem>.yaml``, ids ``<Plugin>_<case>``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml


def load(here: str, stem: str, plugin: str, key: str = "cases") -> list[Any]:
    """The ``key`` list of ``cases/<stem>.yaml`` next to ``here`` as pytest params."""
    data = yaml.safe_load((Path(here).parent / "cases" / f"{stem}.yaml").read_text(encoding="utf-8"))
    return [pytest.param(case, id=f"{plugin}_{case['name']}") for case in data[key]]
