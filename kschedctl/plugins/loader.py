"""The custom-plugin loader: where custom plugins come from, and the checks they pass when loaded.

Two sources join the registry (``kschedctl.plugins.registry``, which also holds the built-in
and the out-of-tree plugins kschedctl ships):

- **entry points** of the ``kschedctl.plugins`` group (``importlib.metadata``): installed
  packages that register ``name = "package.module:Class"``;
- ``--plugin MODULE:ATTR`` or ``--plugin path/to/file.py:ATTR`` on the command line.

A custom plugin is checked when it is loaded, never mid-run (upstream's scheduler refuses to
start with a broken plugin, too): it must name itself (a non-empty ``name``), have at least
one extension-point method, spell its methods the kschedctl way (``filter``, not ``Filter``),
take the arguments each extension point passes, and, when it declares ``args_schema`` (a
JSON Schema for its ``pluginConfig`` args) or ``default_args``, these must be sound. Any
failure is a :class:`PluginLoadError` (exit code 2) naming ``module:Attr``.

``validate`` checks the args of every enabled out-of-tree or custom plugin against its
``args_schema`` and its own ``validate_args`` (upstream's args validators, for the ports),
reporting them under ``profiles[i].pluginConfig[j].args``; the helpers for those args live
here (``with_defaults``, ``validated``, ``args_errors``).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from kschedctl.errors import InputError
from kschedctl.framework.interfaces import EXTENSION_POINTS, extension_points_of as _points
from kschedctl.plugins.names import IN_TREE_PLUGINS
from kschedctl.plugins.out_of_tree import OUT_OF_TREE_PLUGINS

#: The entry-point group installed packages register their plugins under.
ENTRY_POINT_GROUP = "kschedctl.plugins"

ORIGIN_BUILTIN = "built-in"
ORIGIN_OUT_OF_TREE = "out-of-tree"
ORIGIN_CUSTOM = "custom"


class PluginLoadError(InputError):
    """A custom plugin that cannot be used: exit 2, naming ``module:Attr``."""

    def __init__(self, spec: str, message: str) -> None:
        super().__init__(f"plugin {spec}: {message}")
        self.spec = spec


@dataclass
class LoadedPlugin:
    """A plugin class that passed the load-time checks, and what ``kschedctl plugins`` shows of it."""

    name: str
    factory: Any
    spec: str
    origin: str = ORIGIN_CUSTOM
    points: tuple[str, ...] = ()
    args_schema: dict | None = None
    default_args: dict | None = None
    doc: str = ""
    source: str = field(default="")  # "--plugin", "entry point <dist>", "kschedctl"


# -- load-time checks ---------------------------------------------------------------------------

#: Positional arguments (besides self) each method receives from the runtime.
_ARITY: dict[str, int] = {
    "pre_enqueue": 1,
    "less": 2,
    "pre_filter": 3,
    "add_pod": 4,
    "remove_pod": 4,
    "filter": 3,
    "post_filter": 3,
    "pre_score": 3,
    "score": 3,
    "normalize_score": 3,
    "reserve": 3,
    "unreserve": 3,
    "permit": 3,
    "pre_bind": 3,
    "bind": 3,
    "post_bind": 3,
}

#: Go-style or camelCase spellings people carry over from upstream, and the right name.
_MISSPELLED: dict[str, str] = {}
for _method in _ARITY:
    _parts = _method.split("_")
    _go = "".join(p.capitalize() for p in _parts)
    _camel = _parts[0] + "".join(p.capitalize() for p in _parts[1:])
    for _wrong in (_go, _camel):
        if _wrong != _method:
            _MISSPELLED[_wrong] = _method


def _accepts(fn: Any, n: int) -> bool:
    """Whether ``fn`` (a bound method or function of a class, self excluded) takes ``n`` positional args."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # builtins without a signature: trust them
        return True
    params = list(sig.parameters.values())
    if params and params[0].name in ("self", "cls") and inspect.isfunction(fn):
        params = params[1:]
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return len([p for p in positional if p.default is p.empty]) <= n
    required = [p for p in positional if p.default is p.empty]
    return len(required) <= n <= len(positional)


