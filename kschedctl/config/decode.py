"""Decoding: text -> a v1-shaped dict, as kube-scheduler v1.34's strict decoder would read it.

Steps: safe YAML/JSON parsing with line numbers (:mod:`kschedctl.config.lines`); the
document must be a mapping of kind KubeSchedulerConfiguration in an accepted version
(else :class:`~kschedctl.errors.InputError`, exit 2); the JSON Schema of that version is
checked first (unknown fields, wrong types, Go integer ranges, durations: findings);
then ``v1beta3``/``v1beta2`` are converted to ``v1``. kube-scheduler v1.34 no longer
serves them (its scheme, ``pkg/scheduler/apis/config/scheme/scheme.go`` on release-1.34,
registers only ``v1``), so :func:`removed_version_finding` words its refusal and what changes
for ``validate``, while the other commands run the converted file with a warning. Older
versions are refused outright, naming the plugins a user has to migrate.
"""

from __future__ import annotations

import sys
from collections import deque
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable

from kschedctl.config import schema as schemas
from kschedctl.config.args import ARGS_KINDS, parse_duration
from kschedctl.config.lines import MAX_BYTES, Loaded, child, index, line_for, load_yaml
from kschedctl.config.schema.gate import conforms
from kschedctl.config.types import FieldError
from kschedctl.errors import InputError
from kschedctl.inputs import access

GROUP = "kubescheduler.config.k8s.io"
V1 = f"{GROUP}/v1"
KIND = "KubeSchedulerConfiguration"

#: Accepted versions -> the Kubernetes release that stopped serving them (None: current).
ACCEPTED: dict[str, str | None] = {
    V1: None,
    f"{GROUP}/v1beta3": "v1.29",
    f"{GROUP}/v1beta2": "v1.28",
}
#: Where kube-scheduler's strict decoder says which scheme refused a version (the scheme's
#: name is the file and line that created it, printed in every "no kind" decoding error).
SCHEME_NAME = "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme/scheme.go:30"

#: What moving a removed version to v1 changes, besides the apiVersion line. v1beta2's
#: default score weights (its default_plugins.go) were 1 for TaintToleration, NodeAffinity and
#: InterPodAffinity; v1beta3 and v1 give 3, 2 and 2. v1beta3 dropped the bind-address fields.
VERSION_CHANGES: dict[str, tuple[str, ...]] = {
    f"{GROUP}/v1beta2": (
        "default score weights change: TaintToleration 1 -> 3, NodeAffinity 1 -> 2, InterPodAffinity 1 -> 2 "
        "(set them in the file to keep the old balance)",
        "the default plugins are enabled through plugins.multiPoint instead of one list per extension point",
        "healthzBindAddress and metricsBindAddress no longer exist",
    ),
    f"{GROUP}/v1beta3": (
        "the fields and default weights of v1beta3 and v1 are the same: changing apiVersion is enough",
    ),
}

#: Versions refused outright, with the release that removed them where it is certain.
REFUSED: dict[str, str] = {
    f"{GROUP}/v1beta1": "removed in Kubernetes v1.23",
    f"{GROUP}/v1alpha2": "an alpha version of Kubernetes v1.18, long removed",
    f"{GROUP}/v1alpha1": "an alpha version of Kubernetes v1.16-v1.18, long removed",
}

def _is_duration(value: object) -> bool:
    if isinstance(value, str):
        parse_duration(value)
    return True


#: The formats the shipped schemas name, and their checks (raising ValueError when not met).
_FORMATS = {"go-duration": _is_duration}


@lru_cache(maxsize=None)
def _validator(version: str) -> Any:
    """The schema validator of ``version``: jsonschema is imported when a configuration file is
    first found that the schema gate (``schema/gate.py``) cannot vouch for."""
    import jsonschema

    formats = jsonschema.FormatChecker()
    for name, check in _FORMATS.items():
        formats.checks(name, raises=ValueError)(check)
    return jsonschema.Draft202012Validator(schemas.load(version), format_checker=formats)


@dataclass
class Decoded:
    """A decoded document: v1-shaped data (nulls dropped) plus what decoding found."""

    doc: dict[str, Any]
    api_version: str
    name: str
    lines: dict[str, int] = field(default_factory=dict)
    errors: list[FieldError] = field(default_factory=list)
    warnings: list[FieldError] = field(default_factory=list)
    #: The document as written (before nulls were dropped), for migration hints.
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


def read_text(path: str) -> str:
    """The text of ``path`` (``-`` reads stdin); InputError if it cannot be read."""
    try:
        if path == "-":
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:  # a text stream (tests, embedding): already decoded
                return sys.stdin.read()
            data = stream.read()
        else:
            with access.open_input(path) as fh:
                data = fh.read(MAX_BYTES + 1)  # never more: a device or a pipe has no end
            if len(data) > MAX_BYTES:
                raise InputError(f"file is larger than {MAX_BYTES // (1024 * 1024)} MiB", path)
    except OSError as exc:
        raise InputError(f"cannot read the file: {exc.strerror or exc}", path) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("the file is not UTF-8 text", path) from None


