"""What an extender configuration or an extender's answer cannot make kschedctl do: read a TLS
file outside the run's root, hang on a FIFO, read /dev/zero or a huge file into memory, or take
an endless response body."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from kschedctl.framework import extender
from kschedctl.framework.extender import ExtenderConfigError, ExtenderError, HTTPExtender
from kschedctl.inputs import access
from kschedctl.limits import EXTENDER_RESPONSE_MAX_BYTES, TLS_FILE_MAX_BYTES
from tests.framework.extender_server import extender_server  # noqa: F401 - a fixture
from tests.framework.fakes import make_node
from kschedctl.framework.types import NodeInfo

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"},
       "spec": {"containers": [{"name": "c"}]}}


def _build(tls: dict) -> HTTPExtender:
    return HTTPExtender({"urlPrefix": "https://127.0.0.1:1", "filterVerb": "filter", "tlsConfig": tls})


def test_the_limits() -> None:
    assert extender.TLS_FILE_MAX_BYTES == TLS_FILE_MAX_BYTES == 1024 * 1024
    assert extender.EXTENDER_RESPONSE_MAX_BYTES == EXTENDER_RESPONSE_MAX_BYTES == 256 * 1024 * 1024


@pytest.mark.parametrize("key", ["caFile", "certFile", "keyFile"])
def test_tls_files_are_regular_files(key: str) -> None:
    with pytest.raises(ExtenderConfigError, match=f"tlsConfig.{key}: /dev/zero: not a regular file"):
        _build({key: "/dev/zero", **({"keyFile": "/dev/null"} if key == "certFile" else {})})


def test_a_fifo_does_not_hang_the_run(tmp_path: Path) -> None:
    fifo = tmp_path / "ca.pem"
    os.mkfifo(fifo)
    outcome: list[BaseException] = []

    def build() -> None:
        try:
            _build({"caFile": str(fifo)})
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            outcome.append(exc)

    worker = threading.Thread(target=build, daemon=True)
    worker.start()
    worker.join(timeout=5)
    assert not worker.is_alive(), "opening a FIFO as caFile blocked"
    assert isinstance(outcome[0], ExtenderConfigError) and "not a regular file" in str(outcome[0])


@pytest.mark.parametrize("past", [False, True], ids=["at_limit", "past_limit"])
def test_tls_file_size(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, past: bool) -> None:
    monkeypatch.setattr(extender, "TLS_FILE_MAX_BYTES", 100)
    ca = tmp_path / "ca.pem"
    ca.write_bytes(b"x" * (101 if past else 100))
    with pytest.raises(ExtenderConfigError) as err:
        _build({"caFile": str(ca)})
    if past:
        assert str(err.value).endswith(f"tlsConfig.caFile: {ca}: the file is larger than 100 bytes, the limit")
    else:  # read whole, then refused as what it is: not a certificate
        assert "unable to load root certificates" in str(err.value)


def test_tls_files_outside_the_root_are_refused(tmp_path: Path) -> None:
    (tmp_path / "repo").mkdir()
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n", encoding="utf-8")
    os.symlink(ca, tmp_path / "repo" / "ca.pem")
    for name in (str(ca), str(tmp_path / "repo" / "ca.pem")):
        with access.confined([str(tmp_path / "repo")]):
            with pytest.raises(ExtenderConfigError, match=f"tlsConfig.caFile: {name}: is outside the scenario root"):
                _build({"caFile": name})


@pytest.mark.parametrize("past", [False, True], ids=["at_limit", "past_limit"])
def test_response_body_size(extender_server, monkeypatch: pytest.MonkeyPatch, past: bool) -> None:  # noqa: F811
    body = b'{"NodeNames": ["node-a"]}'
    padded = body + b" " * (1000 - len(body) + (1 if past else 0))
    monkeypatch.setattr(extender, "EXTENDER_RESPONSE_MAX_BYTES", 1000)
    srv = extender_server()
    srv.routes["/filter"] = lambda args: (200, padded)
    ext = HTTPExtender({"urlPrefix": srv.url, "filterVerb": "filter", "nodeCacheCapable": True})
    if past:
        with pytest.raises(ExtenderError, match="response body larger than 1000 bytes, the limit"):
            ext.filter(POD, [NodeInfo(make_node("node-a"))])
    else:
        assert [n.name for n in ext.filter(POD, [NodeInfo(make_node("node-a"))]).nodes] == ["node-a"]
