"""KubeSchedulerConfiguration in, effective profiles out: decode, defaults, validation.

Public names (imported lazily, so that importing ``kschedctl.config`` stays cheap):
``load_config``, ``validate_file``, ``validate_text``, ``default_config_dict``,
``default_configuration``, ``expand_plugins``, ``validate_config``, ``ConfigInvalidError``
and the dataclasses of :mod:`kschedctl.config.types`.
"""

from __future__ import annotations

from typing import Any

from kschedctl.config.types import (
    ALL_POINTS,
    EXTENSION_POINTS,
    FieldError,
    KubeSchedulerConfiguration,
    PluginConfig,
    PluginRef,
    Plugins,
    PluginSet,
    Profile,
    ValidationResult,
)

_LAZY = {
    "load_config": "kschedctl.config.api",
    "validate_file": "kschedctl.config.api",
    "validate_text": "kschedctl.config.api",
    "default_config_dict": "kschedctl.config.api",
    "default_configuration": "kschedctl.config.api",
    "build_config": "kschedctl.config.api",
    "ConfigInvalidError": "kschedctl.config.api",
    "expand_plugins": "kschedctl.config.expand",
    "validate_config": "kschedctl.config.validation",
}

__all__ = [
    "ALL_POINTS", "EXTENSION_POINTS", "FieldError", "KubeSchedulerConfiguration", "PluginConfig", "PluginRef",
    "Plugins", "PluginSet", "Profile", "ValidationResult", *_LAZY,
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kschedctl.config' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