def check_plugin(obj: Any, spec: str, origin: str = ORIGIN_CUSTOM, source: str = "") -> LoadedPlugin:
    """Run the load-time checks on a plugin class (or factory); raise PluginLoadError naming ``spec``."""
    if obj is None:
        raise PluginLoadError(spec, "is None")
    if not callable(obj):
        raise PluginLoadError(spec, f"is a {type(obj).__name__}, not a plugin class or factory")
    name = getattr(obj, "name", None)
    if not isinstance(name, str) or not name:
        raise PluginLoadError(spec, "has no name: set the class attribute `name = \"MyPlugin\"` "
                                    "(the name profiles enable it by)")
    if not _name_ok(name):
        raise PluginLoadError(spec, f"name {name!r} is not a valid plugin name (letters, digits, '-', '_', '.')")
    for wrong, right in _MISSPELLED.items():
        if callable(getattr(obj, wrong, None)) and not callable(getattr(obj, right, None)):
            raise PluginLoadError(spec, f"method {wrong}() is not an extension point: kschedctl calls {right}()")
    for method, n in _ARITY.items():
        fn = getattr(obj, method, None)
        if fn is None:
            continue
        if not callable(fn):
            raise PluginLoadError(spec, f"{method} is not a method")
        if not _accepts(fn, n):
            raise PluginLoadError(spec, f"{method}() must take {n} argument(s) besides self "
                                        f"({_signature_hint(method)})")
    if callable(getattr(obj, "normalize_score", None)) and not callable(getattr(obj, "score", None)):
        raise PluginLoadError(spec, "has normalize_score() but no score()")
    if callable(getattr(obj, "unreserve", None)) and not callable(getattr(obj, "reserve", None)):
        raise PluginLoadError(spec, "has unreserve() but no reserve()")
    points = tuple(_points(obj))
    if not points:
        raise PluginLoadError(spec, "implements no extension point (define e.g. filter() or score(); "
                                    "see kschedctl.framework.interfaces)")
    if inspect.isclass(obj) and not _accepts(obj.__init__, 2):
        raise PluginLoadError(spec, "must be constructed as Class(args, handle)")
    schema = getattr(obj, "args_schema", None)
    if schema is not None:
        if not isinstance(schema, dict):
            raise PluginLoadError(spec, "args_schema must be a JSON Schema (a dict)")
        try:
            import jsonschema

            jsonschema.validators.validator_for(schema).check_schema(schema)
        except Exception as exc:  # any schema error is the plugin's fault
            raise PluginLoadError(spec, f"args_schema is not a valid JSON Schema: {_first_line(exc)}") from None
    defaults = getattr(obj, "default_args", None)
    if defaults is not None:
        if not isinstance(defaults, dict):
            raise PluginLoadError(spec, "default_args must be a dict")
        problems = schema_errors(schema, defaults, "default_args") if schema else []
        if problems:
            raise PluginLoadError(spec, f"default_args do not match args_schema: {problems[0][2]}")
    doc = inspect.getdoc(obj) or ""
    return LoadedPlugin(name=name, factory=obj, spec=spec, origin=origin, points=points,
                        args_schema=schema, default_args=defaults, doc=doc, source=source)


def _name_ok(name: str) -> bool:
    return all(c.isalnum() or c in "-_." for c in name)


def _signature_hint(method: str) -> str:
    hints = {
        "pre_enqueue": "pod_info",
        "less": "queued_pod_info_a, queued_pod_info_b",
        "pre_filter": "state, pod_info, nodes",
        "add_pod": "state, pod_info, pod_info_to_add, node_info",
        "remove_pod": "state, pod_info, pod_info_to_remove, node_info",
        "filter": "state, pod_info, node_info",
        "post_filter": "state, pod_info, filtered_node_status",
        "pre_score": "state, pod_info, nodes",
        "score": "state, pod_info, node_info",
        "normalize_score": "state, pod_info, scores",
    }
    return hints.get(method, "state, pod_info, node_name")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


# -- loading ------------------------------------------------------------------------------------


def import_target(spec: str) -> Any:
    """The object ``spec`` names: ``package.module:Attr`` or ``path/to/file.py:Attr``."""
    target, sep, attr = spec.rpartition(":")
    if not sep or not target or not attr:
        raise PluginLoadError(spec, "expected MODULE:ATTR or path/to/file.py:ATTR")
    try:
        if target.endswith(".py"):
            path = Path(target)
            if not path.is_file():
                raise PluginLoadError(spec, f"no such file: {target}")
            module_name = f"kschedctl_custom_{path.stem}_{abs(hash(str(path.resolve()))) % 10**8}"
            module = sys.modules.get(module_name)
            if module is None:
                module_spec = importlib.util.spec_from_file_location(module_name, path)
                if module_spec is None or module_spec.loader is None:
                    raise PluginLoadError(spec, f"cannot load {target} as Python")
                module = importlib.util.module_from_spec(module_spec)
                # Registered before running it, so that dataclasses and pickling find the module.
                sys.modules[module_name] = module
                try:
                    module_spec.loader.exec_module(module)
                except BaseException:
                    sys.modules.pop(module_name, None)
                    raise
        else:
            module = importlib.import_module(target)
    except PluginLoadError:
        raise
    except Exception as exc:  # whatever the plugin's module raises, name it and stop cleanly
        raise PluginLoadError(spec, f"import failed: {type(exc).__name__}: {_first_line(exc)}") from None
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise PluginLoadError(spec, f"{target} has no attribute {attr}")
        obj = getattr(obj, part)
    return obj


