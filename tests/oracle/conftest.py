"""The oracle binary for tests/oracle: built once per session from oracle/ (make -C oracle).

Without Go the tests skip with a one-line reason, except under CI=true, where they must run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ORACLE = ROOT / "oracle" / "bin" / "kschedctl-oracle"


@pytest.fixture(scope="session")
def oracle() -> str:
    if shutil.which("go") is None or shutil.which("make") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true but Go or make is missing: the upstream oracle must run in CI")
        pytest.skip("Go is not installed: the upstream oracle (make -C oracle) needs Go 1.26")
    started = time.perf_counter()
    build = subprocess.run(["make", "-C", str(ROOT / "oracle")], capture_output=True, text=True, timeout=1800)
    assert build.returncode == 0, build.stdout[-2000:] + build.stderr[-4000:]
    print(f"oracle build: {time.perf_counter() - started:.1f} s")
    return str(ORACLE)
