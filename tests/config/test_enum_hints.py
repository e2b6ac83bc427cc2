"""A configuration value outside an enum gets a did-you-mean when one value is close
(``scoringStrategy.type: MostAlocated``), in validate's hint and in the one-line error of the
commands that need a usable configuration; a value close to none gets none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import run_cli

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: {value}
"""


@pytest.mark.parametrize("value,hint", [
    ("MostAlocated", 'did you mean "MostAllocated"?'),
    ("leastallocated", 'did you mean "LeastAllocated"?'),
    ("Packed", ""),
])
def test_enum_did_you_mean(tmp_path: Path, value: str, hint: str) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(TEMPLATE.format(value=value), encoding="utf-8")
    result = run_cli("validate", str(config), "-o", "json")
    assert result.exit_code == 1
    (error,) = json.loads(result.stdout)["errors"]
    assert error["type"] == "NotSupported" and error["line"] == 9
    assert error.get("hint", "") == hint
    explain = run_cli("explain", str(ROOT / "fixtures/pods/pod.yaml"), "--cluster", str(ROOT / "fixtures/cluster"),
                      "-c", str(config))
    assert explain.exit_code == 2 and explain.stderr.startswith(f"error: {config}:9: invalid scheduler configuration")
    assert explain.stderr.rstrip().endswith(f"({hint})" if hint else '"RequestedToCapacityRatio"')
