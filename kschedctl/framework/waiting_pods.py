"""Pods held at Permit (upstream pkg/scheduler/framework/runtime/waiting_pods_map.go, release-1.34):
each waits for every plugin that said Wait to allow it, or is rejected, or times out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from kschedctl.framework.status import Code, Status

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.framework.types import PodInfo

_SUCCESS = Code.Success

class WaitingPod:
    """A pod a Permit plugin told to Wait (upstream waitingPod): assumed on ``node_name``, its
    binding held until every waiting plugin allows it, one plugin rejects it, or the timeout of
    one of them runs out. The first answer wins; ``status`` holds it (None while waiting).

    ``pending`` maps each waiting plugin to its timeout in seconds; the caller turns the
    timeouts into deadlines on its own clock (a what-if run has no timers).
    """

    __slots__ = ("pod_info", "node_name", "pending", "status", "deadlines")

    def __init__(self, pod_info: "PodInfo", node_name: str, pending: dict[str, float]) -> None:
        self.pod_info = pod_info
        self.node_name = node_name
        self.pending = dict(pending)
        self.status: Status | None = None
        self.deadlines: dict[str, float] = {}

    def get_pod(self) -> dict:
        return self.pod_info.pod

    def get_pending_plugins(self) -> list[str]:
        return list(self.pending)

    def allow(self, plugin_name: str) -> None:
        """``plugin_name`` lets the pod through; once no plugin waits any more it may bind."""
        if self.status is not None:
            return
        self.pending.pop(plugin_name, None)
        self.deadlines.pop(plugin_name, None)
        if not self.pending:
            self.status = Status(_SUCCESS, "")

    def reject(self, plugin_name: str, message: str) -> None:
        """The pod is unschedulable; its binding cycle fails with ``message`` from ``plugin_name``."""
        if self.status is not None:
            return
        self.status = Status(Code.Unschedulable, message, plugin=plugin_name)

    def time_out(self, plugin_name: str) -> None:
        """``plugin_name``'s timer ran out (upstream: a rejection naming the wait)."""
        timeout = self.pending.get(plugin_name, 0.0)
        self.reject(plugin_name, f"rejected due to timeout after waiting {go_duration(timeout)} at plugin {plugin_name}")


class WaitingPods:
    """The pods waiting at Permit, by uid; one map shared by every profile (upstream waitingPodsMap)."""

    def __init__(self) -> None:
        self._by_uid: dict[str, WaitingPod] = {}

    def add(self, waiting_pod: WaitingPod) -> None:
        self._by_uid[waiting_pod.pod_info.uid] = waiting_pod

    def remove(self, uid: str) -> None:
        self._by_uid.pop(uid, None)

    def get(self, uid: str) -> WaitingPod | None:
        return self._by_uid.get(uid)

    def iterate(self, callback: Callable[[WaitingPod], None]) -> None:
        for waiting_pod in list(self._by_uid.values()):
            callback(waiting_pod)

    def __len__(self) -> int:
        return len(self._by_uid)


def go_duration(seconds: float) -> str:
    """A duration as Go's ``time.Duration.String()`` prints it ("10s", "1m30s", "1.5s", "0s")."""
    nanos = round(seconds * 1e9)
    if nanos == 0:
        return "0s"
    sign = "-" if nanos < 0 else ""
    nanos = abs(nanos)
    if nanos < 1_000_000_000:
        for unit, size in (("ms", 1_000_000), ("µs", 1_000), ("ns", 1)):
            if nanos >= size or unit == "ns":
                return sign + _trim(nanos / size) + unit
    hours, rest = divmod(nanos, 3_600_000_000_000)
    minutes, rest = divmod(rest, 60_000_000_000)
    secs = _trim(rest / 1e9)
    if hours:
        return f"{sign}{hours}h{minutes}m{secs}s"
    if minutes:
        return f"{sign}{minutes}m{secs}s"
    return f"{sign}{secs}s"


def _trim(value: float) -> str:
    text = f"{value:.9f}".rstrip("0").rstrip(".")
    return text or "0"
