"""What a live object keeps on its way to kschedctl (and into ``kschedctl snapshot`` files): what the
scheduler reads, without the API server's bookkeeping and without the fields where secrets end up
(container env, envFrom, command, args, kubectl's last-applied copy of the object)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:  # pragma: no cover
    from kschedctl.inputs.kube import Kind

#: kubectl apply's annotation: a full copy of the applied object, secrets in env included.
LAST_APPLIED_ANNOTATION = "kubectl.kubernetes.io/last-applied-configuration"

#: metadata fields that say nothing the scheduler (or a reader of a snapshot) needs.
_NOISE_METADATA = ("managedFields", "resourceVersion", "selfLink", "generation")
#: container fields the scheduler never reads and that may hold secrets in plain text.
_SECRET_PRONE_CONTAINER_FIELDS = ("env", "envFrom", "command", "args")


def strip_object(obj: dict, kind: Kind | None = None) -> dict:
    """``obj`` ready to be used and printed: ``apiVersion`` and ``kind`` first (list items lack
    them), without managedFields, resourceVersion, selfLink, generation and kubectl's
    last-applied-configuration annotation; containers (of pods and of workload templates)
    without env, envFrom, command and args, which the scheduler never reads and which are where
    passwords end up. Nothing else changes, so the scheduler sees what the API server holds.
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
