"""The public entry points of config: load, validate, default, render.

``load_config`` is what the other commands use; ``validate_file`` is ``kschedctl validate``;
``default_config_dict`` is ``kschedctl defaults``.
"""

from __future__ import annotations

import copy
from typing import Any, Mapping, Sequence

from kschedctl.config.decode import V1, Decoded, decode_text, read_text, removed_version_finding
from kschedctl.config.defaults import default_config, render_v1
from kschedctl.config.lines import line_for
from kschedctl.config.types import (
    ALL_POINTS,
    FieldError,
    KubeSchedulerConfiguration,
    PluginConfig,
    PluginRef,
    Plugins,
    PluginSet,
    Profile,
    ValidationResult,
)
from kschedctl.config.validation import validate_startup, validate_upstream
from kschedctl.errors import InputError

#: How many findings ``load_config``'s error message lists before "and N more".
_FIRST_FINDINGS = 3


class ConfigInvalidError(InputError):
    """A configuration kube-scheduler would refuse: exit 2 for commands that need a usable one."""

    def __init__(self, file: str, findings: list[FieldError]) -> None:
        # a did-you-mean is kschedctl's word, after upstream's message (as `validate` shows it)
        shown = "; ".join(str(f) + (f" ({f.hint})" if f.hint.startswith("did you mean") else "")
                          for f in findings[:_FIRST_FINDINGS])
        more = len(findings) - _FIRST_FINDINGS
        if more > 0:
            shown += f" (and {more} more; run kschedctl validate)"
        shown = shown.replace("\r", "\\r").replace("\n", "\\n")  # one line, whatever the keys hold
        super().__init__(f"invalid scheduler configuration: {shown}", file, findings[0].line if findings else None)
        self.findings = findings


def _plugin_set(ps: Mapping[str, Any] | None) -> PluginSet:
    ps = ps or {}
    return PluginSet(
        enabled=[PluginRef(str(p.get("name", "")), p.get("weight")) for p in ps.get("enabled") or []],
        disabled=[PluginRef(str(p.get("name", "")), p.get("weight")) for p in ps.get("disabled") or []],
    )


def build_config(doc: dict[str, Any], api_version: str = V1, source: str | None = None,
                 warnings: list[str] | None = None) -> KubeSchedulerConfiguration:
    """Dataclasses from a defaulted v1 dict (no validation)."""
    profiles = []
    for prof in doc.get("profiles") or []:
        plugins_doc = prof.get("plugins") or {}
        plugins = Plugins()
        for point in ALL_POINTS:
            ps = plugins.get(point)
            built = _plugin_set(plugins_doc.get(point))
            ps.enabled, ps.disabled = built.enabled, built.disabled
        profiles.append(Profile(
            scheduler_name=str(prof.get("schedulerName") or ""),
            percentage_of_nodes_to_score=prof.get("percentageOfNodesToScore"),
            plugins=plugins,
            plugin_config=[PluginConfig(str(pc.get("name", "")), pc.get("args")) for pc in prof.get("pluginConfig") or []],
        ))
    return KubeSchedulerConfiguration(
        parallelism=int(doc.get("parallelism") or 0),
        percentage_of_nodes_to_score=doc.get("percentageOfNodesToScore"),
        pod_initial_backoff_seconds=int(doc.get("podInitialBackoffSeconds") or 0),
        pod_max_backoff_seconds=int(doc.get("podMaxBackoffSeconds") or 0),
        profiles=profiles,
        extenders=list(doc.get("extenders") or []),
        api_version=api_version,
        raw=doc,
        source=source,
        warnings=list(warnings or []),
    )


def default_configuration() -> KubeSchedulerConfiguration:
    """The built-in configuration kube-scheduler runs with when given none."""
    return build_config(default_config({"apiVersion": V1, "kind": "KubeSchedulerConfiguration"}))


