"""The structured allocator: devices for a node's share of a pod's unallocated claims.

Upstream: ``staging/src/k8s.io/dynamic-resource-allocation/structured`` on release-1.34 (read
at the published mirror's release-1.34 head, Kubernetes v1.34.2+). With v1.34's default gates
(AdminAccess, PrioritizedList and ResourceClaimDeviceStatus on) ``NewAllocator`` picks the
"experimental" variant, which with the alpha gates off gives the incubating variant's answers;
this module follows that behaviour:

- Validation first, claim by claim and request by request (every error aborts): selectors
  must be CEL, ``adminAccess`` needs its gate, the DeviceClass must exist, ``All`` requests
  collect every selectable device of the node's pools (and fail on an incomplete or invalid
  pool of any driver), a claim may not need more than 32 devices; constraints must be
  ``matchAttribute``.
- Then a depth-first search with full backtracking: claims in order, requests in order,
  ``firstAvailable`` subrequests in order, candidate devices in pool, slice and device order;
  the first complete solution wins. Devices allocated to other claims are skipped (admin-access
  requests may share them), as are devices this attempt already uses.
- Results: one entry per device (``request`` is ``parent/sub`` for a subrequest), the class
  configs then the claim configs, and the node selector (a node-local device pins the node).

Kept as upstream, quirks included: a CEL error is fatal for the whole call, not "no match";
a claim config naming several requests of the claim is copied once per request; the
subrequest match cache key and the ``All`` subrequest recursion reproduce release-1.34's
indices. Pool order is the input order (upstream's is a Go map's, i.e. random), except that
slices and pools with binding conditions come last, as the experimental variant has them
(``pools``).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from kschedctl.plugins.dynamic_resources.features import DEFAULT_FEATURES, Features
from kschedctl.plugins.dynamic_resources.pools import Device, DeviceID, Pool, PoolError, SelectorCompileError, SliceIndex

__all__ = ["ALLOCATION_RESULTS_MAX_SIZE", "AllocationError", "Allocator", "claim_ref"]

#: resourceapi.AllocationResultsMaxSize: devices one claim may get.
ALLOCATION_RESULTS_MAX_SIZE = 32
_MAX_INT = (1 << 63) - 1


class AllocationError(Exception):
    """Allocate failed (upstream returns the error; the plugin turns it into a status)."""


class _MaxSizeExceeded(Exception):
    """Upstream's internal errAllocationResultMaxSizeExceeded: prunes the search, never escapes."""


def claim_ref(claim: dict) -> str:
    """``klog.KObj(claim)``: ``namespace/name``, or the name alone without a namespace."""
    meta = claim.get("metadata") or {}
    ns, name = meta.get("namespace") or "", meta.get("name") or ""
    return f"{ns}/{name}" if ns else name


class _Request:
    """Upstream ``requestData``: one request without subrequests, or one subrequest."""

    __slots__ = ("request", "parent", "cls", "num_devices", "all_devices", "selected_sub", "name", "admin",
                 "mode", "selectors")

    def __init__(self, request: dict, parent: dict | None, name: Any) -> None:
        self.request = request
        self.parent = parent
        self.cls: dict | None = None
        self.num_devices = 0
        self.all_devices: list[Device] = []
        self.selected_sub = 0
        # ``exactly`` has no name of its own: the DeviceRequest around it has
        self.name = str(name or "")
        # DeviceSubRequest has no adminAccess field (upstream's accessor answers false)
        self.admin = parent is None and request.get("adminAccess") is True
        self.mode = request.get("allocationMode") or "ExactCount"
        self.selectors = request.get("selectors") or []

    def request_name(self) -> str:
        return f"{self.parent.get('name', '')}/{self.name}" if self.parent is not None else self.name


#: The value fields of a DeviceAttribute.
_VALUE_KINDS = ("string", "int", "bool", "version")


