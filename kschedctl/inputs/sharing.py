"""Pods of one template hold one copy of what they share.

A cluster's pods are mostly replicas: a ReplicaSet's pods carry the same containers, affinity,
tolerations, volumes, labels and owner reference, and parsing gives every pod its own copy of
each. On 650,000 pods those copies are most of the memory kschedctl needs (a pod's parsed JSON
is about 4 KiB, its scheduler record a tenth of that). While a cluster is read, each part of a
pod's spec and its labels and owner references are looked up by their exact value and replaced
by the first equal one seen: about three quarters of the pods' memory goes.

Equal means equal with types: the key is the value's ``marshal`` serialization, which tells
``1`` from ``1.0`` and ``True`` (``==`` does not) and keeps mapping order. Sharing is safe because
nothing changes a loaded pod's parts in place once defaulting is done: code that edits a pod
(a binding, a what-if, a workload's replicas) copies it or sets a new value at the top of its
spec, metadata or status, each of which stays the pod's own. Status is never shared (a
nomination is written into it). ``KSCHEDCTL_CHECK_SHARED=1`` keeps every shared part with its
key so that tests can check, after each test, that none was changed in place
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
#: marshal's format 2 writes no back-references, so equal values always give equal bytes.
_MARSHAL_VERSION = 2

_CHECKING = os.environ.get("KSCHEDCTL_CHECK_SHARED", "").strip().lower() in ("1", "true", "yes")
_CHECKED: list[tuple[bytes, Any]] = []


class PartTable:
    """The first value seen of each shareable part, by its exact serialization; kept only while
    a cluster is read."""

    __slots__ = ("_first",)

    def __init__(self) -> None:
        self._first: dict[bytes, Any] = {}
        forget_shared()

    def share_pod(self, pod: dict) -> None:
        """Replace ``pod``'s shareable parts with equal ones seen before (in place)."""
        spec = pod.get("spec")
        if spec.__class__ is dict:
            self._share_in(spec, spec)
        meta = pod.get("metadata")
        if meta.__class__ is dict:
            self._share_in(meta, _METADATA_PARTS)

    def _share_in(self, holder: dict, keys: Any) -> None:
        first = self._first
        for key in keys:
            value = holder.get(key)
            cls = value.__class__
            if (cls is not dict and cls is not list) or not value:
                continue
            try:
                serial = marshal.dumps(value, _MARSHAL_VERSION)
            except ValueError:  # not plain data (never from a file); the pod keeps its own
                continue
            seen = first.setdefault(serial, value)
            if seen is not value:
                holder[key] = seen
                note_shared(seen)  # what is computed from it may be remembered by its identity
            elif _CHECKING:
                _CHECKED.append((serial, value))


def changed_shared_parts() -> list[Any]:
    """The shared parts changed in place since they were shared (only kept under
    ``KSCHEDCTL_CHECK_SHARED=1``): each is a bug that changed other pods too."""
    return [value for serial, value in _CHECKED if marshal.dumps(value, _MARSHAL_VERSION) != serial]


def forget_shared_parts() -> None:
    """Stop checking the parts shared so far."""
    _CHECKED.clear()
