"""Fixtures of the live-cluster tests: a fake API server on 127.0.0.1 and a kubeconfig for it."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from tests.live.server import FakeApiServer


@pytest.fixture(autouse=True)
def local_only_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No proxy between the client and 127.0.0.1, and no kubeconfig of the machine running the tests."""
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
                "KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))


@pytest.fixture
def server() -> Iterator[FakeApiServer]:
    with FakeApiServer() as srv:
        yield srv


@pytest.fixture
def kubeconfig(server: FakeApiServer, tmp_path: Path) -> str:
    return str(server.write_kubeconfig(tmp_path / "kubeconfig"))
