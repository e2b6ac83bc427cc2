"""Trace files (``kschedctl record`` writes them, ``kschedctl replay`` reads them): JSON lines.

A trace is what happened on a live cluster over a while, in the format ``kschedctl.io/trace/v1``:

- line 1, the header: ``{"apiVersion": "kschedctl.io/trace/v1", "kind": "Trace", "started": TIME,
  "kschedctlVersion": ..., "server": ..., "objects": N, ...}``;
- then N lines ``{"type": "Object", "object": {...}}``: the cluster as listed when recording
  started (every scheduling-relevant kind, as ``kschedctl snapshot`` reads it and as cleaned);
- then the events, in the order they were seen, each with its ``time``:
  ``NodeAdded`` / ``NodeUpdated`` (``object``), ``NodeDeleted`` (``node``), ``PodCreated``
  (``pod``, ``object``: a pod without ``spec.nodeName`` is an arrival for the scheduler),
  ``PodUpdated`` (``pod``, ``object``), ``PodBound`` (``pod``, ``node``), ``PodNominated``
  (``pod``, ``node``), ``PodDeleted`` (``pod``; ``phase`` when the pod finished rather than
  being deleted, ``reason`` when its DisruptionTarget condition gave one: ``PreemptionByScheduler``
  for a preemption's victim), ``ObjectAdded`` / ``ObjectUpdated`` (``object``) and ``ObjectDeleted``
  (``kind``, ``name``) for PersistentVolumeClaims and PersistentVolumes, and ``Resync``
  (``reason``): the watch had to list again (410 Gone); the events after it, marked
  ``"resync": true``, are the difference the new list showed;
- last, ``{"type": "End", "time": TIME, "reason": "duration" | "interrupted", "events": N}``.

Times are RFC 3339 in UTC with milliseconds. Every line is checked as it is read (one line
``error: FILE:LINE: ...``, exit 2), within the limits of ``kschedctl.limits`` (file size, event
count, line length), and every object goes through the loaders of cluster files. Lines are read
strictly: a field no line of its type carries is bad input, as an unknown field of a cluster file
is, and an event's object must have the field types the API server would decode.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable

from kschedctl import limits
from kschedctl.errors import InputError

API_VERSION = "kschedctl.io/trace/v1"
KIND = "Trace"
#: File name endings taken for traces where a command also takes pod or cluster files.
EXTENSIONS = (".jsonl",)

MAX_FILE_BYTES = limits.TRACE_FILE_MAX_BYTES
MAX_EVENTS = limits.TRACE_MAX_EVENTS
MAX_LINE_BYTES = limits.TRACE_LINE_MAX_BYTES

#: Event type -> the fields it must carry (besides ``type`` and ``time``).
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "NodeAdded": ("object",),
    "NodeUpdated": ("object",),
    "NodeDeleted": ("node",),
    "PodCreated": ("pod", "object"),
    "PodUpdated": ("pod", "object"),
    "PodBound": ("pod", "node"),
    "PodNominated": ("pod", "node"),
    "PodDeleted": ("pod",),
    "ObjectAdded": ("object",),
    "ObjectUpdated": ("object",),
    "ObjectDeleted": ("kind", "name"),
    "Resync": ("reason",),
}
#: Fields an event line may carry besides ``type``, ``time`` and its own (``EVENT_FIELDS``):
#: ``resync`` on any event, ``kind`` on Resync, ``phase`` and ``reason`` on PodDeleted. Any other field is bad
#: input, as an unknown field of a cluster file is: a line carrying 15 MiB of fields nothing
#: reads is refused, not parsed into the replay.
EVENT_OPTIONAL_FIELDS: dict[str, tuple[str, ...]] = {
    **{t: ("resync",) for t in EVENT_FIELDS}, "Resync": ("resync", "kind"), "PodDeleted": ("resync", "phase", "reason")}
#: The fields of the other lines: the header, Object and End.
HEADER_FIELDS = ("apiVersion", "kind", "kschedctlVersion", "started", "server", "context", "watched",
                 "resourceVersions", "objects", "warnings")
OBJECT_LINE_FIELDS = ("type", "object")
END_FIELDS = ("type", "time", "reason", "events")
#: Kinds recorded with ObjectAdded/ObjectUpdated/ObjectDeleted.
OTHER_KINDS = ("PersistentVolumeClaim", "PersistentVolume")


def format_time(seconds: float) -> str:
    """``seconds`` since the epoch as a trace writes times: ``2026-11-26T04:30:01.123Z``."""
    moment = datetime.fromtimestamp(seconds, timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def parse_time(text: Any) -> float | None:
    """Seconds since the epoch of an RFC 3339 time (``Z`` or an offset), or None."""
    if not isinstance(text, str) or not text:
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.timestamp()


def encode(record: dict) -> str:
    """One line of a trace (without its newline)."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False, sort_keys=False)