def load_spec(spec: str) -> LoadedPlugin:
    """Import and check the plugin of a ``--plugin`` spec."""
    return check_plugin(import_target(spec), spec, ORIGIN_CUSTOM, "--plugin")


_ENTRY_POINT_CACHE: list[LoadedPlugin] | None = None


def load_entry_points(group: str = ENTRY_POINT_GROUP, *, refresh: bool = False) -> list[LoadedPlugin]:
    """Every plugin installed packages register under ``group``, checked (cached per process).

    The entry point's name must equal the plugin's ``name``; a mismatch is a load error, as two
    names for one plugin would make profiles ambiguous.
    """
    global _ENTRY_POINT_CACHE
    if _ENTRY_POINT_CACHE is not None and not refresh and group == ENTRY_POINT_GROUP:
        return _ENTRY_POINT_CACHE
    out: list[LoadedPlugin] = []
    found = _entry_points(group) if _may_declare(group) else ()
    for ep in sorted(found, key=lambda e: e.name):
        spec = ep.value
        try:
            obj = ep.load()
        except Exception as exc:
            raise PluginLoadError(spec, f"entry point {ep.name!r} ({group}) failed to load: "
                                        f"{type(exc).__name__}: {_first_line(exc)}") from None
        dist = getattr(getattr(ep, "dist", None), "name", "") or ""
        loaded = check_plugin(obj, spec, ORIGIN_CUSTOM, f"entry point{' of ' + dist if dist else ''}")
        if loaded.name != ep.name:
            raise PluginLoadError(spec, f"entry point {ep.name!r} names a plugin called {loaded.name!r}")
        out.append(loaded)
    if group == ENTRY_POINT_GROUP:
        _ENTRY_POINT_CACHE = out
    return out


def _entry_points(group: str) -> Any:
    from importlib.metadata import entry_points

    return entry_points(group=group)


def _may_declare(group: str) -> bool:
    """Whether an installed distribution may declare entry points of ``group``: False only when
    no ``entry_points.txt`` on the path so much as names it. importlib.metadata costs more to
    import (a tenth of a small run's start-up) than this look; it is asked whenever this cannot
    tell: a finder of distributions besides the path's own, a path entry that is no directory
    (a zip), an egg, a file that cannot be read."""
    import importlib.machinery

    for finder in sys.meta_path:
        if getattr(finder, "find_distributions", None) is not None and finder is not importlib.machinery.PathFinder:
            return True
    for entry in sys.path:
        directory = entry or "."
        try:
            with os.scandir(directory) as listing:
                names = [e.name for e in listing]
        except FileNotFoundError:
            continue  # importlib.metadata skips a missing path entry too
        except OSError:
            return True  # a zip file, a directory it may read and this may not
        for name in names:
            if name.endswith((".egg", ".egg-link")):
                return True
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(directory, name, "entry_points.txt"), "rb") as fh:
                    if group.encode() in fh.read():
                        return True
            except (FileNotFoundError, NotADirectoryError):
                continue  # no entry points (or an egg-info file: metadata only)
            except OSError:
                return True
    return False


#: Every custom plugin loaded in this process, by name (for args validation and `kschedctl plugins`).
_LOADED: dict[str, LoadedPlugin] = {}


def _remember(loaded: LoadedPlugin) -> LoadedPlugin:
    if loaded.name in OUT_OF_TREE_PLUGINS or _is_in_tree(loaded.name):
        raise PluginLoadError(loaded.spec, f"name {loaded.name!r} is already taken by a plugin kschedctl ships")
    previous = _LOADED.get(loaded.name)
    if previous is not None and previous.factory is not loaded.factory and previous.spec != loaded.spec:
        raise PluginLoadError(loaded.spec, f"name {loaded.name!r} is already used by {previous.spec}")
    _LOADED[loaded.name] = loaded
    return loaded


def forget_custom_plugins() -> None:
    """Drop every remembered custom plugin and the entry-point cache (tests, long-lived processes)."""
    global _ENTRY_POINT_CACHE
    _LOADED.clear()
    _ENTRY_POINT_CACHE = None


def _is_in_tree(name: str) -> bool:
    return name in IN_TREE_PLUGINS


def custom_plugins(specs: Iterable[str] = ()) -> list[LoadedPlugin]:
    """Entry-point plugins, then the ``--plugin`` specs, checked and remembered."""
    out = [_remember(p) for p in load_entry_points()]
    for spec in specs:
        out.append(_remember(load_spec(spec)))
    return out


def loaded_plugin(name: str) -> LoadedPlugin | None:
    """The custom plugin ``name`` loaded in this process (entry point or ``--plugin``), if any."""
    return _LOADED.get(name)


# -- args -----------------------------------------------------------------------------------------


