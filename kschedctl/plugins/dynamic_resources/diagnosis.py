"""Why a node's devices do not satisfy a pod's claims: kschedctl's own explanation, never a verdict.

Upstream's Filter says only "cannot allocate all claims". For a report, each request of each
claim to allocate is counted on the node: the devices of its pools, those of the request's
DeviceClass (the class selectors), those that also pass the request's selectors, and those of
them not allocated to another claim, against the number needed. Counting runs only when a report
reads it (``to_dict``), so batches pay nothing for it.
"""

from __future__ import annotations

from typing import Any

from kschedctl.plugins.dynamic_resources.allocator import claim_ref

__all__ = ["DeviceGap"]


class DeviceGap:
    """The per-request device counts of one node, computed on demand."""

    __slots__ = ("state", "claims", "node", "allocated", "_cached")

    def __init__(self, state: Any, claims: list[dict], node: dict | None, allocated: Any) -> None:
        self.state = state
        self.claims = claims
        self.node = node
        self.allocated = allocated
        self._cached: list[dict] | None = None

    def requests(self) -> list[dict]:
        if self._cached is None:
            self._cached = self._count()
        return self._cached

    def to_dict(self) -> dict:
        return {"requests": self.requests()}

    def texts(self) -> list[str]:
        return [r["text"] for r in self.requests()]

    def _count(self) -> list[dict]:
        state = self.state
        try:
            pools = state.slices.pools_for(self.node)
        except Exception:  # noqa: BLE001 - the verdict already carries the error
            pools = []
        devices = [d for pool in pools for d in pool.devices()]
        out = []
        for claim in self.claims:
            for request in (((claim.get("spec") or {}).get("devices") or {}).get("requests") or ()):
                alternatives = request.get("firstAvailable") or []
                if alternatives:
                    for sub in alternatives:
                        out.append(self._one(claim, f"{request.get('name', '')}/{sub.get('name', '')}", sub, devices))
                else:
                    out.append(self._one(claim, str(request.get("name") or ""), request.get("exactly") or {}, devices))
        return out

    def _one(self, claim: dict, name: str, request: dict, devices: list) -> dict:
        class_name = str(request.get("deviceClassName") or "")
        cls = self.state.device_class(class_name) or {}
        class_selectors = _expressions((cls.get("spec") or {}).get("selectors"))
        request_selectors = _expressions(request.get("selectors"))
        of_class = [d for d in devices if _all_match(self.state.cel, class_selectors, d)]
        matching = [d for d in of_class if _all_match(self.state.cel, request_selectors, d)]
        admin = request.get("adminAccess") is True
        free = [d for d in matching if admin or d.id not in self.allocated]
        mode = request.get("allocationMode") or "ExactCount"
        needed: Any = "All" if mode == "All" else int(request.get("count") or 1)
        text = (f"claim {claim_ref(claim)}, request {name}: {len(of_class)} of {len(devices)} devices on the node "
                f"are of class {class_name}")
        if request_selectors:
            text += f", {len(matching)} of them match " + " && ".join(f"`{e}`" for e in request_selectors)
        text += f", {len(free)} of those free; needs {needed if needed == 'All' else needed}"
        return {"claim": claim_ref(claim), "request": name, "deviceClass": class_name, "needed": needed,
                "devicesOnNode": len(devices), "ofClass": len(of_class), "matching": len(matching),
                "free": len(free), "freeDevices": [str(d.id) for d in free], "text": text}


def _expressions(selectors: Any) -> list[str]:
    return [str(((s or {}).get("cel") or {}).get("expression") or "") for s in (selectors or ())]


def _all_match(cel: Any, expressions: list[str], device: Any) -> bool:
    for expression in expressions:
        try:
            if not device.selected_by(cel, expression):
                return False
        except Exception:  # noqa: BLE001 - a selector that fails counts as no match here
            return False
    return True
