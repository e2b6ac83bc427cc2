"""Generate ``kschedctl/inputs/schema/fields.json``: the field names of every object kschedctl reads.

kube-apiserver decodes an object strictly (kubectl's default ``--validate=strict``): a field its Go
type does not have is an error. kschedctl checks the same names offline, from data made here out
of maintained sources, never a hand-kept list:

- built-in kinds: Kubernetes' published OpenAPI v3 spec (``api/openapi-spec/v3/*.json`` of
  k8s.io/kubernetes at v1.34.x), which is generated from the Go types' json tags;
- the scheduler-plugins CRDs (PodGroup, ElasticQuota, NodeResourceTopology, AppGroup,
  NetworkTopology): their published CRD manifests (``manifests/*/crd.yaml`` of
  sigs.k8s.io/scheduler-plugins v0.34.x), whose structural schemas the API server prunes with.

Which kinds: those kschedctl reads (``kinds.KINDS`` and ``WORKLOAD_KINDS``), in every version
of their group the sources describe. Descriptions and value types are dropped: the file keeps, per
object type, each field's name and what its value holds, as a reference:

- ``"TypeName"``: an object of that type (a key of ``types``);
- ``"[]REF"`` / ``"{}REF"``: a list / a map (any keys) of REF;
- ``"string"``, ``"integer"``, ``"number"``, ``"boolean"``, ``"int-or-string"``, ``"quantity"``:
  a scalar;
- ``"any"``: anything, not checked (``runtime.RawExtension`` such as DRA's opaque ``parameters``,
  ``FieldsV1``, ``x-kubernetes-preserve-unknown-fields``).

Run from the repository root (sources default to the Go module cache, ``go env GOMODCACHE``)::

    python tools/field_schema.py [--kubernetes DIR] [--scheduler-plugins DIR] [--check]

``--check`` compares with the shipped file instead of writing it (tests/inputs/test_fields.py runs it).

It also writes ``kschedctl/inputs/schema/served.json``: every kind each built-in group version
serves (the ``x-kubernetes-group-version-kind`` of the spec's operations), so that a file
giving ``apiVersion: v2`` for a Pod, or ``kind: Pdo``, is refused as the API server refuses it
(``--served-only`` writes or checks only this file, which needs only the Kubernetes sources).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "kschedctl" / "inputs" / "schema" / "fields.json"
SERVED_OUT = ROOT / "kschedctl" / "inputs" / "schema" / "served.json"
KUBERNETES_VERSION = "v1.34.4"
SCHEDULER_PLUGINS_VERSION = "v0.34.7"
#: The scheduler-plugins CRD manifests, in the order they are read.
CRD_MANIFESTS = ("manifests/coscheduling/crd.yaml", "manifests/capacityscheduling/crd.yaml",
                 "manifests/noderesourcetopology/crd.yaml", "manifests/appgroup/crd.yaml",
                 "manifests/networktopology/crd.yaml")

_PREFIXES = (("io.k8s.apimachinery.pkg.apis.meta.", "meta."), ("io.k8s.apimachinery.pkg.", ""),
             ("io.k8s.api.", ""))
_SCALAR_TYPES = ("string", "integer", "number", "boolean")
_ANY = "any"


def gomodcache() -> Path:
    env = os.environ.get("GOMODCACHE")
    if env:
        return Path(env)
    try:
        out = subprocess.run(["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True).stdout.strip()
        if out:
            return Path(out)
    except (OSError, subprocess.CalledProcessError):
        pass
    return Path.home() / "go" / "pkg" / "mod"


def default_sources() -> tuple[Path, Path]:
    cache = gomodcache()
    return (cache / "k8s.io" / f"kubernetes@{KUBERNETES_VERSION}",
            cache / "sigs.k8s.io" / f"scheduler-plugins@{SCHEDULER_PLUGINS_VERSION}")


def wanted_kinds() -> dict[str, tuple[str, ...]]:
    """kind -> API groups kschedctl reads it from."""
    sys.path.insert(0, str(ROOT))
    from kschedctl.inputs.kinds import KINDS
    from kschedctl.inputs.workloads import WORKLOAD_KINDS

    kinds: dict[str, tuple[str, ...]] = {kind.kind: kind.groups for kind in KINDS}
    for kind, groups in WORKLOAD_KINDS.items():
        kinds[kind] = tuple(dict.fromkeys(kinds.get(kind, ()) + groups))
    return kinds


def short_name(name: str) -> str:
    for prefix, short in _PREFIXES:
        if name.startswith(prefix):
            return short + name[len(prefix):]
    return name


# --------------------------------------------------------------------------- OpenAPI v3


class _OpenAPI:
    """The component schemas of every spec file, and the types reachable from the wanted kinds."""

    def __init__(self, spec_dir: Path) -> None:
        self.schemas: dict[str, dict] = {}
        for path in sorted(glob.glob(str(spec_dir / "*.json"))):
            with open(path, encoding="utf-8") as f:
                self.schemas.update(json.load(f).get("components", {}).get("schemas", {}))
        self.types: dict[str, dict[str, str]] = {}

    def kinds(self, wanted: dict[str, tuple[str, ...]]) -> dict[str, str]:
        out: dict[str, str] = {}
        for name, schema in sorted(self.schemas.items()):
            for gvk in schema.get("x-kubernetes-group-version-kind", ()):
                kind, group = gvk.get("kind"), gvk.get("group", "")
                if group in wanted.get(kind, ()) and "properties" in schema:
                    api_version = f"{group}/{gvk['version']}" if group else gvk["version"]
                    out[f"{api_version}/{kind}"] = self.type_of(name)
        return out

    def type_of(self, name: str) -> str:
        """The reference for component ``name``, adding its type (and those it reaches) to ``types``."""
        schema = self.schemas[name]
        if "properties" not in schema:
            return self.ref(schema)
        short = short_name(name)
        if short not in self.types:
            fields: dict[str, str] = {}
            self.types[short] = fields
            for field, prop in sorted(schema["properties"].items()):
                fields[field] = self.ref(prop)
        return short

    def ref(self, schema: dict) -> str:
        if "$ref" in schema:
            return self.type_of(schema["$ref"].rsplit("/", 1)[-1])
        if len(schema.get("allOf", ())) == 1:
            return self.ref(schema["allOf"][0])
        if schema.get("x-kubernetes-preserve-unknown-fields"):
            return _ANY
        if schema.get("format") == "int-or-string" or schema.get("x-kubernetes-int-or-string"):
            return "int-or-string"
        one_of = sorted(s.get("type", "") for s in schema.get("oneOf", ()))
        if one_of == ["number", "string"]:
            return "quantity"
        kind = schema.get("type")
        if kind == "array":
            return "[]" + self.ref(schema.get("items", {}))
        if kind == "object":
            if isinstance(schema.get("additionalProperties"), dict):
                return "{}" + self.ref(schema["additionalProperties"])
            return _ANY  # runtime.RawExtension, FieldsV1: the Go type takes any JSON
        if kind in _SCALAR_TYPES:
            return kind
        raise ValueError(f"unexpected schema shape: {json.dumps(schema)[:200]}")


# --------------------------------------------------------------------------- CRDs


class _CRDs:
    """Structural schemas of CRD manifests, their nested objects named after their paths."""

    def __init__(self, types: dict[str, dict[str, str]]) -> None:
        self.types = types

    def read(self, manifest: Path, wanted: dict[str, tuple[str, ...]]) -> dict[str, str]:
        out: dict[str, str] = {}
        with open(manifest, encoding="utf-8") as f:
            docs = [d for d in yaml.safe_load_all(f) if isinstance(d, dict)]
        for crd in docs:
            if crd.get("kind") != "CustomResourceDefinition":
                continue
            spec = crd["spec"]
            kind, group = spec["names"]["kind"], spec["group"]
            groups = wanted.get(kind, ())
            if group not in groups:
                continue
            for version in spec["versions"]:
                if not version.get("served", True):
                    continue
                root = f"{group}/{version['name']}/{kind}"
                ref = self.object(version["schema"]["openAPIV3Schema"], root, top=True)
                # The older group names kschedctl also accepts carry the same objects.
                for alias in groups:
                    out[f"{alias}/{version['name']}/{kind}"] = ref
        return out

    def object(self, schema: dict, name: str, top: bool = False) -> str:
        fields: dict[str, str] = {}
        self.types[name] = fields
        for field, prop in sorted((schema.get("properties") or {}).items()):
            if top and field == "metadata":
                fields[field] = "meta.v1.ObjectMeta"  # the API server decodes it as ObjectMeta
            else:
                fields[field] = self.ref(prop, f"{name}.{field}")
        return name

    def ref(self, schema: dict, name: str) -> str:
        if schema.get("x-kubernetes-preserve-unknown-fields"):
            return _ANY
        if schema.get("x-kubernetes-int-or-string") or sorted(s.get("type", "") for s in schema.get("anyOf", ())) \
                == ["integer", "string"]:
            return "int-or-string"
        kind = schema.get("type")
        if kind == "array":
            return "[]" + self.ref(schema.get("items", {}), name + "[]")
        if kind == "object":
            if "properties" in schema:
                return self.object(schema, name)
            if isinstance(schema.get("additionalProperties"), dict):
                return "{}" + self.ref(schema["additionalProperties"], name + "{}")
            return self.object(schema, name)  # structural: no properties, no fields
        if kind in _SCALAR_TYPES:
            return kind
        raise ValueError(f"{name}: unexpected schema shape: {json.dumps(schema)[:200]}")


# --------------------------------------------------------------------------- the file


def build(kubernetes: Path, scheduler_plugins: Path) -> dict[str, Any]:
    spec_dir = kubernetes / "api" / "openapi-spec" / "v3"
    if not spec_dir.is_dir():
        raise SystemExit(f"{spec_dir}: no OpenAPI v3 spec (give --kubernetes, a k8s.io/kubernetes {KUBERNETES_VERSION} tree)")
    wanted = wanted_kinds()
    openapi = _OpenAPI(spec_dir)
    kinds = openapi.kinds(wanted)
    openapi.type_of("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
    crds = _CRDs(openapi.types)
    for manifest in CRD_MANIFESTS:
        kinds.update(crds.read(scheduler_plugins / manifest, wanted))
    missing = sorted(k for k, groups in wanted.items()
                     if not any(key.rsplit("/", 1)[-1] == k for key in kinds))
    if missing:
        raise SystemExit(f"no schema found for {', '.join(missing)}")
    return {
        "source": {
            "kubernetes": f"k8s.io/kubernetes {KUBERNETES_VERSION} api/openapi-spec/v3",
            "scheduler-plugins": f"sigs.k8s.io/scheduler-plugins {SCHEDULER_PLUGINS_VERSION} "
                                 + ", ".join(CRD_MANIFESTS),
            "generator": "tools/field_schema.py",
        },
        "kinds": dict(sorted(kinds.items())),
        "types": dict(sorted(openapi.types.items())),
    }


def build_served(kubernetes: Path) -> dict[str, Any]:
    """apiVersion -> the kinds it serves, from the operations of the OpenAPI v3 spec."""
    spec_dir = kubernetes / "api" / "openapi-spec" / "v3"
    if not spec_dir.is_dir():
        raise SystemExit(f"{spec_dir}: no OpenAPI v3 spec (give --kubernetes, a k8s.io/kubernetes {KUBERNETES_VERSION} tree)")
    served: dict[str, set[str]] = {}
    for path in sorted(glob.glob(str(spec_dir / "*.json"))):
        with open(path, encoding="utf-8") as f:
            spec = json.load(f)
        for item in spec.get("paths", {}).values():
            for operation in item.values():
                gvk = operation.get("x-kubernetes-group-version-kind") if isinstance(operation, dict) else None
                if gvk:
                    api_version = f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]
                    served.setdefault(api_version, set()).add(gvk["kind"])
    return {"source": {"kubernetes": f"k8s.io/kubernetes {KUBERNETES_VERSION} api/openapi-spec/v3 (operations)",
                       "generator": "tools/field_schema.py"},
            "served": {api_version: sorted(kinds) for api_version, kinds in sorted(served.items())}}


def dumps_served(data: dict[str, Any]) -> str:
    lines = ["{", f'"source": {json.dumps(data["source"])},', '"served": {']
    lines.append(",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in data["served"].items()))
    lines.append("}}")
    return "\n".join(lines) + "\n"


def dumps(data: dict[str, Any]) -> str:
    """One type per line: small, and a regenerated file diffs type by type."""
    lines = ["{", f'"source": {json.dumps(data["source"])},', '"kinds": {']
    lines.append(",\n".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in data["kinds"].items()))
    lines.append("},")
    lines.append('"types": {')
    lines.append(",\n".join(f"{json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}"
                            for k, v in data["types"].items()))
    lines.append("}}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    k8s_default, sp_default = default_sources()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kubernetes", type=Path, default=k8s_default,
                        help=f"a k8s.io/kubernetes {KUBERNETES_VERSION} tree (default: the Go module cache's)")
    parser.add_argument("--scheduler-plugins", type=Path, default=sp_default,
                        help=f"a sigs.k8s.io/scheduler-plugins {SCHEDULER_PLUGINS_VERSION} tree")
    parser.add_argument("--check", action="store_true", help="compare with the shipped file, do not write")
    parser.add_argument("--served-only", action="store_true", help="only served.json (needs only --kubernetes)")
    args = parser.parse_args(argv)
    served = dumps_served(build_served(args.kubernetes))
    if args.check and SERVED_OUT.read_text(encoding="utf-8") != served:
        print(f"{SERVED_OUT.relative_to(ROOT)} is not what {KUBERNETES_VERSION} gives: run python tools/field_schema.py",
              file=sys.stderr)
        return 1
    if not args.check:
        SERVED_OUT.write_text(served, encoding="utf-8")
        print(f"wrote {SERVED_OUT.relative_to(ROOT)} ({len(served):,} bytes)")
    if args.served_only:
        return 0
    text = dumps(build(args.kubernetes, args.scheduler_plugins))
    if args.check:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT.relative_to(ROOT)} is not what {KUBERNETES_VERSION} gives: run python tools/field_schema.py",
                  file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({len(text):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
