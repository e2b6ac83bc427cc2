"""ResourceSlices gathered into pools for one node, as the structured allocator gathers them.

Upstream: ``staging/src/k8s.io/dynamic-resource-allocation/structured/internal/experimental/
pools_experimental.go`` (release-1.34; with v1.34's default gates it behaves as the incubating and
stable variants). For a node, a slice counts when its ``nodeName`` is the node, it has
``allNodes``, or its ``nodeSelector`` matches the node; slices with ``perDeviceNodeSelection`` are
left out (DRAPartitionableDevices is off). Per pool (driver, pool name) only the slices of the
newest generation seen are kept; a pool is incomplete when it has fewer slices than its
``resourceSliceCount`` says, and invalid when a device name repeats.

Upstream walks a Go map, so its pool order is random; kschedctl keeps the order in which the
pools' first slices come in the input (any order is one upstream could have taken). Except: the
"experimental" variant, which v1.34's default gates select (DRAResourceClaimDeviceStatus is on),
adds slices having a device with ``bindingConditions`` after all other slices and puts the pools
having such a device after all other pools (``orders_binding_conditions_last``).

The slices never change during a run, so the pools of each node are gathered once
(``SliceIndex.pools_for``), and every device is wrapped once (``Device``) with what CEL needs.
"""

from __future__ import annotations

from typing import Any, Iterable, NamedTuple

from kschedctl.k8s.node_selectors import new_node_selector
from kschedctl.k8s.selectors import SelectorError

__all__ = ["DeviceID", "Device", "Slice", "Pool", "SliceIndex", "PoolError", "SelectorCompileError"]


class DeviceID(NamedTuple):
    driver: str
    pool: str
    device: str

    def __str__(self) -> str:
        return f"{self.driver}/{self.pool}/{self.device}"


class PoolError(Exception):
    """Gathering the pools failed (a node selector that does not parse)."""


class SelectorCompileError(Exception):
    """A device selector's CEL expression does not compile (the text is the compile error)."""


class Device:
    """One device of a slice, with its identity and what the allocator checks on it."""

    __slots__ = ("obj", "name", "id", "slice", "attributes", "capacity", "consumes_counters",
                 "binding_conditions", "matches", "_cel")

    def __init__(self, obj: dict, slice_: "Slice") -> None:
        self.obj = obj
        self.name = str(obj.get("name") or "")
        self.slice = slice_
        self.id = DeviceID(slice_.driver, slice_.pool, self.name)
        self.attributes: dict = obj.get("attributes") or {}
        self.capacity: dict = obj.get("capacity") or {}
        self.consumes_counters = bool(obj.get("consumesCounters"))
        self.binding_conditions = bool(obj.get("bindingConditions"))
        #: CEL expression -> its (error-free) verdict on this device: a pure function of both.
        self.matches: dict[str, bool] = {}
        self._cel: Any = None

    def selected_by(self, cel: Any, expression: str) -> bool:
        """The verdict of the CEL selector ``expression`` on this device, computed once (a pure
        function of both). Raises SelectorCompileError with the compile error's text, or the
        interpreter's CelError for a runtime error; errors are not cached, as upstream."""
        verdict = self.matches.get(expression)
        if verdict is None:
            program = cel.get_or_compile(expression)
            if program.error is not None:
                raise SelectorCompileError(program.error)
            verdict = self.matches[expression] = program.device_matches(self)
        return verdict

    def cel_value(self, build: Any) -> Any:
        """The ``device`` variable CEL sees, built once by ``build(device)``."""
        value = self._cel
        if value is None:
            value = self._cel = build(self)
        return value

    def attribute(self, fq_name: str) -> dict | None:
        """Upstream ``lookupAttribute``: the exact name, or ``domain/id`` with the driver's domain
        for an attribute given without one. None when missing."""
        attrs = self.attributes
        value = attrs.get(fq_name)
        if value is not None:
            return value
        domain, sep, ident = fq_name.partition("/")
        if not sep or domain != self.slice.driver:
            return None
        return attrs.get(ident)

    def __repr__(self) -> str:
        return f"<Device {self.id}>"


class Slice:
    """One ResourceSlice, read once."""

    __slots__ = ("obj", "name", "order", "driver", "pool", "generation", "slice_count", "node_name", "all_nodes",
                 "node_selector", "per_device_node_selection", "devices", "has_binding_conditions", "_selector")

    def __init__(self, obj: dict, order: int) -> None:
        self.obj = obj
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        pool = spec.get("pool") or {}
        self.name = str(meta.get("name") or "")
        self.order = order
        self.driver = str(spec.get("driver") or "")
        self.pool = str(pool.get("name") or "")
        self.generation = _int(pool.get("generation"))
        self.slice_count = _int(pool.get("resourceSliceCount"))
        self.node_name = str(spec.get("nodeName") or "")
        self.all_nodes = bool(spec.get("allNodes"))
        self.node_selector = spec.get("nodeSelector")
        self.per_device_node_selection = spec.get("perDeviceNodeSelection")
        self.devices = [Device(d, self) for d in (spec.get("devices") or ()) if isinstance(d, dict)]
        self.has_binding_conditions = any(d.binding_conditions for d in self.devices)
        self._selector: Any = None

    def matches_node(self, node: dict | None) -> bool:
        """Upstream ``nodeMatches`` for this slice; PoolError for a selector that does not parse."""
        if self.node_name:
            return node is not None and (node.get("metadata") or {}).get("name") == self.node_name
        if self.all_nodes:
            return True
        if self.node_selector is not None:
            selector = self._selector
            if selector is None:
                try:
                    selector = self._selector = new_node_selector(
                        (self.node_selector or {}).get("nodeSelectorTerms"))
                except SelectorError as err:
                    raise PoolError(f"failed to perform node selection for slice {self.name}: failed to parse "
                                    f"node selector {self.node_selector}: {err}") from None
            return selector.match(node)
        return False