def is_trace_path(path: str) -> bool:
    """Whether ``path`` names a trace (by its ending, as kubectl goes by ``.yaml`` and ``.json``)."""
    return str(path).endswith(EXTENSIONS)


@dataclass
class TraceEvent:
    """One event line: its type, its time (seconds since the epoch), its line, its fields."""

    type: str
    time: float
    line: int
    data: dict

    @property
    def pod(self) -> str:
        return str(self.data.get("pod") or "")

    @property
    def node(self) -> str:
        return str(self.data.get("node") or "")

    @property
    def object(self) -> dict:
        obj = self.data.get("object")
        return obj if isinstance(obj, dict) else {}


@dataclass
class Trace:
    """A trace file, read and checked."""

    file: str
    header: dict
    started: float
    #: The cluster when recording started: (object, line) pairs.
    objects: list[tuple[dict, int]] = field(default_factory=list)
    events: list[TraceEvent] = field(default_factory=list)
    ended: float | None = None
    end_reason: str | None = None

    @property
    def duration(self) -> float:
        """Seconds from the start to the end (to the last event when the End line is missing)."""
        last = self.ended if self.ended is not None else (self.events[-1].time if self.events else self.started)
        return max(0.0, last - self.started)

    def counts(self) -> dict[str, int]:
        """Events per type, in the order of ``EVENT_FIELDS``."""
        out = {t: 0 for t in EVENT_FIELDS}
        for event in self.events:
            out[event.type] += 1
        return {t: n for t, n in out.items() if n}

    def documents(self) -> list[Any]:
        """The initial objects as ``Document``s of this file (for ``ClusterState.from_documents``)."""
        from kschedctl.inputs.loader import Document

        return [Document(obj, self.file, line) for obj, line in self.objects]


def read_trace(path: str) -> Trace:
    """The trace in ``path``, every line checked; ``InputError`` (file and line) otherwise.

    The file is opened through the trust boundary (``kschedctl.inputs.access``): within
    ``kschedctl test`` and ``kschedctl sweep`` it must lie inside the run's roots.
    """
    from kschedctl.inputs import access

    try:
        with access.open_input(path, regular_only=True) as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except IsADirectoryError:
        raise InputError("is a directory, not a trace file", path) from None
    except OSError as exc:
        raise InputError(f"cannot read the trace: {exc.strerror or exc}", path) from None
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"the trace is larger than {access.size_text(MAX_FILE_BYTES)}, the limit", path)
    return parse_trace(data, path)


