"""What a live object keeps on its way to kschedctl (and into ``kschedctl snapshot`` files): what the
scheduler reads, without the API server's bookkeeping and without the fields where secrets end up
(container env, envFrom, command, args, probe commands and headers, lifecycle handlers, volume
options and attributes, opaque device parameters, kubectl's last-applied copy of the object).

None of the fields taken out is read by kube-scheduler v1.34: probes and lifecycle hooks are the
kubelet's; a flexVolume's options and a CSI volume's attributes and secret references go to the
driver (NodeVolumeLimits counts CSI volumes by driver and volume handle, which stay); the
structured allocator of DynamicResources copies a class's and a claim's opaque configuration into
the allocation without reading its ``parameters``, which only the driver's kubelet plugin decodes.
"""

from __future__ import annotations

from typing import Iterable

from kschedctl.inputs.kinds import Kind

#: kubectl apply's annotation: a full copy of the applied object, secrets in env included.
LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"

#: metadata fields that say nothing the scheduler (or a reader of a snapshot) needs.
_NOISE_METADATA = ("managedFields", "resourceVersion", "selfLink", "generation")
#: container fields the scheduler never reads and that may hold secrets in plain text
#: (lifecycle: postStart/preStop exec commands and HTTP headers).
_SECRET_PRONE_CONTAINER_FIELDS = ("env", "envFrom", "command", "args", "lifecycle")
_PROBES = ("livenessProbe", "readinessProbe", "startupProbe")
#: A CSI volume's fields handed to the driver only (attributes, and the Secrets it is given).
_CSI_DRIVER_ONLY_FIELDS = ("volumeAttributes", "nodePublishSecretRef", "nodeStageSecretRef",
                           "controllerPublishSecretRef", "controllerExpandSecretRef", "nodeExpandSecretRef")


def strip_object(obj: dict, kind: Kind | None = None) -> dict:
    """``obj`` ready to be used and printed: ``apiVersion`` and ``kind`` first (list items lack
    them), without managedFields, resourceVersion, selfLink, generation and kubectl's
    last-applied-configuration annotation; containers (of pods and of workload templates)
    without env, envFrom, command, args and lifecycle handlers, their probes without exec
    commands and HTTP headers; volumes (of pods and persistent volumes) without flexVolume
    options and CSI attributes and secret references; DRA device configurations with empty
    opaque parameters. The scheduler never reads those, and they are where passwords end up.
    Nothing else changes, so the scheduler sees what the API server holds.
    The dict is changed in place where it can be; the result is a new top-level dict.
    """
    out: dict = {}
    if kind is not None:
        out["apiVersion"] = kind.api_version
        out["kind"] = kind.kind
    else:
        if "apiVersion" in obj:
            out["apiVersion"] = obj["apiVersion"]
        if "kind" in obj:
            out["kind"] = obj["kind"]
    for key, value in obj.items():
        if key not in out:
            out[key] = value
    meta = out.get("metadata")
    if isinstance(meta, dict):
        for key in _NOISE_METADATA:
            meta.pop(key, None)
        annotations = meta.get("annotations")
        if isinstance(annotations, dict) and LAST_APPLIED_ANNOTATION in annotations:
            del annotations[LAST_APPLIED_ANNOTATION]
            if not annotations:
                del meta["annotations"]
    spec = out.get("spec")
    if isinstance(spec, dict):
        name = out.get("kind")
        if name == "Pod":
            _strip_pod_spec(spec)
        elif name == "PersistentVolume":
            _strip_volume_source(spec)
        elif name in _DEVICE_CONFIG_PATHS:
            _strip_device_configs(out, _DEVICE_CONFIG_PATHS[name])
        else:
            template = spec.get("template")
            if isinstance(template, dict):
                tmeta = template.get("metadata")
                if isinstance(tmeta, dict):
                    ann = tmeta.get("annotations")
                    if isinstance(ann, dict):
                        ann.pop(LAST_APPLIED_ANNOTATION, None)
                tspec = template.get("spec")
                if isinstance(tspec, dict):
                    _strip_pod_spec(tspec)
    return out


def strip_objects(objs: Iterable[dict], kind: Kind | None = None) -> list[dict]:
    """``strip_object`` over a list."""
    return [strip_object(o, kind) for o in objs if isinstance(o, dict)]


def _strip_pod_spec(spec: dict) -> None:
    for field_name in ("containers", "initContainers", "ephemeralContainers"):
        containers = spec.get(field_name)
        if not isinstance(containers, list):
            continue
        for c in containers:
            if isinstance(c, dict):
                for key in _SECRET_PRONE_CONTAINER_FIELDS:
                    c.pop(key, None)
                for probe_name in _PROBES:
                    probe = c.get(probe_name)
                    if isinstance(probe, dict):
                        _strip_handler(probe)
    volumes = spec.get("volumes")
    if isinstance(volumes, list):
        for volume in volumes:
            if isinstance(volume, dict):
                _strip_volume_source(volume)


def _strip_handler(handler: dict) -> None:
    """A probe keeps its kind (exec, httpGet, ...) and timing, not the command or the headers."""
    action = handler.get("exec")
    if isinstance(action, dict):
        action.pop("command", None)
    action = handler.get("httpGet")
    if isinstance(action, dict):
        action.pop("httpHeaders", None)


def _strip_volume_source(source: dict) -> None:
    """A pod's volume or a PersistentVolume's spec: flexVolume options, CSI attributes and secret refs out."""
    flex = source.get("flexVolume")
    if isinstance(flex, dict):
        flex.pop("options", None)
    csi = source.get("csi")
    if isinstance(csi, dict):
        for key in _CSI_DRIVER_ONLY_FIELDS:
            csi.pop(key, None)


#: Where each DRA kind keeps its lists of device configurations (``[{opaque: {driver, parameters}}]``).
_DEVICE_CONFIG_PATHS: dict[str, tuple[tuple[str, ...], ...]] = {
    "DeviceClass": (("spec", "config"),),
    "ResourceClaim": (("spec", "devices", "config"), ("status", "allocation", "devices", "config")),
    "ResourceClaimTemplate": (("spec", "spec", "devices", "config"),),
}


def _strip_device_configs(obj: dict, paths: tuple[tuple[str, ...], ...]) -> None:
    # parameters stays, empty: the API server requires it on an opaque configuration.
    for path in paths:
        node: object = obj
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
        if not isinstance(node, list):
            continue
        for config in node:
            opaque = config.get("opaque") if isinstance(config, dict) else None
            if isinstance(opaque, dict) and "parameters" in opaque:
                opaque["parameters"] = {}
