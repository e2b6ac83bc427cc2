"""Live mode over HTTPS: the server's certificate is verified unless the kubeconfig says
``insecure-skip-tls-verify: true``, which is honoured (as kubectl does) with one warning."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from tests.cli.helpers import run_cli
from tests.framework.extender_server import self_signed_cert
from tests.live.server import FakeApiServer

POD = str(Path(__file__).resolve().parents[2] / "fixtures" / "pods" / "pod.yaml")


@pytest.fixture
def https_server(tmp_path: Path) -> Iterator[tuple[FakeApiServer, Path]]:
    cert, key = self_signed_cert(tmp_path)
    with FakeApiServer(tls=(cert, key)) as server:
        yield server, cert


def test_unknown_certificate_is_refused(https_server: tuple[FakeApiServer, Path], tmp_path: Path) -> None:
    server, _ = https_server
    config = server.write_kubeconfig(tmp_path / "kubeconfig")
    result = run_cli("explain", "--kubeconfig", str(config), POD)
    assert result.exit_code == 2
    assert "certificate" in result.stderr.lower()
    assert server.requests == [] or all(not r.authorized for r in server.requests)


def test_certificate_authority_is_used(https_server: tuple[FakeApiServer, Path], tmp_path: Path) -> None:
    server, cert = https_server
    config = server.write_kubeconfig(tmp_path / "kubeconfig", cluster={"certificate-authority": str(cert)})
    result = run_cli("explain", "--kubeconfig", str(config), POD, "-o", "json")
    assert result.exit_code == 0, result.stderr
    assert "TLS verification is off" not in result.stderr


def test_insecure_skip_tls_verify_is_honoured_with_one_warning(https_server: tuple[FakeApiServer, Path],
                                                               tmp_path: Path) -> None:
    server, _ = https_server
    config = server.write_kubeconfig(tmp_path / "kubeconfig", cluster={"insecure-skip-tls-verify": True})
    result = run_cli("explain", "--kubeconfig", str(config), POD, "-o", "json")
    assert result.exit_code == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "TLS verification is off" in line]
    assert warnings == [f"warning: TLS verification is off for {server.url} (insecure-skip-tls-verify in "
                        f'kubeconfig {config}, context "fake"): the server\'s identity was not checked']
    assert "InsecureRequestWarning" not in result.stderr
    assert server.token not in result.stderr + result.stdout
