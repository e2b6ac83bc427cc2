"""``kschedctl record``: what happens on a live cluster, as a trace (``kschedctl.inputs.trace``).

Read-only, through the client of ``kschedctl.inputs.kube`` (GET requests only, credentials
redacted from every message). It lists every kind a snapshot lists, then watches nodes, pods,
PersistentVolumeClaims and PersistentVolumes from the resourceVersion of their lists, as an
informer does:

- with bookmarks (``allowWatchBookmarks``), so a reconnect starts from a recent version;
- a watch that ends (the server's ``timeoutSeconds``) or whose connection drops is opened again
  from the last version seen, after a short backoff;
- 410 Gone (the version was compacted away) lists that kind again, and the difference between
  what was known and the new list is recorded as events, after a ``Resync`` line.

Objects are cleaned as snapshots are (``strip_object``, then the fields a v1.34 client does not
know are dropped), so a trace holds no more than a snapshot does. Events are turned into the
trace's vocabulary here: a pod without ``spec.nodeName`` that appears is an arrival
(``PodCreated``), the update that gives it a node is its binding (``PodBound``), a new
``status.nominatedNodeName`` is a nomination (preemption), a pod that succeeds or fails leaves
the scheduler's view (``PodDeleted`` with its ``phase``), a deleted pod's ``DisruptionTarget``
condition gives its ``reason`` (``PreemptionByScheduler``: a preemption's victim), and a node's
update is recorded only when something the scheduler reads changed (not the kubelet's heartbeats).
"""

from __future__ import annotations

import json
import queue
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from kschedctl.errors import ClusterAccessError
from kschedctl.inputs.kube import (
    KIND_BY_NAME,
    POD_FIELD_SELECTOR,
    HttpError,
    Kind,
    KubeClient,
    ListReader,
    LiveObjects,
    Transient,
    Unreachable,
    read_objects,
    strip_object,
)
from kschedctl.inputs.trace import API_VERSION, KIND, OTHER_KINDS, format_time

#: The kinds watched after the first list, in this order.
WATCHED = ("Node", "Pod", *OTHER_KINDS)
#: How long the server keeps one watch open before the client opens the next (as client-go's
#: reflector, a few minutes).
WATCH_TIMEOUT = 300
_MAX_BACKOFF = 30.0

Emit = Callable[[dict], None]


def _key(obj: dict) -> str:
    meta = obj.get("metadata") or {}
    name = meta.get("name") or ""
    return f"{meta.get('namespace') or 'default'}/{name}" if obj.get("kind") in ("Pod", "PersistentVolumeClaim") \
        else name


def _version(obj: Any) -> str | None:
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    version = meta.get("resourceVersion") if isinstance(meta, dict) else None
    return version if isinstance(version, str) and version else None


def _clean(obj: dict, kind: Kind) -> dict:
    from kschedctl.inputs.fields import drop_unknown_fields

    out = strip_object(obj, kind)
    drop_unknown_fields(out)
    return out


def node_view(node: dict) -> str:
    """What the scheduler reads of a node: labels, taints, unschedulable, allocatable, the
    conditions' statuses and the images' names (not heartbeats, not the images' order)."""
    meta = node.get("metadata") or {}
    spec = node.get("spec") or {}
    status = node.get("status") or {}
    conditions = sorted((str(c.get("type")), str(c.get("status"))) for c in status.get("conditions") or ()
                        if isinstance(c, dict))
    images = sorted(n for image in status.get("images") or () if isinstance(image, dict)
                    for n in image.get("names") or () if isinstance(n, str))
    return json.dumps([meta.get("labels"), spec.get("taints"), spec.get("unschedulable"), status.get("allocatable"),
                       conditions, images], sort_keys=True, default=str)


def disruption_reason(pod: dict) -> str | None:
    """Why the pod was disrupted, as the one who deleted it said in its ``DisruptionTarget``
    condition (kube-scheduler's preemption writes ``PreemptionByScheduler`` before it deletes a
    victim): the trace then names a preemption's victims."""
    for condition in (pod.get("status") or {}).get("conditions") or ():
        if isinstance(condition, dict) and condition.get("type") == "DisruptionTarget" \
                and condition.get("status") == "True" and isinstance(condition.get("reason"), str):
            return condition["reason"] or None
    return None


