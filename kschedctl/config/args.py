"""Defaults and validation of every in-tree plugin's args (v1.34), on v1 dicts.

Each plugin declares its args kind with upstream's ``SetDefaults_<Kind>`` and ``Validate<Kind>``
(``PluginFacts.args``: pkg/scheduler/apis/config/v1/defaults.go and
pkg/scheduler/apis/config/validation/validation_pluginargs.go, with feature gates at their
v1.34 defaults); this module is the table config decoding, defaulting and validation read.

Args are plain dicts with camelCase keys, already checked against the JSON schema, so types
are right; a missing key means Go's zero value. Validators take a ``path`` (``""`` for
upstream's nil path) and return :class:`FieldError` lists with upstream's field paths.
"""

from __future__ import annotations

from typing import Any, Callable

from kschedctl.config.types import FieldError
from kschedctl.k8s.duration import parse_go_duration
from kschedctl.plugins.registry import builtin_facts

V1 = "kubescheduler.config.k8s.io/v1"


def parse_duration(text: str) -> float:
    """Seconds in a Go duration string; ValueError with Go's message if not one (k8s.duration)."""
    return parse_go_duration(text.strip())


ArgsFn = Callable[[dict[str, Any]], None]
ValidateFn = Callable[[str, dict[str, Any]], list[FieldError]]

#: Args kinds registered in kubescheduler.config.k8s.io/v1 (v1.34), by plugin name: what the
#: plugins declare (``PluginFacts.args``).
ARGS_KINDS: dict[str, tuple[str, ArgsFn, ValidateFn]] = dict(sorted({
    name: (facts.args.kind, facts.args.defaults, facts.args.validate)
    for name, facts in builtin_facts().items() if facts.args is not None
}.items()))

#: Plugins whose args ValidateKubeSchedulerConfiguration checks (``ArgsFacts.checked_by_config``).
CONFIG_VALIDATED = frozenset(name for name, facts in builtin_facts().items()
                             if facts.args is not None and facts.args.checked_by_config)


def default_args(plugin: str, args: dict[str, Any] | None) -> dict[str, Any] | None:
    """Defaulted copy-in-place of ``args`` for an in-tree plugin with an args kind; others untouched."""
    spec = ARGS_KINDS.get(plugin)
    if spec is None or args is None:
        return args
    kind, fn, _ = spec
    fn(args)
    return args


def new_default_args(plugin: str) -> dict[str, Any] | None:
    """Defaulted args (with apiVersion and kind) for a plugin that has an args kind, else None."""
    spec = ARGS_KINDS.get(plugin)
    if spec is None:
        return None
    kind, fn, _ = spec
    args: dict[str, Any] = {"apiVersion": V1, "kind": kind}
    fn(args)
    return args


def validate_args(plugin: str, path: str, args: dict[str, Any] | None) -> list[FieldError]:
    """Upstream's validator for ``plugin``'s args (nil args validate as the zero value)."""
    spec = ARGS_KINDS.get(plugin)
    if spec is None:
        return []
    return spec[2](path, args or {})
