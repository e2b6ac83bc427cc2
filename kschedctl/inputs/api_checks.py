"""The API server's own checks on the objects kschedctl reads from files, beyond field names.

``kubectl apply`` of these objects fails, so an answer about them would be about an object no
cluster can hold. Checked here, with the API server's words (Kubernetes v1.34.4:
apimachinery's RESTMapper for kinds, ``pkg/apis/core/validation`` ``validateResourceRequirements``
and ``validateContainerResourceName`` for container resources, ``pkg/apis/core/helper`` for
the standard names):

- the ``apiVersion``/``kind`` pair must be one the API server serves
  (``no matches for kind "Pdo" in version "v1"``), for the built-in groups
  (``schema/served.json``, generated from the v1.34 OpenAPI spec by ``tools/field_schema.py``)
  and the scheduler-plugins CRDs kschedctl reads; a group neither knows (another project's CRD)
  is left to the readers, which skip what they do not use;
- a container's ``resources``, in the pod and workload files a command schedules (the objects
  one would ``kubectl apply``; a cluster's pods were admitted by its API server, and generated
  cluster fixtures need not hold to what admission adds): each name a standard container resource
  (cpu, memory, ephemeral-storage, hugepages-*) or a domain-qualified extended resource, a request
  at most its limit, and an extended resource's request equal to its limit (which must be set).

Each finding gets a did-you-mean where a name is close (``memroy`` -> ``memory``, ``Pdo`` -> ``Pod``).
"""

from __future__ import annotations

import difflib
import json
from contextlib import contextmanager
from contextvars import ContextVar
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator

from kschedctl.k8s.field import closest, invalid, required
from kschedctl.k8s.resources import is_extended_resource_name, is_hugepage_resource_name, is_native_resource
from kschedctl.k8s.selectors import label_key_errors

__all__ = ["Problem", "problems", "pod_files"]

_POD_FILES: ContextVar[bool] = ContextVar("kschedctl_pod_files", default=False)


@contextmanager
def pod_files() -> Any:
    """While set, the files read are pod and workload files: their container resources are checked."""
    token = _POD_FILES.set(True)
    try:
        yield
    finally:
        _POD_FILES.reset(token)

_SERVED_PATH = Path(__file__).with_name("schema") / "served.json"
_FIELDS_PATH = Path(__file__).with_name("schema") / "fields.json"
_DRA_GROUP = "resource.k8s.io"

#: ``helper.standardResources`` (v1.34): names valid without a domain in any resource list.
_STANDARD_RESOURCES = frozenset({
    "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
    "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services",
    "replicationcontrollers", "secrets", "configmaps", "persistentvolumeclaims", "storage", "requests.storage",
    "services.nodeports", "services.loadbalancers"})
#: ``helper.standardContainerResources`` (v1.34), besides hugepages-*.
_CONTAINER_RESOURCES = ("cpu", "memory", "ephemeral-storage")

#: Where a workload keeps its pod template's spec.
_POD_SPECS: dict[str, tuple[str, ...]] = {
    "Pod": ("spec",),
    "Deployment": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "ReplicationController": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}


class Problem:
    """One finding: the path of the field it is about (for its line) and the message."""

    __slots__ = ("path", "message", "refused")

    def __init__(self, path: tuple[str | int, ...], message: str, refused: bool = True) -> None:
        self.path = path
        self.message = message
        #: False: a warning only (see ``_resources_problems``).
        self.refused = refused


@lru_cache(maxsize=1)
def _served() -> tuple[dict[str, frozenset[str]], dict[str, list[str]]]:
    """apiVersion -> kinds served, and kind -> the apiVersions serving it."""
    with open(_SERVED_PATH, encoding="utf-8") as f:
        served = {v: set(kinds) for v, kinds in json.load(f)["served"].items()}
    with open(_FIELDS_PATH, encoding="utf-8") as f:
        described = list(json.load(f)["kinds"])
    for key in described:  # the scheduler-plugins CRDs (and their older group) kschedctl reads
        api_version, kind = key.rsplit("/", 1)
        served.setdefault(api_version, set()).add(kind)
    by_kind: dict[str, list[str]] = {}
    for api_version, kinds in served.items():
        for kind in kinds:
            by_kind.setdefault(kind, []).append(api_version)
    return {v: frozenset(k) for v, k in served.items()}, by_kind