def with_defaults(defaults: Mapping[str, Any] | None, args: Mapping[str, Any] | None) -> dict[str, Any]:
    """``args`` over a deep copy of ``defaults`` (top-level keys; ``apiVersion``/``kind`` dropped)."""
    import copy

    out: dict[str, Any] = copy.deepcopy(dict(defaults or {}))
    for key, value in (args or {}).items():
        if key in ("apiVersion", "kind"):
            continue
        out[key] = value
    return out


def given_args(args: Mapping[str, Any] | None) -> dict[str, Any]:
    """The args a user set: keys with a null value count as unset (their default applies)."""
    return {k: v for k, v in (args or {}).items() if v is not None}


def validated(plugin: Any, args: dict[str, Any]) -> dict[str, Any]:
    """``args`` (defaulted) when the plugin's ``validate_args`` finds nothing wrong; else an
    InputError naming the plugin and every problem, as upstream's validators would refuse them."""
    problems = plugin.validate_args(args)
    if problems:
        raise InputError(f"{plugin.name} args: " + "; ".join(f"{f}: {m}" for f, _, m in problems))
    return args


_SCHEMA_TYPES = {"required": "Required", "enum": "NotSupported", "const": "NotSupported",
                 "additionalProperties": "Invalid", "maxItems": "TooMany"}


def schema_errors(schema: dict | None, args: Any, path: str) -> list[tuple[str, str, str]]:
    """``(field, type, message)`` for each way ``args`` breaks ``schema`` (paths joined to ``path``)."""
    if not schema:
        return []
    import jsonschema

    cls = jsonschema.validators.validator_for(schema)
    out: list[tuple[str, str, str]] = []
    if args is None:
        args = {}  # no args validate as empty ones, as upstream's nil args
    data = {k: v for k, v in args.items() if k not in ("apiVersion", "kind")} if isinstance(args, dict) else args
    for err in sorted(cls(schema).iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path]):
        where = path
        for part in err.absolute_path:
            where = f"{where}[{part}]" if isinstance(part, int) else f"{where}.{part}"
        if err.validator == "required":
            missing = str(err.message).split("'")[1] if "'" in str(err.message) else ""
            if missing:
                where = f"{where}.{missing}"
            out.append((where, "Required", "Required value"))
            continue
        if err.validator == "additionalProperties" and err.validator_value is False and isinstance(err.instance, dict):
            # one finding per unknown key, worded as the config decoder words them (upstream's
            # strict decoding: unknown field)
            allowed = set((err.schema or {}).get("properties") or ())
            for key in sorted(k for k in err.instance if k not in allowed):
                out.append((f"{where}.{key}", "Invalid", f'unknown field "{where}.{key}"'))
            continue
        kind = _SCHEMA_TYPES.get(str(err.validator), "Invalid")
        label = {"Invalid": "Invalid value", "NotSupported": "Unsupported value", "TooMany": "Too many"}[kind]
        out.append((where, kind, f"{label}: {_go_value(err.instance)}: {err.message}"))
    return out


def _go_value(value: Any) -> str:
    import json

    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def args_errors(plugin: Any, args: Any, path: str) -> list[tuple[str, str, str]]:
    """What is wrong with ``args`` for ``plugin`` (a class): its schema, then its ``validate_args``.

    ``validate_args(args)`` (optional, a static or class method) returns ``(field, type, message)``
    triples with ``field`` relative to the args (upstream's validators, for the ports).
    """
    if args is not None and not isinstance(args, dict):
        return [(path, "Invalid", f"Invalid value: {_go_value(args)}: args must be an object")]
    out = schema_errors(getattr(plugin, "args_schema", None), args, path)
    validate = getattr(plugin, "validate_args", None)
    if callable(validate):
        defaults = getattr(plugin, "default_args", None)
        for fld, kind, message in validate(with_defaults(defaults, args)) or ():
            out.append((f"{path}.{fld}" if fld else path, kind, message))
    return out


def describe_points(points: Iterable[str]) -> list[str]:
    """Extension points in upstream spelling and pipeline order (``PreFilter``, ``Score``...)."""
    order = {p: k for k, p in enumerate(EXTENSION_POINTS)}
    return [p[0].upper() + p[1:] for p in sorted(set(points), key=lambda p: order.get(p, 99))]


__all__ = [
    "ENTRY_POINT_GROUP",
    "PluginLoadError",
    "LoadedPlugin",
    "check_plugin",
    "load_spec",
    "import_target",
    "load_entry_points",
    "custom_plugins",
    "loaded_plugin",
    "with_defaults",
    "schema_errors",
    "args_errors",
    "loaded_plugin_names",
]


def loaded_plugin_names() -> set[str]:
    """Names of the plugins loaded so far (entry points and ``--plugin``), for config validation."""
    return set(_LOADED)