def _path_of(parts: Iterable[Any]) -> str:
    path = ""
    for part in parts:
        path = index(path, part) if isinstance(part, int) else child(path, str(part))
    return path


def _migration_report(doc: dict[str, Any]) -> str:
    from kschedctl.config.validation import MIGRATIONS

    found: list[str] = []

    def scan_plugins(plugins: Any) -> None:
        if not isinstance(plugins, dict):
            return
        for ps in plugins.values():
            if isinstance(ps, dict):
                for key in ("enabled", "disabled"):
                    for p in ps.get(key) or []:
                        if isinstance(p, dict) and p.get("name") in MIGRATIONS and p["name"] not in found:
                            found.append(p["name"])

    def scan_configs(configs: Any) -> None:
        for pc in configs or []:
            if isinstance(pc, dict) and pc.get("name") in MIGRATIONS and pc["name"] not in found:
                found.append(pc["name"])

    scan_plugins(doc.get("plugins"))
    scan_configs(doc.get("pluginConfig") if isinstance(doc.get("pluginConfig"), list) else None)
    for prof in doc.get("profiles") or [] if isinstance(doc.get("profiles"), list) else []:
        if isinstance(prof, dict):
            scan_plugins(prof.get("plugins"))
            scan_configs(prof.get("pluginConfig") if isinstance(prof.get("pluginConfig"), list) else None)
    if found:
        return "; plugins to migrate: " + "; ".join(f"{n} ({MIGRATIONS[n]})" for n in found)
    return "; no renamed or removed plugins are named in it"


def refusal(api_version: str) -> str:
    """kube-scheduler's own words when its decoder meets a version it does not serve."""
    return f'no kind "{KIND}" is registered for version "{api_version}" in scheme "{SCHEME_NAME}"'


def migration_hint(api_version: str, doc: dict[str, Any], name: str) -> str:
    """What changes when ``doc`` (of a removed version) becomes v1, and how to get the v1 file."""
    changes = list(VERSION_CHANGES.get(api_version, ()))
    plugins = _migration_report(doc)
    if "plugins to migrate" in plugins:
        changes.append(plugins.removeprefix("; "))
    shown = name if name != "-" else "FILE"
    return (f"rewrite it as {V1}: " + "; ".join(changes)
            + f". `kschedctl defaults {shown}` prints the v1 equivalent")


def removed_version_finding(decoded: "Decoded") -> FieldError | None:
    """The error ``validate`` reports for a version kube-scheduler v1.34 no longer serves."""
    removed_in = ACCEPTED.get(decoded.api_version)
    if not removed_in:
        return None
    return FieldError("apiVersion", "Invalid",
                      f"{refusal(decoded.api_version)} ({decoded.api_version} was removed in Kubernetes {removed_in})",
                      decoded.lines.get("apiVersion", 1),
                      hint=migration_hint(decoded.api_version, decoded.raw, decoded.name))


def _check_header(data: Any, name: str, loaded: Loaded) -> str:
    if not isinstance(data, dict):
        raise InputError(f"a KubeSchedulerConfiguration must be a mapping, not a {_kind_of(data)}", name, 1)
    api_version, kind = data.get("apiVersion"), data.get("kind")
    for key, value in (("kind", kind), ("apiVersion", api_version)):
        # Go's decoder reads both into strings: anything else is refused before the version is looked at.
        if value is not None and not isinstance(value, str):
            raise InputError(f"{key} must be a string, not {_short(value)}", name, loaded.lines.get(key, 1))
    if kind != KIND:
        line = loaded.lines.get("kind", 1)
        if kind is None:
            raise InputError("no kind: expected kind: KubeSchedulerConfiguration", name, line)
        raise InputError(f"kind {_short(kind)} is not KubeSchedulerConfiguration", name, line)
    line = loaded.lines.get("apiVersion", 1)
    if api_version in ACCEPTED:
        return str(api_version)
    if api_version in REFUSED:
        hint = ""
        if api_version == f"{GROUP}/v1alpha1":
            hint = "; move schedulerName, plugins and pluginConfig into profiles[]"
        raise InputError(f"{refusal(str(api_version))}: apiVersion {api_version} is {REFUSED[str(api_version)]}; "
                         f"rewrite the file as {V1}{hint}{_migration_report(data)}", name, line)
    if api_version is None:
        raise InputError(f"no apiVersion: expected {V1}", name, line)
    raise InputError(f"apiVersion {_short(api_version)} is not a version of KubeSchedulerConfiguration "
                     f"(expected {V1})", name, line)


def _kind_of(value: Any) -> str:
    if isinstance(value, list):
        return "list"
    if value is None:
        return "null document"
    return type(value).__name__ if not isinstance(value, str) else "string"