def _group(api_version: str) -> str:
    return api_version.rsplit("/", 1)[0] if "/" in api_version else ""


#: (apiVersion, kind) pairs found served: a 50,000-pod file asks the same question 50,000 times.
_SERVED_PAIRS: set[tuple[str, str]] = set()


def kind_problem(obj: dict) -> Problem | None:
    """``no matches for kind ...`` when a known group does not serve this kind in this version."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str) or not kind:
        return None
    if (api_version, kind) in _SERVED_PAIRS:
        return None
    served, by_kind = _served()
    group = _group(api_version)
    if group == _DRA_GROUP:
        return None  # k8s.dra.to_v1 names the versions v1.34 serves for these, with its own message
    kinds = served.get(api_version)
    if kinds is not None and (kind in kinds or kind == "List" or (kind.endswith("List") and kind[:-4] in kinds)):
        _SERVED_PAIRS.add((api_version, kind))
        return None
    known_group = any(_group(v) == group for v in served)
    if not known_group and kind not in by_kind:
        return None  # another project's group: the readers skip what they do not use
    message = f'no matches for kind "{kind}" in version "{api_version}"'
    if kind in by_kind:
        versions = sorted(by_kind[kind], key=lambda v: (_group(v) != group, v))
        return Problem(("apiVersion",), f'{message} (did you mean apiVersion "{versions[0]}"?)')
    close = closest(kind, kinds or ()) or closest(kind, by_kind)
    hint = f' (did you mean "{close}"?)' if close else ""
    return Problem(("kind",), f"{message}{hint}")


def _quantity(value: Any) -> Fraction | None:
    from kschedctl.k8s.quantity import parse_quantity

    try:
        return parse_quantity(value)
    except Exception:  # a malformed quantity is the readers' error, with their message
        return None


def _text(value: Any) -> str:
    from kschedctl.k8s.quantity import format_quantity

    try:
        return format_quantity(value)
    except Exception:
        return str(value)


def _name_errors(name: str, path: str) -> list[str]:
    """validateResourceName then validateContainerResourceName: the messages, in upstream's order."""
    errors = [str(invalid(path, name, msg)) for msg in label_key_errors(name)]
    if errors:
        return errors
    if "/" not in name:
        if name not in _STANDARD_RESOURCES and not name.startswith(("hugepages-", "requests.hugepages-")):
            errors.append(str(invalid(path, name, "must be a standard resource type or fully qualified")))
        if name not in _CONTAINER_RESOURCES and not is_hugepage_resource_name(name):
            errors.append(str(invalid(path, name, "must be a standard resource for containers")))
    elif not is_native_resource(name) and not is_extended_resource_name(name):
        errors.append(str(invalid(path, name, "doesn't follow extended resource name standard")))
    return errors


def _overcommit_allowed(name: str) -> bool:
    return is_native_resource(name) and not is_hugepage_resource_name(name)


