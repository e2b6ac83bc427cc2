"""One switchboard turns every fast path off, and the engine answers the same without them.

``KSCHEDCTL_NO_FAST_PATHS=1`` gives the process ``FastPaths.off()``; a simulator can be given its
own settings (``Simulator(fast_paths=)``, ``memoize=False``), which its frameworks, plugins and
memos take as they are built. The suites' engine cases (tests/engine_cases.py: the fixture pods
explained and simulated under every bundled profile, every scenario of profiles/scenarios) give
the same JSON with every fast path on and off.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kschedctl import fastpaths
from kschedctl.fastpaths import DISABLE_ENV, FastPaths
from kschedctl.plugins.names import INTER_POD_AFFINITY, POD_TOPOLOGY_SPREAD
from kschedctl.scheduler.setup import load_default_config
from kschedctl.scheduler.simulate import Simulator
from tests.framework.fakes import make_node
from tests.scheduler.test_simulate import cluster

ROOT = Path(__file__).resolve().parents[1]


def _python(code_or_module: list[str], fast: bool) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop(DISABLE_ENV, None)
    if not fast:
        env[DISABLE_ENV] = "1"
    proc = subprocess.run([sys.executable, *code_or_module], cwd=ROOT, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_engine_cases_answer_the_same_with_every_fast_path_off() -> None:
    on = json.loads(_python(["-m", "tests.engine_cases"], fast=True))
    off = json.loads(_python(["-m", "tests.engine_cases"], fast=False))
    assert len(on) > 150 and sum(k.startswith("simulate") for k in on) > 40
    assert on.keys() == off.keys()
    for case in on:
        assert on[case] == off[case], case


@pytest.mark.parametrize("value,expected", [("1", "off"), ("yes", "off"), ("", "on"), ("0", "on")])
def test_the_environment_variable_turns_every_fast_path_off(value: str, expected: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), DISABLE_ENV: value}
    out = subprocess.run([sys.executable, "-c", "from kschedctl import fastpaths; print(fastpaths.PROCESS)"],
                         cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert out == repr(FastPaths.off() if expected == "off" else FastPaths())


def _simulator(**kwargs) -> Simulator:
    nodes = [make_node(f"n{i}", cpu="4") for i in range(3)]
    return Simulator(cluster(nodes, []), load_default_config(), seed=1, **kwargs)


def _plugin(sim: Simulator, name: str):
    fwk = sim.frameworks[sim.profile_names()[0]]
    return next(pl for pl in fwk.plugins["preFilter"] if pl.name == name), fwk


@pytest.mark.parametrize("kwargs,on", [
    ({}, True),
    ({"memoize": False}, False),
    ({"fast_paths": FastPaths.off()}, False),
    ({"fast_paths": FastPaths(columns=False)}, None),
])
def test_a_run_takes_its_settings_into_memos_columns_and_plugin_caches(kwargs: dict, on: bool | None) -> None:
    sim = _simulator(**kwargs)
    affinity, fwk = _plugin(sim, INTER_POD_AFFINITY)
    spread, _ = _plugin(sim, POD_TOPOLOGY_SPREAD)
    if on is None:  # columns alone off
        assert sim.memoize and not fwk._use_columns and affinity._sums is not None
        return
    assert sim.memoize is on
    assert fwk._use_columns is on
    assert (affinity._sums is not None) is on
    assert (spread._pre_filter_cache is not None) is on
    assert fastpaths.settings() == fastpaths.PROCESS  # the run's settings did not outlive its building
