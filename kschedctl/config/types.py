"""The effective KubeSchedulerConfiguration as plain dataclasses, and validation findings.

Everything here is already decoded, converted to ``kubescheduler.config.k8s.io/v1`` and
defaulted: the runtime builds frameworks from it without knowing about YAML or versions.
Field names follow upstream's internal types (pkg/scheduler/apis/config/types.go), in Python
spelling; plugin args stay the v1 YAML dicts (camelCase keys) the plugins are built from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kschedctl.framework.interfaces import EXTENSION_POINTS
from kschedctl.k8s.field import FieldError  # noqa: F401  (config's findings are field errors)

#: Extension points in config spelling, in the order of upstream's v1 ``Plugins`` type
#: (and of the scheduling pipeline); ``multiPoint`` is last because it expands into the others.
MULTI_POINT = "multiPoint"
ALL_POINTS: tuple[str, ...] = EXTENSION_POINTS + (MULTI_POINT,)

#: config spelling -> Python attribute of :class:`Plugins`.
_ATTR = {
    "preEnqueue": "pre_enqueue",
    "queueSort": "queue_sort",
    "preFilter": "pre_filter",
    "filter": "filter",
    "postFilter": "post_filter",
    "preScore": "pre_score",
    "score": "score",
    "reserve": "reserve",
    "permit": "permit",
    "preBind": "pre_bind",
    "bind": "bind",
    "postBind": "post_bind",
    "multiPoint": "multi_point",
}


@dataclass
class PluginRef:
    """A plugin named in a PluginSet; ``weight`` is None when the file does not set it."""

    name: str
    weight: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name}
        if self.weight is not None:
            out["weight"] = self.weight
        return out


@dataclass
class PluginSet:
    """Enabled and disabled plugins of one extension point, after upstream's merge with defaults."""

    enabled: list[PluginRef] = field(default_factory=list)
    disabled: list[PluginRef] = field(default_factory=list)

    def enabled_names(self) -> list[str]:
        return [p.name for p in self.enabled]

    def disabled_names(self) -> set[str]:
        return {p.name for p in self.disabled}


@dataclass
class Plugins:
    """One :class:`PluginSet` per extension point (attributes in Python spelling)."""

    multi_point: PluginSet = field(default_factory=PluginSet)
    pre_enqueue: PluginSet = field(default_factory=PluginSet)
    queue_sort: PluginSet = field(default_factory=PluginSet)
    pre_filter: PluginSet = field(default_factory=PluginSet)
    filter: PluginSet = field(default_factory=PluginSet)
    post_filter: PluginSet = field(default_factory=PluginSet)
    pre_score: PluginSet = field(default_factory=PluginSet)
    score: PluginSet = field(default_factory=PluginSet)
    reserve: PluginSet = field(default_factory=PluginSet)
    permit: PluginSet = field(default_factory=PluginSet)
    pre_bind: PluginSet = field(default_factory=PluginSet)
    bind: PluginSet = field(default_factory=PluginSet)
    post_bind: PluginSet = field(default_factory=PluginSet)

    def get(self, point: str) -> PluginSet:
        """The PluginSet of ``point`` in config spelling (``"preFilter"``, ``"multiPoint"``...)."""
        try:
            return getattr(self, _ATTR[point])
        except KeyError:
            raise KeyError(f"unknown extension point {point!r}") from None


@dataclass
class PluginConfig:
    """Args of one plugin: the defaulted v1 dict (camelCase keys), or None when none were given."""

    name: str
    args: dict[str, Any] | None = None


@dataclass
class Profile:
    """A scheduling profile, defaulted as upstream defaults it."""

    scheduler_name: str
    percentage_of_nodes_to_score: int | None = None
    plugins: Plugins = field(default_factory=Plugins)
    plugin_config: list[PluginConfig] = field(default_factory=list)

    def args_for(self, name: str) -> dict[str, Any] | None:
        """The args of plugin ``name`` (the first pluginConfig entry naming it), or None."""
        for pc in self.plugin_config:
            if pc.name == name:
                return pc.args
        return None


@dataclass
class KubeSchedulerConfiguration:
    """The whole configuration after decoding, conversion to v1 and defaulting.

    ``percentage_of_nodes_to_score`` is 0 after defaulting (upstream's adaptive default);
    ``raw`` is the defaulted v1 document the dataclasses were built from, ``source`` the file
    it came from (None for the built-in default), ``warnings`` what decoding had to say
    (for example a removed API version that was converted).
    """

    parallelism: int = 16
    percentage_of_nodes_to_score: int | None = 0
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10
    profiles: list[Profile] = field(default_factory=list)
    extenders: list[dict[str, Any]] = field(default_factory=list)
    api_version: str = "kubescheduler.config.k8s.io/v1"
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
    source: str | None = None
    warnings: list[str] = field(default_factory=list)

    def profile(self, scheduler_name: str) -> Profile | None:
        """The profile with that scheduler name, or None."""
        for p in self.profiles:
            if p.scheduler_name == scheduler_name:
                return p
        return None


#: Upstream field.ErrorType names as the contract spells them, with the text upstream prints.
ERROR_TYPES: dict[str, str] = {
    "Required": "Required value",
    "Invalid": "Invalid value",
    "Duplicate": "Duplicate value",
    "NotSupported": "Unsupported value",
    "Forbidden": "Forbidden",
    "TooMany": "Too many",
    "NotFound": "Not found",
}


@dataclass
class ValidationResult:
    """What ``kschedctl validate`` found in one file; ``to_dict()`` is the contract's JSON."""

    file: str
    errors: list[FieldError] = field(default_factory=list)
    warnings: list[FieldError] = field(default_factory=list)
    config: KubeSchedulerConfiguration | None = field(default=None, repr=False)
    #: The file could not be read or parsed as a configuration at all (its one error says why).
    unreadable: bool = False

    @property
    def valid(self) -> bool:
        return not self.errors

    @classmethod
    def of_unreadable(cls, file: str, message: str, line: int | None) -> "ValidationResult":
        """The entry of a file that is not a readable KubeSchedulerConfiguration."""
        return cls(file, [FieldError("", "Invalid", message, line)], unreadable=True)

    def to_dict(self) -> dict[str, Any]:
        out = {
            "kind": "ValidationResult",
            "file": self.file,
            "valid": self.valid,
            "errors": [e.to_dict() for e in self.errors],
            "warnings": [w.to_dict() for w in self.warnings],
        }
        if self.unreadable:
            out["unreadable"] = True
        return out
