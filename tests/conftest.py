"""Shared test helpers, and which checks a plain ``pytest`` runs.

``pytest`` runs the Python suite. The checks that build Go (``tests/oracle``: upstream's
kube-scheduler built by ``make -C oracle``, then compared with kschedctl case by case) take
minutes and need Go 1.26 and the Go module proxy: they run under ``CI=true`` (as ``.ci/run``
sets it) or with ``pytest --go``, and are otherwise skipped with one line saying how to run them.
"""

from __future__ import annotations

import os
from pathlib import Path

# Every part pods share after loading (kschedctl.inputs.sharing) is checked after each test: a
# change in place would have changed every pod sharing it. Set before kschedctl is imported.
os.environ.setdefault("KSCHEDCTL_CHECK_SHARED", "1")

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# Property tests run the same examples on every run: a pull request's CI fails for what it changed,
# not for an input the random search happened to reach that day. Explore more with
# HYPOTHESIS_PROFILE=explore (random examples, ten times as many).
settings.register_profile("default", derandomize=True)
settings.register_profile("explore", derandomize=False, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

#: The test directories whose checks build Go.
GO_DIRS = (Path(__file__).parent / "oracle",)
_GO_REASON = "builds Go (make -C oracle): pytest --go or CI=true runs it"
_GO_SKIPPED = pytest.StashKey[int]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--go", action="store_true", default=False,
                     help="also run the checks that build Go (tests/oracle); CI=true does too")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "go: builds Go (upstream's scheduler); runs with --go or CI=true")


def go_checks_wanted(config: pytest.Config) -> bool:
    """Whether this run builds Go: ``--go``, or CI asking for everything."""
    return bool(config.getoption("--go")) or os.environ.get("CI") == "true"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = go_checks_wanted(config)
    skipped = 0
    for item in items:
        path = Path(str(item.path))
        if any(d == path.parent or d in path.parents for d in GO_DIRS):
            item.add_marker(pytest.mark.go)
        if item.get_closest_marker("go") is not None and not wanted:
            item.add_marker(pytest.mark.skip(reason=_GO_REASON))
            skipped += 1
    config.stash[_GO_SKIPPED] = skipped


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int,
                            config: pytest.Config) -> None:
    skipped = config.stash.get(_GO_SKIPPED, 0)
    if skipped:
        terminalreporter.write_line(f"{skipped} check(s) that build Go skipped: pytest --go or CI=true runs them")


@pytest.fixture(autouse=True)
def _shared_parts_unchanged() -> object:
    """No test may leave a part shared between loaded pods changed in place."""
    from kschedctl.inputs.sharing import changed_shared_parts, forget_shared_parts

    forget_shared_parts()
    yield
    changed = changed_shared_parts()
    forget_shared_parts()
    assert not changed, f"parts shared between pods were changed in place: {changed[:3]}"