class _MatchAttribute:
    """A ``matchAttribute`` constraint: every device it covers has the same value."""

    __slots__ = ("request_names", "attribute", "value", "count")

    def __init__(self, request_names: Sequence[str], attribute: str) -> None:
        self.request_names = frozenset(request_names)
        self.attribute = attribute
        self.value: dict | None = None
        self.count = 0

    def _applies(self, base: str, sub: str) -> bool:
        names = self.request_names
        if not names:
            return True
        if not sub:
            return base in names
        return base in names or f"{base}/{sub}" in names

    def add(self, base: str, sub: str, device: Device) -> bool:
        """Whether the device may join (a device the constraint does not cover always may)."""
        if not self._applies(base, sub):
            return True
        value = device.attribute(self.attribute)
        if value is None or not self._admits(base, value):
            return False
        self.count += 1
        return True

    def _admits(self, base: str, value: dict) -> bool:
        if self.count == 0:
            self.value = value
            return True
        kept = self.value or {}
        for kind in _VALUE_KINDS:
            if value.get(kind) is not None:
                return kept.get(kind) is not None and kept[kind] == value[kind]
        return False  # no value of a known type

    def remove(self, base: str, sub: str, device: Device) -> None:
        if self._applies(base, sub):
            self.count -= 1


class _DistinctAttribute(_MatchAttribute):
    """A ``distinctAttribute`` constraint as release-1.34's experimental allocator runs it (the
    field itself needs DRAConsumableCapacity, but a stored one is honoured): a covered device must
    have the attribute with a value. Upstream compares the values by pointer, which only a device
    chosen twice could repeat, so distinct devices are never refused for an equal value."""

    __slots__ = ("values",)

    def __init__(self, request_names: Sequence[str], attribute: str) -> None:
        super().__init__(request_names, attribute)
        self.values: dict[str, dict] = {}

    def _admits(self, base: str, value: dict) -> bool:
        if self.count > 0 and self.values and not any(value.get(kind) is not None for kind in _VALUE_KINDS):
            return False
        self.values[base] = value
        return True

    def remove(self, base: str, sub: str, device: Device) -> None:
        if self._applies(base, sub):
            self.values.pop(base, None)
            self.count -= 1


class Allocator:
    """Upstream ``structured.Allocator`` for one set of claims to allocate together.

    ``classes`` maps a DeviceClass name to the object (or None); ``allocated`` is the set of
    DeviceIDs in use by other claims (admin-access allocations excluded); ``cel`` compiles
    selectors (``kschedctl.cel.CelCache``).
    """

    def __init__(self, claims: Sequence[dict], allocated: "set[DeviceID] | frozenset[DeviceID]",
                 classes: Callable[[str], dict | None], slices: SliceIndex, cel: Any,
                 features: Features = DEFAULT_FEATURES) -> None:
        self.claims = list(claims)
        self.allocated = allocated
        self.classes = classes
        self.slices = slices
        self.cel = cel
        self.features = features
        #: allocateOne calls of the last Allocate (upstream's stats).
        self.num_allocate_one = 0

    # ------------------------------------------------------------------ the call
    def allocate(self, node: dict | None) -> list[dict] | None:
        """One AllocationResult per claim, None when there is no solution on ``node``;
        AllocationError for what upstream returns as an error."""
        try:
            pools = self.slices.pools_for(node)
        except PoolError as err:
            raise AllocationError(f"gather pool information: {err}") from None
        return _Attempt(self, node, pools).run()