@lru_cache(maxsize=1024)
def _resources_problems(requests_items: tuple[tuple[str, str], ...],
                        limits_items: tuple[tuple[str, str], ...]) -> tuple[tuple[tuple[str, ...], str, bool], ...]:
    """The findings for one container's requests and limits (as items, so that the pods of one
    template cost one check): (path below ``resources``, message, refused) triples, ``{path}``
    standing for the path of ``resources``.

    An extended resource (or hugepages) requested below its limit, or without one, is refused by
    the API server too, but only warned about here: files written for the scheduler alone (the
    differential harness's generated pods among them) often request ``example.com/fpga`` without a
    limit, and the scheduler itself reads the request as given."""
    requests, limits = dict(requests_items), dict(limits_items)
    out: list[tuple[tuple[str, ...], str, bool]] = []
    for part, amounts in (("limits", limits), ("requests", requests)):
        for name in amounts:
            errors = _name_errors(str(name), f"{{path}}.{part}[{name}]")
            if errors:
                # closer than field names need: "gpu" is an extended resource without its domain, not "cpu"
                close = next(iter(difflib.get_close_matches(str(name), _CONTAINER_RESOURCES, n=1, cutoff=0.75)), None)
                hint = f' (did you mean "{close}"?)' if close else ""
                out.append(((part, str(name)), ", ".join(errors) + hint, True))
    for name, amount in requests.items():
        name = str(name)
        want = _quantity(amount)
        if name in limits:
            limit = _quantity(limits[name])
            if want is None or limit is None:
                continue
            if want != limit and not _overcommit_allowed(name):
                out.append((("requests", name), str(invalid("{path}.requests", _text(amount),
                                                            f"must be equal to {name} limit of {_text(limits[name])}")),
                            want > limit))
            elif want > limit:
                out.append((("requests", name), str(invalid(
                    "{path}.requests", _text(amount), f"must be less than or equal to {name} limit of "
                                                       f"{_text(limits[name])}")), True))
        elif not _overcommit_allowed(name) and not _name_errors(name, ""):
            out.append((("requests", name), str(required("{path}.limits",
                                                         "Limit must be set for non overcommitable resources")), False))
    return tuple(out)


def _containers(spec: dict, root: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], str, Any]]:
    for field in ("initContainers", "containers"):
        containers = spec.get(field)
        if not isinstance(containers, list):
            continue
        for i, container in enumerate(containers):
            if isinstance(container, dict) and isinstance(container.get("resources"), dict):
                yield (*root, field, i, "resources"), container["resources"]


def resource_problems(obj: dict) -> list[Problem]:
    """The container resource findings of a Pod or a workload's pod template."""
    where = _POD_SPECS.get(obj.get("kind") or "")
    if where is None:
        return []
    spec: Any = obj
    for key in where:
        spec = spec.get(key) if isinstance(spec, dict) else None
    if not isinstance(spec, dict):
        return []
    out = []
    for path, resources in _containers(spec, where):
        requests, limits = resources.get("requests"), resources.get("limits")
        requests = requests if isinstance(requests, dict) else {}
        limits = limits if isinstance(limits, dict) else {}
        if _plain(requests) and _plain(limits) and (not requests or not limits or requests.keys().isdisjoint(limits)):
            continue  # the common case, checked without building anything
        found = _resources_problems(tuple((str(k), _scalar(v)) for k, v in requests.items()),
                                    tuple((str(k), _scalar(v)) for k, v in limits.items()))
        dotted = _dotted(path)
        for below, message, refused in found:
            out.append(Problem((*path, *below), message.replace("{path}", dotted), refused))
    return out


_PLAIN = frozenset(_CONTAINER_RESOURCES)


def _plain(amounts: dict) -> bool:
    return all(name in _PLAIN for name in amounts)


def _scalar(value: Any) -> Any:
    return value if isinstance(value, (str, int, float)) else str(value)


def _dotted(path: tuple[str | int, ...]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def checks_resources() -> bool:
    """Whether ``problems`` checks container resources (the files read are pod files)."""
    return _POD_FILES.get()


def problems(obj: dict) -> list[Problem]:
    """Every finding for one object read from a file, kind first (nothing else is checked then)."""
    found = kind_problem(obj)
    if found is not None:
        return [found]
    return resource_problems(obj) if _POD_FILES.get() else []


def describe(obj: dict) -> str:
    """``Pod "web"`` as the API server's "is invalid" messages name an object."""
    name = (obj.get("metadata") or {}).get("name") if isinstance(obj.get("metadata"), dict) else None
    return f'{obj.get("kind")} "{name}"' if name else str(obj.get("kind"))
