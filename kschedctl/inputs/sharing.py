"""Pods of one template hold one copy of what they share.

A cluster's pods are mostly replicas: a ReplicaSet's pods carry the same containers, affinity,
tolerations, volumes, labels and owner reference, and parsing gives every pod its own copy of
each. On 650,000 pods those copies are most of the memory kschedctl needs (a pod's parsed JSON
is about 4 KiB, its scheduler record a tenth of that). While a cluster is read, each part of a
pod's spec and its labels and owner references are looked up by their exact value and replaced
by the first equal one seen: about three quarters of the pods' memory goes.

Equal means equal with types: the key is the value's ``marshal`` serialization, which tells
``1`` from ``1.0`` and ``True`` (``==`` does not) and keeps mapping order. Parts are keyed as
read, before defaulting: equal parts default equally (where defaulting also reads another field,
that field is part of the key, see ``PartTable``), so only the first pod of a template defaults
its containers, and its replicas skip that. Sharing is safe because nothing changes a loaded
pod's parts in place once defaulting is done: code that edits a pod
(a binding, a what-if, a workload's replicas) copies it or sets a new value at the top of its
spec, metadata or status, each of which stays the pod's own. Status is never shared (a
nomination is written into it). ``KSCHEDCTL_CHECK_SHARED=1`` keeps every shared part with its
key (as defaulted) so that tests can check, after each test, that none was changed in place
(``changed_shared_parts``); ``KSCHEDCTL_NO_FAST_PATHS=1`` turns sharing off.
"""

from __future__ import annotations

import marshal
import os
from typing import Any

from kschedctl.k8s.shared_parts import forget_shared, note_shared

__all__ = ["PartTable", "changed_shared_parts", "forget_shared_parts"]

#: Where a pod's shareable parts live: every mapping or list at the top of ``spec``, and these
#: of ``metadata`` (its name, uid and the rest are the pod's own).
_METADATA_PARTS = ("labels", "ownerReferences", "annotations")
#: The parts of ``spec`` whose defaulting reads another field of the pod (``hostNetwork``).
_CONTAINER_PARTS = ("containers", "initContainers")
#: The parts of ``spec`` defaulted from other parts: shared after defaulting.
_DEFAULTED_PARTS = ("resources",)
_NONE: frozenset[str] = frozenset()
_CONTAINERS, _INIT_CONTAINERS = frozenset(_CONTAINER_PARTS[:1]), frozenset(_CONTAINER_PARTS[1:])
_BOTH = frozenset(_CONTAINER_PARTS)
#: marshal's format 2 writes no back-references, so equal values always give equal bytes.
_MARSHAL_VERSION = 2

_CHECKING = os.environ.get("KSCHEDCTL_CHECK_SHARED", "").strip().lower() in ("1", "true", "yes")
_CHECKED: list[tuple[bytes, Any]] = []


class PartTable:
    """The first value seen of each shareable part, by its exact serialization; kept only while
    a cluster is read.

    A pod's parts are shared as read, before defaulting (``share_pod``), so that a replica finds
    its containers defaulted already by the first pod of its template and skips defaulting them
    (what ``share_pod`` returns): defaulting changes a part in place, the same way for equal parts, except
    that containers and init containers are defaulted by what else the pod says (``hostNetwork``
    gives their ports a hostPort), so they are looked up in a table of their own for each value
    of it. The pod-level ``resources`` are defaulted from the containers: shared only once
    defaulted (``defaulted_pod``).
    """

    __slots__ = ("_first", "_first_host_network", "_defaulted", "_fresh")

    def __init__(self) -> None:
        self._first: dict[bytes, Any] = {}
        self._first_host_network: dict[bytes, Any] = {}
        #: (hostNetwork, id) of containers lists defaulted as such; each is held by its table.
        self._defaulted: set[tuple[bool, int]] = set()
        #: Parts first seen while checking is on: serialized once defaulted (``finish``).
        self._fresh: list[Any] = []
        forget_shared()

    def share_pod(self, pod: dict) -> frozenset[str]:
        """Replace ``pod``'s shareable parts with equal ones seen before (in place), before it is
        defaulted; which of its containers fields (``containers``, ``initContainers``) now hold
        a list defaulted already, as this pod's would be (``defaulted_pod`` says so of a pod's
        once it is defaulted): those need no defaulting."""
        meta = pod.get("metadata")
        if meta.__class__ is dict:
            self._share_in(meta, _METADATA_PARTS, False)
        spec = pod.get("spec")
        if spec.__class__ is not dict:
            return _NONE
        host_network = spec.get("hostNetwork") is True
        self._share_in(spec, spec, host_network)
        defaulted = self._defaulted
        if not defaulted:
            return _NONE
        containers = (host_network, id(spec.get("containers"))) in defaulted
        if (host_network, id(spec.get("initContainers"))) in defaulted:
            return _BOTH if containers else _INIT_CONTAINERS
        return _CONTAINERS if containers else _NONE

    def defaulted_pod(self, pod: dict) -> None:
        """``pod`` is defaulted: its containers lists are, the way equal ones of pods with its
        ``hostNetwork`` would be; its parts defaulted from others (pod-level ``resources``) are
        shared now."""
        spec = pod["spec"]
        host_network = spec.get("hostNetwork") is True
        for field in _CONTAINER_PARTS:
            value = spec.get(field)
            if value.__class__ is list and value:
                self._defaulted.add((host_network, id(value)))
        if spec.get("resources"):
            self._share_in(spec, _DEFAULTED_PARTS, False, defaulted=True)

    def finish(self) -> None:
        """Reading is done: the parts are final (kept for the check with what they are now)."""
        for value in self._fresh:
            _CHECKED.append((marshal.dumps(value, _MARSHAL_VERSION), value))
        self._fresh.clear()

    def _share_in(self, holder: dict, keys: Any, host_network: bool, defaulted: bool = False) -> None:
        first = self._first
        for key in keys:
            value = holder.get(key)
            cls = value.__class__
            if (cls is not dict and cls is not list) or not value or (key == "resources" and not defaulted):
                continue  # the pod-level resources are defaulted from the containers: shared once defaulted
            try:
                serial = marshal.dumps(value, _MARSHAL_VERSION)
            except ValueError:  # not plain data (never from a file); the pod keeps its own
                continue
            table = self._first_host_network if host_network and key in _CONTAINER_PARTS else first
            seen = table.setdefault(serial, value)
            if seen is not value:
                holder[key] = seen
                note_shared(seen)  # what is computed from it may be remembered by its identity
            elif _CHECKING:
                self._fresh.append(value)


def changed_shared_parts() -> list[Any]:
    """The shared parts changed in place since they were shared (only kept under
    ``KSCHEDCTL_CHECK_SHARED=1``): each is a bug that changed other pods too."""
    return [value for serial, value in _CHECKED if marshal.dumps(value, _MARSHAL_VERSION) != serial]


def forget_shared_parts() -> None:
    """Stop checking the parts shared so far."""
    _CHECKED.clear()