def _check(decoded: Decoded, allow_unknown_plugins: bool,
           extra_plugins: Mapping[str, Sequence[str]] | None, removed_versions_invalid: bool = False
           ) -> ValidationResult:
    result = ValidationResult(decoded.name, list(decoded.errors), list(decoded.warnings))
    refused = removed_version_finding(decoded) if removed_versions_invalid else None
    if refused is not None:
        # kube-scheduler stops at the decoding error; the findings of the converted file
        # still follow, so that one migration fixes everything at once.
        result.errors.insert(0, refused)
        result.warnings = [w for w in result.warnings if w.field != "apiVersion"]
    if decoded.errors:
        return result
    doc = default_config(copy.deepcopy(decoded.doc))
    cfg = build_config(doc, decoded.api_version, decoded.name, [w.message for w in decoded.warnings])
    errors = validate_upstream(doc, decoded.api_version)
    # Out-of-tree plugins kschedctl ships and loaded custom plugins are registered plugins too.
    from kschedctl.config.plugin_args import plugin_args_errors
    from kschedctl.plugins.registry import known_plugin_points

    extra_plugins = known_plugin_points(extra_plugins)
    written = decoded.doc.get("profiles")
    more, warnings = validate_startup(cfg, allow_unknown_plugins=allow_unknown_plugins, extra_plugins=extra_plugins,
                                      raw_profiles=written if isinstance(written, list) else None)
    more.extend(plugin_args_errors(cfg, extra_plugins))
    for f in errors + more + warnings:
        if f.line is None:
            f.line = line_for(decoded.lines, f.field)
    result.errors.extend(errors + more)
    result.warnings.extend(warnings)
    result.config = cfg
    return result


def validate_text(text: str, name: str, allow_unknown_plugins: bool = False,
                  extra_plugins: Mapping[str, Sequence[str]] | None = None,
                  removed_versions_invalid: bool = False) -> ValidationResult:
    """Like :func:`validate_file` on text already read.

    ``removed_versions_invalid`` is ``kschedctl validate``'s rule: a version kube-scheduler v1.34
    no longer serves is an error (the other commands convert it, with a warning).
    """
    return _check(decode_text(text, name), allow_unknown_plugins, extra_plugins, removed_versions_invalid)


def validate_file(path: str, allow_unknown_plugins: bool = False,
                  extra_plugins: Mapping[str, Sequence[str]] | None = None,
                  removed_versions_invalid: bool = False) -> ValidationResult:
    """Every finding in one configuration file. Raises InputError (exit 2) when it is not one."""
    return validate_text(read_text(path), path, allow_unknown_plugins, extra_plugins, removed_versions_invalid)


def load_config(path: str | None, extra_plugins: Mapping[str, Sequence[str]] | None = None,
                allow_unknown_plugins: bool = False) -> KubeSchedulerConfiguration:
    """The decoded, defaulted, validated configuration of ``path`` (None: the built-in default).

    Raises :class:`ConfigInvalidError` (exit code 2, naming the file and the first findings)
    when kube-scheduler would refuse it, InputError when it cannot be read at all.
    """
    if path is None:
        return default_configuration()
    result = validate_file(path, allow_unknown_plugins=allow_unknown_plugins, extra_plugins=extra_plugins)
    if result.errors or result.config is None:
        raise ConfigInvalidError(path, result.errors)
    return result.config


def default_config_dict(cfg: KubeSchedulerConfiguration) -> dict[str, Any]:
    """``cfg`` as ``kube-scheduler --write-config-to`` would print it (v1, keys sorted)."""
    return render_v1(cfg.raw)


def raw_config_text(text: str, name: str) -> dict[str, Any]:
    """What the user wrote in ``text``: the decoded v1-shaped dict, before any defaulting.

    Raises :class:`ConfigInvalidError` when decoding (schema, strict keys) found errors,
    InputError when the text is not a KubeSchedulerConfiguration at all.
    """
    decoded = decode_text(text, name)
    if decoded.errors:
        raise ConfigInvalidError(name, decoded.errors)
    return copy.deepcopy(decoded.doc)


def raw_config(path: str | None) -> dict[str, Any]:
    """Like :func:`raw_config_text` on the file ``path`` (None: an empty v1 configuration)."""
    if path is None:
        return {"apiVersion": V1, "kind": "KubeSchedulerConfiguration"}
    return raw_config_text(read_text(path), path)