def parse_trace(data: bytes, path: str) -> Trace:
    """The trace in ``data`` (the bytes of the file ``path``)."""
    trace: Trace | None = None
    expected_objects = 0
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        if trace is not None and trace.ended is not None:
            raise InputError("a line after the End line", path, number)
        record = _decode_line(raw, path, number)
        if trace is None:
            trace = _header(record, path, number)
            expected_objects = trace.header["objects"]
            continue
        kind = record.get("type")
        if not isinstance(kind, str):
            raise InputError(f"type must be a string, not {_shown(kind)}", path, number)
        if kind == "Object":
            _check_fields(record, OBJECT_LINE_FIELDS, "an Object line", path, number)
            if trace.events:
                raise InputError("an Object line after the first event (the cluster's objects come first)",
                                 path, number)
            obj = record.get("object")
            if not isinstance(obj, dict) or not isinstance(obj.get("kind"), str):
                raise InputError("an Object line needs an object with a kind", path, number)
            trace.objects.append((obj, number))
            continue
        when = parse_time(record.get("time"))
        if when is None:
            raise InputError(f"{kind or 'the line'}: time must be an RFC 3339 time, "
                             f"not {_shown(record.get('time'))}", path, number)
        if kind == "End":
            _check_fields(record, END_FIELDS, "End", path, number)
            trace.ended, trace.end_reason = when, str(record.get("reason") or "")
            continue
        if kind not in EVENT_FIELDS:
            raise InputError(f"unknown event type {_shown(kind)} (a {API_VERSION} trace has "
                             f"{', '.join(['Object', *EVENT_FIELDS, 'End'])})", path, number)
        _check_event(kind, record, path, number)
        if len(trace.events) >= MAX_EVENTS:
            raise InputError(f"more than {MAX_EVENTS:,} events, the limit for one trace", path, number)
        trace.events.append(TraceEvent(kind, when, number, record))
    if trace is None:
        raise InputError(f"an empty trace (expected a {API_VERSION} header line)", path)
    if len(trace.objects) != expected_objects:
        raise InputError(f"the header announces {expected_objects} objects, the file holds {len(trace.objects)} "
                         "(a truncated trace?)", path)
    _check_objects(trace)
    return trace


def _decode_line(raw: bytes, path: str, number: int) -> dict:
    if len(raw) > MAX_LINE_BYTES:
        raise InputError(f"the line is longer than {MAX_LINE_BYTES // 2**20} MiB, the limit for one trace line",
                         path, number)
    if raw.count(b"[") + raw.count(b"{") > limits.INPUT_MAX_DEPTH:
        from kschedctl.inputs.loader import check_json_depth

        try:
            check_json_depth(raw.decode("utf-8", "replace"), path, raw)
        except InputError:
            raise InputError(f"nested deeper than {limits.INPUT_MAX_DEPTH} levels", path, number) from None
    try:
        record = json.loads(raw)
    except RecursionError:
        raise InputError("nested too deeply", path, number) from None
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", path, number) from None
    except ValueError as exc:
        reason = getattr(exc, "msg", None) or str(exc)
        raise InputError(f"not a JSON line: {reason}", path, number) from None
    if not isinstance(record, dict):
        raise InputError(f"a trace line is a JSON object, not {type(record).__name__}", path, number)
    return record


def _header(record: dict, path: str, number: int) -> Trace:
    if record.get("kind") != KIND or record.get("apiVersion") != API_VERSION:
        found = f"apiVersion {_shown(record.get('apiVersion'))}, kind {_shown(record.get('kind'))}"
        raise InputError(f"not a trace: the first line must be the header (apiVersion: {API_VERSION}, "
                         f"kind: {KIND}), found {found}", path, number)
    started = parse_time(record.get("started"))
    if started is None:
        raise InputError(f"header: started must be an RFC 3339 time, not {_shown(record.get('started'))}",
                         path, number)
    objects = record.get("objects")
    if type(objects) is not int or objects < 0:
        raise InputError(f"header: objects must be a count, not {_shown(objects)}", path, number)
    _check_fields(record, HEADER_FIELDS, "header", path, number)
    return Trace(path, record, started)