class Pool:
    """The slices of one (driver, pool) visible on a node, newest generation only."""

    __slots__ = ("driver", "name", "slices", "is_incomplete", "is_invalid", "invalid_reason")

    def __init__(self, driver: str, name: str) -> None:
        self.driver = driver
        self.name = name
        self.slices: list[Slice] = []
        self.is_incomplete = False
        self.is_invalid = False
        self.invalid_reason = ""

    @property
    def id(self) -> str:
        return f"{self.driver}/{self.name}"

    def devices(self) -> Iterable[Device]:
        for slice_ in self.slices:
            yield from slice_.devices

    def __repr__(self) -> str:
        return f"<Pool {self.id} slices={len(self.slices)}>"


class SliceIndex:
    """All ResourceSlices of the cluster, indexed for gathering pools per node."""

    def __init__(self, slices: Iterable[dict], features: Any) -> None:
        self.features = features
        self.slices: list[Slice] = []
        self._by_node: dict[str, list[Slice]] = {}
        self._elsewhere: list[Slice] = []
        for i, obj in enumerate(slices):
            s = Slice(obj, i)
            if s.per_device_node_selection is not None and not features.partitionable_devices:
                continue  # upstream skips such slices (even with the field set to false)
            self.slices.append(s)
            if s.node_name:
                self._by_node.setdefault(s.node_name, []).append(s)
            elif s.all_nodes or s.node_selector is not None:
                self._elsewhere.append(s)
            # a slice with none of them set is skipped, as upstream does
        self._pools: dict[str, list[Pool]] = {}

    def pools_for(self, node: dict | None) -> list[Pool]:
        """The pools of ``node`` (cached per node name); PoolError as upstream's GatherPools."""
        name = str(((node or {}).get("metadata") or {}).get("name") or "")
        cached = self._pools.get(name)
        if cached is not None and node is not None:
            return cached
        local = self._by_node.get(name, []) if node is not None else []
        candidates = [s for s in self._elsewhere if s.matches_node(node)]
        if local and candidates:
            candidates = sorted(local + candidates, key=lambda s: s.order)
        else:
            candidates = local or candidates
        pools = gather(candidates, orders_binding_conditions_last(self.features))
        if node is not None:
            self._pools[name] = pools
        return pools


def orders_binding_conditions_last(features: Any) -> bool:
    """Whether upstream's ``NewAllocator`` picks the "experimental" variant, the only one that
    orders slices and pools with binding conditions last: it does when a gate outside the
    "incubating" variant's set (AdminAccess, PrioritizedList, PartitionableDevices, DeviceTaints)
    is on."""
    return bool(features.device_binding or features.device_status or features.consumable_capacity)


def gather(slices: Iterable[Slice], binding_conditions_last: bool = False) -> list[Pool]:
    """Pools of ``slices`` (already matched to the node), in order of first appearance."""
    pools: dict[tuple[str, str], Pool] = {}
    deferred: list[Slice] = []
    for s in slices:
        if binding_conditions_last and s.has_binding_conditions:
            deferred.append(s)
            continue
        _add(pools, s)
    for s in deferred:
        _add(pools, s)
    out = list(pools.values())
    for pool in out:
        pool.is_incomplete = len(pool.slices) != pool.slices[0].slice_count
        seen: set[str] = set()
        for device in pool.devices():
            if device.name in seen:
                pool.is_invalid, pool.invalid_reason = True, f"duplicate device name {device.name}"
                break
            seen.add(device.name)
    if binding_conditions_last:
        out = ([p for p in out if not any(s.has_binding_conditions for s in p.slices)]
               + [p for p in out if any(s.has_binding_conditions for s in p.slices)])
    return out


def _add(pools: dict[tuple[str, str], Pool], s: Slice) -> None:
    key = (s.driver, s.pool)
    pool = pools.get(key)
    if pool is None:
        pool = pools[key] = Pool(s.driver, s.pool)
        pool.slices.append(s)
        return
    current = pool.slices[0].generation
    if s.generation < current:
        return
    if s.generation > current:
        pool.slices = []
    pool.slices.append(s)


def _int(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        return 0