_TYPE_WORDS = {"integer": "an integer", "string": "a string", "boolean": "a boolean", "object": "an object",
               "array": "a list", "number": "a number", "null": "null"}


def _schema_findings(doc: dict[str, Any], version: str) -> list[FieldError]:
    if conforms(doc, schemas.load(version), _FORMATS):
        return []  # valid, as jsonschema would find it: it is neither imported nor asked
    validator = _validator(version)
    out: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    pending: deque[Any] = deque(validator.iter_errors(doc))
    while pending:
        err = pending.popleft()
        path = _path_of(err.absolute_path)
        if err.validator in ("allOf", "anyOf", "oneOf") and err.context:
            pending.extend(err.context)
            continue
        if err.validator == "additionalProperties":
            allowed = set((err.schema or {}).get("properties", {}))
            for key in err.instance:
                if key not in allowed:
                    fpath = child(path, key)
                    if (fpath, "unknown") not in seen:
                        seen.add((fpath, "unknown"))
                        out.append(FieldError(fpath, "Invalid", f'unknown field "{fpath}"'))
            continue
        if err.validator == "type":
            wanted = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
            words = " or ".join(_TYPE_WORDS.get(w, w) for w in wanted if w != "null")
            msg = f"Invalid value: {_short(err.instance)}: must be {words}"
        elif err.validator in ("minimum", "maximum"):
            bits = 32 if abs(int(err.validator_value)) < 2**32 else 64
            msg = f"Invalid value: {_short(err.instance)}: out of range for a {bits}-bit integer"
        elif err.validator == "format":
            msg = f'Invalid value: {_short(err.instance)}: time: invalid duration "{err.instance}"'
        else:
            msg = f"Invalid value: {_short(err.instance)}: {err.message}"
        if (path, msg) not in seen:
            seen.add((path, msg))
            out.append(FieldError(path, "Invalid", msg))
    return out


def _short(value: Any) -> str:
    from kschedctl.k8s.field import render_value

    text = render_value(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _normalize(value: Any) -> Any:
    # Go reads null as "unset" and whole floats into integer fields.
    if isinstance(value, dict):
        return {k: _normalize(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_normalize(v) for v in value]
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    return value


def _args_kind_findings(doc: dict[str, Any]) -> list[FieldError]:
    out = []
    for i, prof in enumerate(doc.get("profiles") or []):
        for j, pc in enumerate(prof.get("pluginConfig") or []):
            name = pc.get("name") or ""
            args = pc.get("args")
            if name not in ARGS_KINDS or not isinstance(args, dict):
                continue
            kind = args.get("kind")
            api_version = args.get("apiVersion") or V1
            group = api_version.split("/")[0] if "/" in api_version else ""
            want = ARGS_KINDS[name][0]
            if (kind and kind != want) or group != GROUP:
                got = f"{kind or want}.{group}" if group else str(kind or want)
                out.append(FieldError(f"profiles[{i}].pluginConfig[{j}].args", "Invalid",
                                      f"args for plugin {name} were not of type {want}.{GROUP}, got {got}"))
    return out


def decode_text(text: str, name: str) -> Decoded:
    """Decode one configuration document; InputError when it is not one at all."""
    loaded = load_yaml(text, name)
    api_version = _check_header(loaded.data, name, loaded)
    version = api_version.rsplit("/", 1)[1]
    raw: dict[str, Any] = loaded.data
    errors: list[FieldError] = []
    for path, line in loaded.duplicates:
        key = path.rsplit(".", 1)[-1]
        errors.append(FieldError(path, "Duplicate", f'key "{key}" already set in map', line))
    errors.extend(_schema_findings(raw, version))
    doc = _normalize(raw) if not errors else {}
    warnings: list[FieldError] = []
    if not errors:
        errors.extend(_args_kind_findings(doc))
    removed_in = ACCEPTED[api_version]
    if removed_in:
        shown = name if name != "-" else "FILE"
        warnings.append(FieldError(
            "apiVersion", "Invalid",
            f"kube-scheduler v1.34 refuses {api_version} (removed in Kubernetes {removed_in}); converted to {V1} "
            f"for this run; `kschedctl defaults {shown}` prints the v1 equivalent",
            loaded.lines.get("apiVersion"), hint=f"change apiVersion to {V1}"))
        for key in ("healthzBindAddress", "metricsBindAddress"):
            if key in doc:
                warnings.append(FieldError(key, "Invalid", f"{key} does not exist in {V1}; ignored",
                                           loaded.lines.get(key)))
                doc.pop(key)
    for e in errors + warnings:
        if e.line is None:
            e.line = line_for(loaded.lines, e.field)
    errors.sort(key=lambda e: (e.line or 0))
    doc["apiVersion"] = V1
    return Decoded(doc, api_version, name, loaded.lines, errors, warnings, raw=raw)
