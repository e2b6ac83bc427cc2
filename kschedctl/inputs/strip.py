"""What a live object keeps on its way to kschedctl (and into ``kschedctl snapshot`` files and
``kschedctl record`` traces): what the scheduler reads, without the API server's bookkeeping and
without the fields where secrets end up (container env, envFrom, command, args, probe commands,
HTTP paths, hosts and headers, lifecycle handlers, the URLs, addresses and credentials of volumes
of every in-tree type, volume options, attributes and mount options, StorageClass parameters,
opaque device parameters, a claim's device data, kubectl's last-applied copy of the object at
every depth). ``REDACTED`` says it in a line, for the snapshot's header.

None of the fields taken out is read by kube-scheduler v1.34: probes and lifecycle hooks are the
kubelet's; a flexVolume's options and a CSI volume's attributes and secret references go to the
driver (NodeVolumeLimits counts CSI volumes by driver and volume handle, which stay); the
structured allocator of DynamicResources copies a class's and a claim's opaque configuration into
the allocation without reading its ``parameters``, which only the driver's kubelet plugin decodes.
Of the in-tree volume sources, the scheduler (read at v1.34.4) reads the identities VolumeRestrictions
compares (gcePersistentDisk pdName, awsElasticBlockStore volumeID, iscsi iqn, rbd monitors, pool
and image, readOnly) and the ones csi-translation-lib turns into CSI volume handles for
NodeVolumeLimits (azureDisk diskURI, azureFile shareName and secretName, cinder and portworx
volumeID, vsphere volumePath); those stay. A StorageClass keeps provisioner, volumeBindingMode and
allowedTopologies (VolumeBinding's), not its ``parameters``, which go to the provisioner; a
ResourceClaim's ``status.devices[]`` keep their conditions, not the driver's ``data`` and
``networkData``.
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
#: Per in-tree volume type, the URLs, addresses, users and credentials (or references to them)
#: only the kubelet's volume plugin reads. What the scheduler reads is never listed here.
_VOLUME_DRIVER_ONLY_FIELDS: dict[str, tuple[str, ...]] = {
    "gitRepo": ("repository",),
    "iscsi": ("targetPortal", "portals", "secretRef", "initiatorName", "chapAuthDiscovery", "chapAuthSession"),
    "rbd": ("user", "keyring", "secretRef"),
    "cephfs": ("monitors", "path", "user", "secretFile", "secretRef"),
    "nfs": ("server", "path"),
    "glusterfs": ("endpoints", "endpointsNamespace", "path"),
    "quobyte": ("registry", "user", "group", "tenant"),
    "scaleIO": ("gateway", "secretRef"),
    "storageos": ("secretRef",),
    "cinder": ("secretRef",),
    "flexVolume": ("options", "secretRef"),
    "csi": _CSI_DRIVER_ONLY_FIELDS,
}
#: What ``strip_object`` leaves out, in a line (the snapshot's header names it).
REDACTED = ("containers' env, envFrom, command, args and lifecycle hooks; probe commands, HTTP paths, hosts "
            "and headers; volume URLs, addresses and credentials (" + ", ".join(
                f"{kind} {'/'.join(fields)}" for kind, fields in _VOLUME_DRIVER_ONLY_FIELDS.items()
                if kind != "csi") + ", CSI attributes and secret references) and mount options; "
            "StorageClass parameters; opaque device parameters; ResourceClaim device data and networkData; "
            "kubectl's last-applied copy of an object (its annotation) at every depth")


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
    _drop_last_applied(out)
    name = out.get("kind")
    if name == "StorageClass":
        out.pop("parameters", None)
        out.pop("mountOptions", None)
    elif name == "ResourceClaim":
        _strip_claim_status(out.get("status"))
    spec = out.get("spec")
    if isinstance(spec, dict):
        if name == "Pod":
            _strip_pod_spec(spec)
        elif name == "PersistentVolume":
            _strip_volume_source(spec)
            spec.pop("mountOptions", None)
        elif name in _DEVICE_CONFIG_PATHS:
            _strip_device_configs(out, _DEVICE_CONFIG_PATHS[name])
        else:
            for tspec in _template_pod_specs(spec):
                _strip_pod_spec(tspec)
    return out


def _template_pod_specs(spec: dict) -> list[dict]:
    """The pod specs of a workload's templates: ``spec.template`` (Deployment, ..., Job) and a
    CronJob's ``spec.jobTemplate.spec.template``."""
    out = []
    for holder in (spec, (spec.get("jobTemplate") or {}).get("spec") if isinstance(spec.get("jobTemplate"), dict)
                   else None):
        template = holder.get("template") if isinstance(holder, dict) else None
        tspec = template.get("spec") if isinstance(template, dict) else None
        if isinstance(tspec, dict):
            out.append(tspec)
    return out


def _drop_last_applied(node: object) -> None:
    """kubectl's last-applied annotation out of every ``metadata`` at any depth (a workload's pod
    template, a StatefulSet's volumeClaimTemplates, a CronJob's jobTemplate, ...)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            meta = item.get("metadata")
            if isinstance(meta, dict):
                annotations = meta.get("annotations")
                if isinstance(annotations, dict) and LAST_APPLIED_ANNOTATION in annotations:
                    del annotations[LAST_APPLIED_ANNOTATION]
                    if not annotations:
                        del meta["annotations"]
            stack.extend(v for v in item.values() if isinstance(v, (dict, list)))
        elif isinstance(item, list):
            stack.extend(v for v in item if isinstance(v, (dict, list)))


def _strip_claim_status(status: object) -> None:
    """A claim's allocated devices keep their identity and conditions; the driver's ``data`` (any
    JSON it likes) and ``networkData`` (addresses) are the kubelet's."""
    devices = status.get("devices") if isinstance(status, dict) else None
    if isinstance(devices, list):
        for device in devices:
            if isinstance(device, dict):
                device.pop("data", None)
                device.pop("networkData", None)


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
    """A probe keeps its kind (exec, httpGet, ...), port and timing, not the command, nor the
    path, host and headers of its HTTP request (a token in a query string)."""
    action = handler.get("exec")
    if isinstance(action, dict):
        action.pop("command", None)
    action = handler.get("httpGet")
    if isinstance(action, dict):
        for key in ("path", "host", "httpHeaders"):
            action.pop(key, None)


def _strip_volume_source(source: dict) -> None:
    """A pod's volume or a PersistentVolume's spec: what each in-tree type hands its driver only
    (URLs, addresses, users, secret references, options, attributes) out."""
    for kind, fields in _VOLUME_DRIVER_ONLY_FIELDS.items():
        volume = source.get(kind)
        if isinstance(volume, dict):
            for key in fields:
                volume.pop(key, None)


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
