"""kschedctl.cli.live (files or live cluster, --pod lookup) and the progress display."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from kschedctl.cli.live import cluster_state_from_options, find_pod, pods_of_cluster
from kschedctl.errors import UsageError
from kschedctl.inputs.cluster import load_cluster
from kschedctl.render.progress import ListingProgress, progress_wanted
from tests.live.conftest import kubeconfig, local_only_environment, server  # noqa: F401 (fixtures)
from tests.live.server import FakeApiServer

FIXTURE_CLUSTER = str(Path(__file__).resolve().parents[2] / "fixtures" / "cluster")


def test_files_when_cluster_is_given() -> None:
    state = cluster_state_from_options([FIXTURE_CLUSTER], None, None, quiet=True)
    assert state.counts() == load_cluster([FIXTURE_CLUSTER]).counts()


def test_live_when_cluster_is_not_given(server: FakeApiServer, kubeconfig: str,  # noqa: F811
                                        capsys: pytest.CaptureFixture[str]) -> None:
    server.forbidden.add("poddisruptionbudgets.policy")
    state = cluster_state_from_options(None, Path(kubeconfig), None, quiet=False)
    assert state.counts()["Pod"] == 10
    assert len(state.access_warnings) == 1
    assert capsys.readouterr().err == f"warning: {state.access_warnings[0]}\n"
    cluster_state_from_options([], kubeconfig, "fake", quiet=True)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("flag", ["kubeconfig", "context"])
def test_files_and_live_options_conflict(flag: str) -> None:
    kwargs = {"kubeconfig": None, "context": None, flag: "x"}
    with pytest.raises(UsageError, match=f"--{flag} reads a live cluster"):
        cluster_state_from_options([FIXTURE_CLUSTER], kwargs["kubeconfig"], kwargs["context"], quiet=True)


def _state_with_pending():
    state = load_cluster([FIXTURE_CLUSTER])
    state.add_object({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "waiting"},
                      "spec": {"containers": [{"name": "c", "image": "i"}]}})
    return state


def test_find_pod() -> None:
    state = _state_with_pending()
    assert find_pod(state, "default/waiting")["metadata"]["name"] == "waiting"
    assert find_pod(state, "waiting")["metadata"]["name"] == "waiting"


@pytest.mark.parametrize("ref,message", [
    ("default/ghost", "--pod default/ghost: no such pod in the cluster state"),
    ("kube-system/coredns-5d78c9869d-h2xkq", "already bound to node node-a2"),
    ("/x", "expected NAMESPACE/NAME"),
    ("a/b/c", "expected NAMESPACE/NAME"),
])
def test_find_pod_errors(ref: str, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        find_pod(_state_with_pending(), ref)


def test_pods_of_cluster_are_copies() -> None:
    state = _state_with_pending()
    items = pods_of_cluster(state, ["default/waiting"])
    assert len(items) == 1 and items.warnings == []
    items[0].pod["spec"]["nodeName"] = "changed"
    assert "nodeName" not in find_pod(state, "default/waiting")["spec"]
    assert items[0].apply(state) is state


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_only_on_a_terminal_and_not_quiet() -> None:
    assert progress_wanted(False, _Tty())
    assert not progress_wanted(True, _Tty())
    assert not progress_wanted(False, io.StringIO())


def test_progress_display_follows_a_live_listing_that_only_reads(server: FakeApiServer,  # noqa: F811
                                                                  kubeconfig: str,  # noqa: F811
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    shown: list[tuple[str, int]] = []

    class Recorded(ListingProgress):
        def __call__(self, kind: str, count: int) -> None:
            shown.append((kind, count))
            super().__call__(kind, count)

    monkeypatch.setattr("kschedctl.render.progress.ListingProgress", Recorded)
    monkeypatch.setattr("kschedctl.render.progress.progress_wanted", lambda quiet, stream=None: True)
    state = cluster_state_from_options(None, Path(kubeconfig), None, quiet=True)
    # each kind from 0, then after each page (the server serves 3 at most), ending at what was read
    assert [count for kind, count in shown if kind == "Pod"] == [0, 3, 6, 9, 10]
    last = {kind: count for kind, count in shown}
    assert {kind: n for kind, n in state.counts().items() if n} == {kind: n for kind, n in last.items() if n}
    assert server.methods() == {"GET"}
    assert not any("/secrets" in path for path in server.paths())