def _check_fields(record: dict, allowed: tuple[str, ...], what: str, path: str, number: int) -> None:
    unknown = [key for key in record if key not in allowed]
    if unknown:
        raise InputError(f"{what}: unknown field {_shown(unknown[0])}"
                         f"{f' (and {len(unknown) - 1} more)' if len(unknown) > 1 else ''} "
                         f"(it has {', '.join(allowed)})", path, number)


def _check_event(kind: str, record: dict, path: str, number: int) -> None:
    _check_fields(record, ("type", "time", *EVENT_FIELDS[kind], *EVENT_OPTIONAL_FIELDS[kind]), kind, path, number)
    if "resync" in record and not isinstance(record["resync"], bool):
        raise InputError(f"{kind}: resync must be true or false, not {_shown(record['resync'])}", path, number)
    for name in ("kind", "phase", "reason"):
        if name in record and name not in EVENT_FIELDS[kind] and not isinstance(record[name], (str, type(None))):
            raise InputError(f"{kind}: {name} must be a string, not {_shown(record[name])}", path, number)
    for name in EVENT_FIELDS[kind]:
        value = record.get(name)
        if name == "object":
            if not isinstance(value, dict) or not isinstance(value.get("kind"), str):
                raise InputError(f"{kind}: object must be an object with a kind", path, number)
            expected = "Node" if kind.startswith("Node") else "Pod" if kind.startswith("Pod") else None
            if expected and value["kind"] != expected:
                raise InputError(f"{kind}: the object is a {value['kind']}, not a {expected}", path, number)
            if expected is None and value["kind"] not in OTHER_KINDS:
                raise InputError(f"{kind}: kind {value['kind']} is not recorded (only {', '.join(OTHER_KINDS)})",
                                 path, number)
            _check_object_shape(kind, value, path, number)
        elif not isinstance(value, str) or not value:
            raise InputError(f"{kind}: {name} must be a non-empty string, not {_shown(value)}", path, number)
        elif name == "pod" and value.count("/") != 1:
            raise InputError(f"{kind}: pod must be NAMESPACE/NAME, not {_shown(value)}", path, number)
    if "pod" in EVENT_FIELDS[kind] and "object" in EVENT_FIELDS[kind]:
        meta = record["object"].get("metadata") or {}
        key = f"{meta.get('namespace') or 'default'}/{meta.get('name')}" if isinstance(meta, dict) else ""
        if key != record["pod"]:
            raise InputError(f"{kind}: pod {record['pod']} but the object is {key}", path, number)


def _check_object_shape(kind: str, obj: dict, path: str, number: int) -> None:
    """An event's object has the types the API server would decode (its metadata, spec and status
    mappings first): the replay reads them event by event, after the loaders' checks."""
    from kschedctl.inputs.shapes import check_node, check_pod

    try:
        for name in ("metadata", "spec", "status"):
            if obj.get(name) is not None and not isinstance(obj[name], dict):
                raise InputError(f"{name} must be a mapping, not {_shown(obj[name])}")
        if obj["kind"] == "Pod":
            check_pod(obj)
        elif obj["kind"] == "Node":
            check_node(obj)
    except InputError as exc:
        raise InputError(f"{kind}: {exc.message}", path, number) from None


def _check_objects(trace: Trace) -> None:
    """Every object as a cluster file's would be: unknown fields (``--validate``), then the loaders."""
    from kschedctl.inputs.fields import check_documents
    from kschedctl.inputs.loader import Document

    docs = trace.documents()
    docs += [Document(e.object, trace.file, e.line) for e in trace.events if "object" in e.data]
    check_documents(docs)


def _shown(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def write_lines(records: Iterable[dict]) -> str:
    """Records as trace text (for tests and small traces)."""
    return "".join(encode(r) + "\n" for r in records)


__all__ = ["API_VERSION", "KIND", "EVENT_FIELDS", "OTHER_KINDS", "Trace", "TraceEvent", "read_trace", "parse_trace",
           "format_time", "parse_time", "encode", "is_trace_path", "write_lines"]
