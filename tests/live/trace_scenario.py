"""A small cluster's life on the fake API server, for ``kschedctl record`` to watch.

Two nodes of 4 CPU / 8Gi; ``db-0`` runs on node-1 and ``batch-0`` waits for the scheduler when
recording starts. Then pods arrive and are bound where kube-scheduler's default profile puts
them (LeastAllocated: the emptier node; every pod asks 1 CPU per 2Gi, the nodes' own ratio, so
NodeResourcesBalancedAllocation ties everywhere), ``db-0`` is deleted, a pod too big for any node
waits until node-3 joins. Along the way the watches see a bookmark, a dropped connection, and a
410 Gone (compaction) that makes them list again.

Under bin-packing (MostAllocated) the same arrivals land elsewhere from the first one on.

``python -m tests.live.trace_scenario fixtures/traces/small.jsonl`` records it into the bundled
trace fixture.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from tests.live.server import FakeApiServer

#: Where the default profile puts each pod (the fake cluster's "scheduler").
DEFAULT_PLACEMENTS = {
    "default/batch-0": "node-2",
    "default/web-1": "node-2",
    "default/web-2": "node-2",
    "default/big-1": "node-1",
    "default/huge-1": "node-3",
    "default/web-3": "node-2",
}


def node(name: str, cpu: str = "4", memory: str = "8Gi") -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}},
            "status": {"capacity": {"cpu": cpu, "memory": memory, "pods": "110"},
                       "allocatable": {"cpu": cpu, "memory": memory, "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": "2026-11-26T04:00:00Z"}]}}


def pod(name: str, cpu: str, memory: str, node_name: str | None = None, app: str = "") -> dict:
    out: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": app or name.rsplit("-", 1)[0]}},
        "spec": {"containers": [{"name": "main", "image": "registry.example/app:1.0",
                                 # what a snapshot never carries: the trace must not either
                                 "env": [{"name": "DB_PASSWORD", "value": "hunter2-trace-password"}],
                                 "resources": {"requests": {"cpu": cpu, "memory": memory}}}]},
        "status": {"phase": "Pending"}}
    if node_name:
        out["spec"]["nodeName"] = node_name
        out["status"] = {"phase": "Running", "conditions": [{"type": "PodScheduled", "status": "True"}]}
    return out


def initial_objects() -> list[dict]:
    return [node("node-1"), node("node-2"), pod("db-0", "2", "4Gi", "node-1"), pod("batch-0", "1", "2Gi")]


def _wait(what: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        if time.monotonic() > deadline:
            raise TimeoutError("the recorder did not get there in time")
        time.sleep(0.02)


def play(server: FakeApiServer, pause: float = 0.25) -> None:
    """The cluster's life, once the recorder watches (four kinds); returns when it is over."""
    _wait(lambda: len(server.watches()) >= 4)

    def step() -> None:
        time.sleep(pause)

    def arrive_and_bind(name: str, cpu: str, memory: str) -> None:
        server.create(pod(name, cpu, memory))
        step()
        server.bind(name, DEFAULT_PLACEMENTS[f"default/{name}"])
        step()

    server.bind("batch-0", DEFAULT_PLACEMENTS["default/batch-0"])
    step()
    arrive_and_bind("web-1", "500m", "1Gi")
    server.bookmark()
    arrive_and_bind("web-2", "500m", "1Gi")
    opened = len(server.watches())
    server.drop_watches()  # a dropped connection: the watches open again from where they were
    _wait(lambda: len(server.watches()) >= opened + 4)
    server.delete("Pod", "db-0", "default")
    step()
    arrive_and_bind("big-1", "3", "6Gi")
    opened = len(server.watches())
    server.compact()  # what the watches saw is compacted away: 410 Gone, then a new list
    server.drop_watches()
    _wait(lambda: len(server.watches()) >= opened + 8)  # each kind: the 410, then the new watch
    server.create(pod("huge-1", "6", "12Gi"))  # fits no node yet
    step()
    server.create(node("node-3", "8", "16Gi"))
    step()
    server.bind("huge-1", DEFAULT_PLACEMENTS["default/huge-1"])
    step()
    arrive_and_bind("web-3", "500m", "1Gi")


def record(server: FakeApiServer, kubeconfig: str, out: Path, duration: str = "8s") -> Any:
    """``kschedctl record`` while ``play`` runs; the CLI result."""
    from tests.cli.helpers import run_cli

    errors: list[BaseException] = []

    def run() -> None:
        try:
            play(server)
        except BaseException as exc:  # noqa: BLE001 - reported by the caller
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    result = run_cli("record", "--kubeconfig", kubeconfig, "--duration", duration, "-o", str(out))
    thread.join(timeout=30)
    if errors:
        raise errors[0]
    return result


if __name__ == "__main__":  # pragma: no cover - regenerates the bundled fixture
    import tempfile

    target = Path(sys.argv[1])
    with FakeApiServer(objects=initial_objects()) as srv, tempfile.TemporaryDirectory() as tmp:
        config = str(srv.write_kubeconfig(Path(tmp) / "kubeconfig"))
        outcome = record(srv, config, target)
        print(outcome.exit_code, outcome.stderr, file=sys.stderr)