class _Attempt:
    """Upstream's per-call ``allocator``."""

    def __init__(self, owner: Allocator, node: dict | None, pools: list[Pool]) -> None:
        self.owner = owner
        self.features = owner.features
        self.node = node
        self.node_name = str(((node or {}).get("metadata") or {}).get("name") or "")
        self.claims = owner.claims
        self.pools = pools
        self.allocated = owner.allocated
        self.requests: dict[tuple[int, int, int], _Request] = {}
        self.constraints: list[list[_MatchAttribute]] = [[] for _ in self.claims]
        self.matches: dict[tuple[DeviceID, int, int, int], bool] = {}
        self.allocating: dict[DeviceID, set[int]] = {}
        self.results: list[list[tuple[_Request, Device]]] = [[] for _ in self.claims]

    def run(self) -> list[dict] | None:
        self._validate()
        self.owner.num_allocate_one = 0
        try:
            done = self._step(0, 0, 0, 0, False)
        except _MaxSizeExceeded:  # cannot happen after validation's limit check; upstream returns it
            raise AllocationError("allocation max size exceeded") from None
        if not done:
            return None
        return [self._result(i) for i in range(len(self.claims))]

    # ------------------------------------------------------------------ validation
    def _validate(self) -> None:
        features = self.features
        for ci, claim in enumerate(self.claims):
            ref = claim_ref(claim)
            devices = (claim.get("spec") or {}).get("devices") or {}
            min_per_claim = 0
            for ri, request in enumerate(devices.get("requests") or ()):
                first = request.get("firstAvailable") or []
                if first and not features.prioritized_list:
                    raise AllocationError(f"claim {ref}, request {request.get('name', '')}: has subrequests, but the "
                                          f"DRAPrioritizedList feature is disabled")
                if not features.consumable_capacity and (
                        (request.get("exactly") or {}).get("capacity") is not None
                        or any((sub or {}).get("capacity") is not None for sub in first)):
                    raise AllocationError(f"claim {ref}, request {request.get('name', '')}: has capacity requests, but "
                                          f"the DRAConsumableCapacity feature is disabled")
                if first:
                    least = _MAX_INT
                    key_sub = 0
                    for si, sub in enumerate(first):
                        rd = self._validate_request(ci, ref, sub, request, sub.get("name"), (ci, ri, key_sub))
                        key_sub = si
                        self.requests[(ci, ri, si)] = rd
                        least = min(least, rd.num_devices)
                    min_per_claim += least
                else:
                    rd = self._validate_request(ci, ref, request.get("exactly") or {}, None, request.get("name"),
                                                (ci, ri, 0))
                    self.requests[(ci, ri, 0)] = rd
                    min_per_claim += rd.num_devices
            if min_per_claim > ALLOCATION_RESULTS_MAX_SIZE:
                raise AllocationError(f"claim {ref}: number of requested devices {min_per_claim} exceeds the claim "
                                      f"limit of {ALLOCATION_RESULTS_MAX_SIZE}")
            constraints = []
            for i, constraint in enumerate(devices.get("constraints") or ()):
                constraint = constraint or {}
                if constraint.get("matchAttribute") is not None:
                    constraints.append(_MatchAttribute(constraint.get("requests") or (),
                                                       str(constraint["matchAttribute"])))
                elif constraint.get("distinctAttribute") is not None:
                    constraints.append(_DistinctAttribute(constraint.get("requests") or (),
                                                          str(constraint["distinctAttribute"])))
                else:
                    raise AllocationError(f"claim {ref}, constraint #{i}: empty constraint (unsupported constraint "
                                          f"type?)")
            self.constraints[ci] = constraints

    def _validate_request(self, ci: int, ref: str, request: dict, parent: dict | None, name: Any,
                          key: tuple[int, int, int]) -> _Request:
        rd = _Request(request, parent, name)
        name = rd.name
        for i, selector in enumerate(rd.selectors):
            if not isinstance(selector, dict) or selector.get("cel") is None:
                raise AllocationError(f"claim {ref}, request {name}, selector #{i}: CEL expression empty (unsupported "
                                      f"selector type?)")
        if not self.features.admin_access and parent is None and request.get("adminAccess") is not None:
            raise AllocationError(f"claim {ref}, request {name}: admin access is requested, but the feature is "
                                  f"disabled")
        class_name = request.get("deviceClassName") or ""
        if not class_name:
            raise AllocationError(f"claim {ref}, request {name}: missing device class name (unsupported request "
                                  f"type?)")
        cls = self.owner.classes(class_name)
        if cls is None:
            raise AllocationError(f"claim {ref}, request {name}: could not retrieve device class {class_name}: "
                                  f'deviceclass.resource.k8s.io "{class_name}" not found')
        rd.cls = cls
        mode = rd.mode
        if mode == "ExactCount":
            count = request.get("count")
            count = 1 if count is None else int(count)
            if count > _MAX_INT:
                raise AllocationError(f"claim {ref}, request {name}: exact count {count} is too large")
            rd.num_devices = count
        elif mode == "All":
            for pool in self.pools:
                if pool.is_incomplete:
                    raise AllocationError(f"claim {ref}, request {name}: asks for all devices, but resource pool "
                                          f"{pool.id} is currently being updated")
                if pool.is_invalid:
                    raise AllocationError(f"claim {ref}, request {name}: asks for all devices, but resource pool "
                                          f"{pool.id} is currently invalid")
                for device in pool.devices():
                    if self._selectable(key, rd, device):
                        rd.all_devices.append(device)
            rd.num_devices = len(rd.all_devices)
        else:
            raise AllocationError(f"claim {ref}, request {name}: unsupported count mode {mode}")
        return rd

    # ------------------------------------------------------------------ the search
    def _step(self, c: int, r: int, s: int, d: int, allocate_sub: bool) -> bool:
        self.owner.num_allocate_one += 1
        claims = self.claims
        if c >= len(claims):
            return True
        requests = ((claims[c].get("spec") or {}).get("devices") or {}).get("requests") or ()
        if r >= len(requests):
            try:
                return self._step(c + 1, 0, 0, 0, False)
            except _MaxSizeExceeded:
                return False
        key = (c, r, s)
        rd = self.requests[key]
        if not allocate_sub and rd.parent is not None:
            all_exceeded = True
            si = 0
            while True:
                if (c, r, si) not in self.requests:
                    if all_exceeded:
                        raise _MaxSizeExceeded
                    return False
                try:
                    ok = self._step(c, r, si, d, True)
                except _MaxSizeExceeded:
                    si += 1
                    continue
                all_exceeded = False
                if ok:
                    rd.selected_sub = si
                    return True
                si += 1
        every = rd.mode == "All"
        if every and not rd.all_devices:
            return False
        if d >= rd.num_devices:
            return self._step(c, r + 1, 0, 0, False)
        if len(self.results[c]) + rd.num_devices - d > ALLOCATION_RESULTS_MAX_SIZE:
            raise _MaxSizeExceeded
        if every:
            device = rd.all_devices[d]
            undo = self._allocate_device(c, rd, device, True)
            if undo is None:
                return False
            # release-1.34 drops the subrequest index here (the next step reads subrequest 0)
            try:
                done = self._step(c, r, 0, d + 1, allocate_sub)
            except BaseException:
                undo()
                raise
            if not done:
                undo()
            return done
        admin = rd.admin
        allocated, allocating = self.allocated, self.allocating
        for pool in self.pools:
            if pool.is_invalid:
                raise AllocationError(f"pool {pool.name} is invalid: {pool.invalid_reason}")
            for slice_ in pool.slices:
                for device in slice_.devices:
                    did = device.id
                    users = allocating.get(did)
                    if admin:
                        if users and c in users:
                            continue
                    elif did in allocated or users:
                        continue
                    if not self._selectable(key, rd, device):
                        continue
                    undo = self._allocate_device(c, rd, device, False)
                    if undo is None:
                        continue
                    try:
                        done = self._step(c, r, s, d + 1, allocate_sub)
                    except _MaxSizeExceeded:
                        undo()
                        raise
                    if done:
                        return True
                    undo()
        return False

    def _selectable(self, key: tuple[int, int, int], rd: _Request, device: Device) -> bool:
        if device.binding_conditions and not (self.features.device_binding and self.features.device_status):
            return False
        mkey = (device.id, key[0], key[1], key[2])
        known = self.matches.get(mkey)
        if known is not None:
            return known
        cls = rd.cls
        if cls is not None:
            selectors = (cls.get("spec") or {}).get("selectors") or ()
            if not self._selectors_match(key[0], cls, selectors, device):
                self.matches[mkey] = False
                return False
        if not self._selectors_match(key[0], None, rd.selectors, device):
            self.matches[mkey] = False
            return False
        self.matches[mkey] = True
        return True

    def _selectors_match(self, c: int, cls: dict | None, selectors: Any, device: Device) -> bool:
        cel = self.owner.cel
        for i, selector in enumerate(selectors):
            expression = str(((selector or {}).get("cel") or {}).get("expression") or "")
            try:
                if not device.selected_by(cel, expression):
                    return False
            except SelectorCompileError as err:
                raise AllocationError(f"{self._selector_owner(c, cls)}: selector #{i}: CEL compile error: {err}") \
                    from None
            except Exception as err:  # a CelError: its text is upstream's
                raise AllocationError(f"{self._selector_owner(c, cls)}: selector #{i}: CEL runtime error: {err}") \
                    from None
        return True

    def _selector_owner(self, c: int, cls: dict | None) -> str:
        if cls is not None:
            return f"class {(cls.get('metadata') or {}).get('name', '')}"
        return f"claim {claim_ref(self.claims[c])}"

    def _allocate_device(self, c: int, rd: _Request, device: Device, must: bool) -> Callable[[], None] | None:
        did = device.id
        users = self.allocating.get(did)
        if rd.admin:
            if users and c in users:
                return None
        elif did in self.allocated or users:
            return None
        if device.consumes_counters and not self.features.partitionable_devices:
            return None
        if rd.parent is not None:
            base, sub = str(rd.parent.get("name") or ""), rd.name
        else:
            base, sub = rd.name, ""
        constraints = self.constraints[c]
        for i, constraint in enumerate(constraints):
            if not constraint.add(base, sub, device):
                if must:
                    raise AllocationError(f"claim {claim_ref(self.claims[c])}, request {rd.name}: cannot add device "
                                          f"{did} because a claim constraint would not be satisfied")
                for e in range(i):
                    constraints[e].remove(base, sub, device)
                return None
        self.allocating.setdefault(did, set()).add(c)
        results = self.results[c]
        before = len(results)
        results.append((rd, device))

        def undo() -> None:
            for constraint in constraints:
                constraint.remove(base, sub, device)
            self.allocating[did].discard(c)
            del results[before:]

        return undo

    # ------------------------------------------------------------------ results
    def _result(self, c: int) -> dict:
        claim = self.claims[c]
        devices_spec = (claim.get("spec") or {}).get("devices") or {}
        requests = devices_spec.get("requests") or ()
        entries = []
        for rd, device in self.results[c]:
            entry = {"request": rd.request_name(), "driver": device.id.driver, "pool": device.id.pool,
                     "device": device.id.device}
            if rd.admin:
                entry["adminAccess"] = True
            entries.append(entry)
        config: list[dict] = []
        class_ranges: dict[str, tuple[int, int]] = {}
        for ri in range(len(requests)):
            rd = self.requests[(c, ri, 0)]
            if rd.parent is not None:
                rd = self.requests[(c, ri, rd.selected_sub)]
            cls = rd.cls
            if cls is None:
                continue
            cls_name = str((cls.get("metadata") or {}).get("name") or "")
            known = class_ranges.get(cls_name)
            if known is not None:
                for i in range(*known):
                    config[i]["requests"].append(rd.request_name())
                continue
            start = len(config)
            for cfg in (cls.get("spec") or {}).get("config") or ():
                config.append({"source": "FromClass", "requests": [rd.request_name()], **_device_configuration(cfg)})
            class_ranges[cls_name] = (start, len(config))
        for cfg in devices_spec.get("config") or ():
            names = cfg.get("requests") or []
            if not names:
                config.append(_claim_config(cfg))
                continue
            for ri, request in enumerate(requests):
                if request.get("name") in names:
                    config.append(_claim_config(cfg))
                    continue
                rd = self.requests[(c, ri, 0)]
                if rd.parent is None:
                    continue
                sub = (request.get("firstAvailable") or [])[rd.selected_sub]
                if f"{request.get('name', '')}/{sub.get('name', '')}" in names:
                    config.append(_claim_config(cfg))
        allocation: dict[str, Any] = {"devices": {"results": entries}}
        if config:
            allocation["devices"]["config"] = config
        try:
            selector = self._node_selector(self.results[c])
        except AllocationError as err:
            raise AllocationError(f"create NodeSelector for claim {(claim.get('metadata') or {}).get('name', '')}: "
                                  f"{err}") from None
        if selector is not None:
            allocation["nodeSelector"] = selector
        return allocation

    def _node_selector(self, results: list[tuple[_Request, Device]]) -> dict | None:
        fields: list[dict] = []
        expressions: list[dict] = []
        for _, device in results:
            slice_ = device.slice
            if slice_.node_name:
                return {"nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": [self.node_name]}]}]}
            selector = slice_.node_selector
            if selector is None:
                continue
            terms = selector.get("nodeSelectorTerms") or []
            if len(terms) == 0:
                continue
            if len(terms) > 1:
                raise AllocationError(f"unsupported ResourceSlice.NodeSelector with {len(terms)} terms")
            _merge_requirements(terms[0].get("matchFields") or (), fields)
            _merge_requirements(terms[0].get("matchExpressions") or (), expressions)
        if not fields and not expressions:
            return None
        term: dict[str, Any] = {}
        if expressions:
            term["matchExpressions"] = expressions
        if fields:
            term["matchFields"] = fields
        return {"nodeSelectorTerms": [term]}


def _merge_requirements(source: Any, into: list[dict]) -> None:
    for req in source:
        values = set(req.get("values") or ())
        if any(r.get("key") == req.get("key") and r.get("operator") == req.get("operator")
               and set(r.get("values") or ()) == values for r in into):
            continue
        into.append(req)


def _device_configuration(cfg: dict) -> dict:
    return {k: v for k, v in cfg.items() if k not in ("requests", "source")}


def _claim_config(cfg: dict) -> dict:
    out: dict[str, Any] = {"source": "FromClaim"}
    if cfg.get("requests"):
        out["requests"] = cfg["requests"]
    out.update(_device_configuration(cfg))
    return out