def pod_view(pod: dict) -> str:
    """What the scheduler reads of a pod besides its node and nomination: labels and the spec."""
    meta = pod.get("metadata") or {}
    spec = dict(pod.get("spec") or {})
    spec.pop("nodeName", None)
    return json.dumps([meta.get("labels"), meta.get("annotations"), spec], sort_keys=True, default=str)


@dataclass
class RecordingStats:
    """What the recording saw, for the progress line and the summary."""

    events: int = 0
    by_type: dict[str, int] = field(default_factory=dict)
    reconnects: int = 0
    resyncs: int = 0
    bookmarks: int = 0

    def count(self, event_type: str) -> None:
        self.events += 1
        self.by_type[event_type] = self.by_type.get(event_type, 0) + 1


class Recorder:
    """Lists, then watches, and hands every trace line to ``emit`` (from the calling thread only)."""

    def __init__(self, client: KubeClient, emit: Emit, *, clock: Callable[[], float] = time.time,
                 watch_timeout: int = WATCH_TIMEOUT, page_size: int = 500,
                 sleep: Callable[[float], None] | None = None) -> None:
        self.client = client
        self.emit = emit
        self.clock = clock
        self.watch_timeout = watch_timeout
        self.page_size = page_size
        self.stats = RecordingStats()
        self.warnings: list[str] = []
        self.versions: dict[str, str] = {}
        self.known: dict[str, dict[str, dict]] = {kind: {} for kind in WATCHED}
        self._events: "queue.Queue[tuple]" = queue.Queue()
        self._stop = threading.Event()
        self._streams: set[Any] = set()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._sleep = sleep

    # -- the start: list everything ------------------------------------------------------------
    def start(self, on_progress: Any = None) -> LiveObjects:
        """List every kind (as ``kschedctl snapshot``), write the header and the objects, remember
        the resourceVersions to watch from."""
        live = read_objects(client=self.client, on_progress=on_progress, page_size=self.page_size)
        self.warnings.extend(live.warnings)
        for name in WATCHED:
            version = live.resource_versions.get(name)
            if version is None:
                if KIND_BY_NAME[name].required:
                    raise ClusterAccessError(f"the API server gave no resourceVersion for its {name} list: "
                                             "it cannot be watched")
                self.warnings.append(f"{name} objects are not watched (they could not be listed)")
                continue
            self.versions[name] = version
        objects = live.all()
        from kschedctl.inputs.fields import drop_unknown_fields

        for obj in objects:
            drop_unknown_fields(obj)
            if obj.get("kind") in self.known:
                self.known[obj["kind"]][_key(obj)] = obj
        from kschedctl import __version__

        self.emit({"apiVersion": API_VERSION, "kind": KIND, "kschedctlVersion": __version__,
                   "started": format_time(self.clock()), "server": live.server, "context": live.context,
                   "watched": [k for k in WATCHED if k in self.versions],
                   "resourceVersions": dict(self.versions), "objects": len(objects),
                   "warnings": list(live.warnings)})
        for obj in objects:
            self.emit({"type": "Object", "object": obj})
        return live

    # -- the watches ---------------------------------------------------------------------------
    def run(self, until: float | None, on_tick: Callable[[], None] | None = None, tick: float = 1.0) -> str:
        """Watch until ``until`` (a ``clock()`` time; None: until interrupted). Returns why it ended:
        ``duration``, or ``interrupted`` (Ctrl-C: the trace is ended cleanly all the same)."""
        for name in self.versions:
            thread = threading.Thread(target=self._watch_loop, args=(KIND_BY_NAME[name],),
                                      name=f"kschedctl-watch-{name}", daemon=True)
            self._threads.append(thread)
            thread.start()
        reason = "duration"
        try:
            while True:
                now = self.clock()
                if until is not None and now >= until:
                    break
                wait = tick if until is None else max(0.0, min(tick, until - now))
                try:
                    item = self._events.get(timeout=wait)
                except queue.Empty:
                    item = None
                while item is not None:
                    self._handle(item)
                    try:
                        item = self._events.get_nowait()
                    except queue.Empty:
                        item = None
                if on_tick is not None:
                    on_tick()
        except KeyboardInterrupt:
            reason = "interrupted"
        finally:
            self.stop()
        return reason

    def stop(self) -> None:
        """End every watch (their connections are shut down) and write nothing more."""
        self._stop.set()
        with self._lock:
            streams = list(self._streams)
        for stream in streams:
            stream.close()
        for thread in self._threads:
            thread.join(timeout=2.0)

    def finish(self, reason: str) -> None:
        """The End line."""
        self.emit({"type": "End", "time": format_time(self.clock()), "reason": reason, "events": self.stats.events})

    def _wait(self, seconds: float) -> None:
        if self._sleep is not None:
            self._sleep(seconds)
        else:
            self._stop.wait(seconds)

    def _watch_loop(self, kind: Kind) -> None:
        """One kind's watch, opened again whenever it ends; run in its own thread."""
        version = self.versions[kind.kind]
        failures = 0
        while not self._stop.is_set():
            query = [("resourceVersion", version), ("allowWatchBookmarks", "true"),
                     ("timeoutSeconds", str(self.watch_timeout))]
            if kind.kind == "Pod":
                query.append(("fieldSelector", POD_FIELD_SELECTOR))
            try:
                stream = self.client.watch(kind.path(), query, read_timeout=self.watch_timeout + 30)
                with self._lock:
                    self._streams.add(stream)
                try:
                    gone = False
                    for event in stream:
                        if self._stop.is_set():
                            return
                        failures = 0
                        kind_of = event.get("type")
                        obj = event.get("object")
                        if kind_of == "ERROR":
                            code = obj.get("code") if isinstance(obj, dict) else None
                            if code == 410:
                                gone = True
                                break
                            message = obj.get("message") if isinstance(obj, dict) else None
                            raise HttpError(int(code or 500), "watch error", self.client.redact(str(message or "")),
                                             obj if isinstance(obj, dict) else None)
                        seen = _version(obj)
                        if seen:
                            version = seen
                        if kind_of == "BOOKMARK":
                            self._events.put(("bookmark", kind.kind))
                        elif kind_of in ("ADDED", "MODIFIED", "DELETED") and isinstance(obj, dict):
                            self._events.put(("event", kind.kind, kind_of, _clean(obj, kind), self.clock()))
                finally:
                    with self._lock:
                        self._streams.discard(stream)
                if gone:
                    failures += 1
                    if failures > 1:  # the new list's version was too old as well: do not hammer the server
                        self._wait(self._backoff(failures))
                    version = self._relist(kind, "410 Gone: the watch's resourceVersion was compacted away")
            except HttpError as exc:
                if self._stop.is_set():
                    return
                if exc.status == 410:
                    failures += 1
                    if failures > 1:
                        self._wait(self._backoff(failures))
                    version = self._relist(kind, "410 Gone: the watch's resourceVersion was compacted away")
                    continue
                if exc.status == 403:
                    what = f"not allowed to watch {kind.resource} ({kind.kind}) (403 Forbidden)"
                    if kind.required:
                        self._events.put(("fatal", ClusterAccessError(
                            f"{what}: kschedctl record needs the verb watch on nodes and pods (and on "
                            "persistentvolumes and persistentvolumeclaims); see the ClusterRole in the README")))
                    else:
                        self._events.put(("warning", f"{what}: changes of {kind.kind} objects are not recorded"))
                    return
                if exc.status == 401 or (400 <= exc.status < 500 and exc.status != 429):
                    self._events.put(("fatal", ClusterAccessError(
                        f"watching {kind.resource} at {self.client.server} failed: {exc.status} {exc.reason}"
                        + (f": {exc.message}" if exc.message else ""))))
                    return
                failures += 1
                self._events.put(("reconnect", kind.kind, f"{exc.status} {exc.reason}".strip()))
                self._wait(self._backoff(failures))
            except (Transient, Unreachable) as exc:
                if self._stop.is_set():
                    return
                failures += 1
                self._events.put(("reconnect", kind.kind, str(exc)))
                self._wait(self._backoff(failures))
            except ClusterAccessError as exc:
                self._events.put(("fatal", exc))
                return
            except Exception as exc:  # noqa: BLE001 - the main thread reports it as an internal error
                self._events.put(("fatal", exc))
                return

    @staticmethod
    def _backoff(failures: int) -> float:
        return min(_MAX_BACKOFF, 0.2 * (2 ** min(failures, 10))) * (0.75 + 0.5 * random.random())

    def _relist(self, kind: Kind, reason: str) -> str:
        """List ``kind`` again (its watch cannot resume): the new list goes to the main thread,
        which records the difference. Returns the version to watch from."""
        while not self._stop.is_set():
            reader = ListReader(self.client, None, None, self.page_size)
            try:
                items = reader._list(kind, None, 0)
            except (HttpError, Transient, Unreachable) as exc:
                self._events.put(("reconnect", kind.kind, str(exc)))
                self._wait(self._backoff(2))
                continue
            from kschedctl.inputs.fields import drop_unknown_fields

            for item in items:
                drop_unknown_fields(item)
            self._events.put(("relist", kind.kind, items, reason, self.clock()))
            return reader.versions.get(kind.kind, "")
        return ""

    # -- turning watch events into trace events --------------------------------------------------
    def _record(self, record: dict) -> None:
        self.stats.count(record["type"])
        self.emit(record)

    def _handle(self, item: tuple) -> None:
        what = item[0]
        if what == "event":
            _, kind, change, obj, when = item
            self._change(kind, change, obj, when)
        elif what == "bookmark":
            self.stats.bookmarks += 1
        elif what == "reconnect":
            self.stats.reconnects += 1
        elif what == "relist":
            _, kind, items, reason, when = item
            self.stats.resyncs += 1
            self._record({"type": "Resync", "time": format_time(when), "kind": kind, "reason": reason})
            fresh = {_key(obj): obj for obj in items}
            for key, old in list(self.known[kind].items()):
                if key not in fresh:
                    self._change(kind, "DELETED", old, when, resync=True)
            for obj in items:
                self._change(kind, "MODIFIED", obj, when, resync=True)
        elif what == "warning":
            self.warnings.append(item[1])
        elif what == "fatal":
            raise item[1]

    def _change(self, kind: str, change: str, obj: dict, when: float, resync: bool = False) -> None:
        key = _key(obj)
        known = self.known[kind]
        previous = known.get(key)
        stamp = {"time": format_time(when)}
        if resync:
            stamp["resync"] = True  # type: ignore[assignment]
        if change == "DELETED":
            if known.pop(key, None) is None:
                return
            if kind == "Node":
                self._record({"type": "NodeDeleted", **stamp, "node": key})
            elif kind == "Pod":
                reason = disruption_reason(obj)
                self._record({"type": "PodDeleted", **stamp, "pod": key, **({"reason": reason} if reason else {})})
            else:
                self._record({"type": "ObjectDeleted", **stamp, "kind": kind, "name": key})
            return
        if kind == "Pod":
            self._pod_change(previous, obj, key, stamp)
            return
        known[key] = obj
        if kind == "Node":
            if previous is None:
                self._record({"type": "NodeAdded", **stamp, "object": obj})
            elif node_view(previous) != node_view(obj):
                self._record({"type": "NodeUpdated", **stamp, "object": obj})
        elif previous is None:
            self._record({"type": "ObjectAdded", **stamp, "object": obj})
        elif json.dumps(previous, sort_keys=True) != json.dumps(obj, sort_keys=True):
            self._record({"type": "ObjectUpdated", **stamp, "object": obj})

    def _pod_change(self, previous: dict | None, pod: dict, key: str, stamp: dict) -> None:
        known = self.known["Pod"]
        phase = (pod.get("status") or {}).get("phase")
        if phase in ("Succeeded", "Failed"):
            # kube-scheduler's informer drops finished pods: for the scheduler they are gone
            if known.pop(key, None) is not None:
                self._record({"type": "PodDeleted", **stamp, "pod": key, "phase": phase})
            return
        known[key] = pod
        node = (pod.get("spec") or {}).get("nodeName")
        nominated = (pod.get("status") or {}).get("nominatedNodeName")
        if previous is None:
            self._record({"type": "PodCreated", **stamp, "pod": key, "object": pod})
            if nominated and not node:
                self._record({"type": "PodNominated", **stamp, "pod": key, "node": nominated})
            return
        old_node = (previous.get("spec") or {}).get("nodeName")
        if pod_view(previous) != pod_view(pod):
            self._record({"type": "PodUpdated", **stamp, "pod": key, "object": pod})
        if node and not old_node:
            self._record({"type": "PodBound", **stamp, "pod": key, "node": node})
        elif nominated and not node and nominated != (previous.get("status") or {}).get("nominatedNodeName"):
            self._record({"type": "PodNominated", **stamp, "pod": key, "node": nominated})


__all__ = ["Recorder", "RecordingStats", "WATCHED", "disruption_reason", "node_view", "pod_view"]
