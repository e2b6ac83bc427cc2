"""Custom plugins: loading (module, file, entry point), load-time checks, args, containment."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from kschedctl.config.api import validate_text
from kschedctl.framework.status import Code
from kschedctl.plugins import loader
from kschedctl.plugins.loader import PluginLoadError, check_plugin, load_spec
from kschedctl.plugins import registry as plugin_registry
from kschedctl.plugins.out_of_tree import OUT_OF_TREE_EXTENSION_POINTS, OUT_OF_TREE_PLUGINS
from kschedctl.plugins.registry import Registry
from tests.cli.helpers import run_cli

GOOD = '''
from kschedctl.framework.interfaces import Plugin
from kschedctl.framework.status import Code, Status

class Good(Plugin):
    """Filters out nodes labelled bad=true."""
    name = "Good"
    args_schema = {"type": "object", "properties": {"limit": {"type": "integer", "minimum": 1}},
                   "additionalProperties": False}
    default_args = {"limit": 3}

    def filter(self, state, pod_info, node_info):
        if node_info.labels.get("bad") == "true":
            return Status(Code.Unschedulable, "node is bad")
        return None

    def score(self, state, pod_info, node_info):
        return 7, None

class Raises(Plugin):
    name = "Raises"
    def filter(self, state, pod_info, node_info):
        raise RuntimeError("boom")
'''

HEAD = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"


@pytest.fixture(autouse=True)
def _fresh_loader():
    loader.forget_custom_plugins()
    yield
    loader.forget_custom_plugins()


@pytest.fixture
def plugin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "my_plugins.py").write_text(GOOD)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("my_plugins", None)


def test_load_by_module(plugin_dir: Path) -> None:
    loaded = load_spec("my_plugins:Good")
    assert (loaded.name, loaded.points, loaded.default_args) == ("Good", ("filter", "score"), {"limit": 3})
    assert loaded.doc.startswith("Filters out")


def test_load_by_file(plugin_dir: Path) -> None:
    loaded = load_spec(f"{plugin_dir / 'my_plugins.py'}:Good")
    assert loaded.name == "Good" and loaded.origin == "custom"


def test_load_by_entry_point(plugin_dir: Path) -> None:
    dist = plugin_dir / "my_plugins-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-plugins\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[kschedctl.plugins]\nGood = my_plugins:Good\n")
    loaded = loader.load_entry_points(refresh=True)
    assert [p.name for p in loaded] == ["Good"]
    registry = Registry()
    assert registry.origin("Good") == "custom" and registry.points_of("Good") == ("filter", "score")
    # An installed plugin counts as registered for validate without --plugin.
    result = validate_text(HEAD + "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: Good\n",
                           "cfg.yaml")
    assert result.valid, result.errors


def test_entry_point_name_must_match(plugin_dir: Path) -> None:
    dist = plugin_dir / "bad-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: bad\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[kschedctl.plugins]\nOther = my_plugins:Good\n")
    with pytest.raises(PluginLoadError, match="entry point 'Other' names a plugin called 'Good'"):
        loader.load_entry_points(refresh=True)


def _dist(root: Path, name: str, entry_points: str | None) -> None:
    root.mkdir(exist_ok=True)
    (root / name).mkdir()
    if entry_points is not None:
        (root / name / "entry_points.txt").write_text(entry_points)


# (case, how the path is laid out, whether importlib.metadata must be asked)
MAY_DECLARE = [
    ("nothing installed", lambda d: d.mkdir(), False),
    ("other groups only", lambda d: _dist(d, "other-1.0.dist-info", "[console_scripts]\nx = y:z\n"), False),
    ("no entry points", lambda d: _dist(d, "other-1.0.dist-info", None), False),
    ("a dist-info naming the group", lambda d: _dist(d, "mine-1.0.dist-info", "[kschedctl.plugins]\nA = m:A\n"), True),
    ("an egg-info naming the group", lambda d: _dist(d, "mine.egg-info", "[kschedctl.plugins]\nA = m:A\n"), True),
    ("spaced header", lambda d: _dist(d, "mine-1.0.dist-info", "[ kschedctl.plugins ]\nA = m:A\n"), True),
    ("an egg", lambda d: (d.mkdir(), (d / "mine-1.0-py3.11.egg").mkdir()), True),
    ("a zip on the path", lambda d: d.write_bytes(b"PK\x05\x06" + b"\x00" * 18), True),
    ("a missing path entry", lambda d: None, False),
]


@pytest.mark.parametrize("case,layout,expected", MAY_DECLARE, ids=[c[0] for c in MAY_DECLARE])
def test_importlib_metadata_is_asked_whenever_an_entry_point_may_exist(
        case: str, layout: Any, expected: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    entry = tmp_path / "site"
    layout(entry)
    monkeypatch.setattr(sys, "path", [str(entry)])
    assert loader._may_declare(loader.ENTRY_POINT_GROUP) is expected


def test_another_finder_of_distributions_is_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Finder:
        def find_spec(self, *args: Any) -> None:
            return None

        def find_distributions(self, *args: Any) -> list:
            return []

    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    assert not loader._may_declare(loader.ENTRY_POINT_GROUP)
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder()])
    assert loader._may_declare(loader.ENTRY_POINT_GROUP)


class _NoName:
    def filter(self, state, pod_info, node_info): ...


class _GoStyle:
    name = "GoStyle"

    def Filter(self, state, pod, node_info): ...


class _WrongArity:
    name = "WrongArity"

    def score(self, pod_info, node_info): ...


class _NothingToDo:
    name = "Nothing"


class _NormalizeOnly:
    name = "NormalizeOnly"

    def normalize_score(self, state, pod_info, scores): ...


class _BadSchema:
    name = "BadSchema"
    args_schema = {"type": "no-such-type"}

    def filter(self, state, pod_info, node_info): ...


@pytest.mark.parametrize("obj, message", [
    (_NoName, "has no name"),
    (_GoStyle, "method Filter() is not an extension point: kschedctl calls filter()"),
    (_WrongArity, "score() must take 3 argument(s) besides self (state, pod_info, node_info)"),
    (_NothingToDo, "implements no extension point"),
    (_NormalizeOnly, "has normalize_score() but no score()"),
    (_BadSchema, "args_schema is not a valid JSON Schema"),
], ids=["Loader_no name", "Loader_go style", "Loader_wrong arity", "Loader_no point", "Loader_normalize only",
        "Loader_bad schema"])
def test_broken_plugins_fail_at_load(obj: type, message: str) -> None:
    with pytest.raises(PluginLoadError) as err:
        check_plugin(obj, "pkg.mod:Attr")
    assert str(err.value).startswith("plugin pkg.mod:Attr: ") and message in str(err.value)
    assert err.value.exit_code == 2


@pytest.mark.parametrize("spec, message", [
    ("no_colon", "expected MODULE:ATTR"),
    ("no_such_module_xyz:Thing", "import failed: ModuleNotFoundError"),
    ("/no/such/file.py:Thing", "no such file"),
], ids=["Loader_no colon", "Loader_missing module", "Loader_missing file"])
def test_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(PluginLoadError, match=message):
        load_spec(spec)


def test_missing_attribute(plugin_dir: Path) -> None:
    with pytest.raises(PluginLoadError, match="my_plugins has no attribute Nope"):
        load_spec("my_plugins:Nope")


def test_name_of_a_shipped_plugin_is_refused(tmp_path: Path) -> None:
    (tmp_path / "dup.py").write_text("class X:\n    name = 'QOSSort'\n    def less(self, a, b): return False\n")
    with pytest.raises(PluginLoadError, match="already taken"):
        loader.custom_plugins([f"{tmp_path / 'dup.py'}:X"])


def test_args_are_validated_under_the_plugin_config_path(plugin_dir: Path) -> None:
    extra = dict(plugin_registry.extension_points_of_specs(["my_plugins:Good"]))
    body = ("profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: Good\n"
            "  pluginConfig:\n  - name: Good\n    args:\n      limit: 0\n      colour: red\n")
    result = validate_text(HEAD + body, "cfg.yaml", extra_plugins=extra)
    found = [(e.field, e.type) for e in result.errors]
    assert found == [("profiles[0].pluginConfig[0].args.colour", "Invalid"),
                     ("profiles[0].pluginConfig[0].args.limit", "Invalid")]
    assert result.errors[0].line == 12
    assert result.errors[1].line == 11


def test_out_of_tree_args_use_upstream_validators() -> None:
    body = ("profiles:\n- plugins:\n    score:\n      enabled:\n      - name: NodeResourcesAllocatable\n"
            "  pluginConfig:\n  - name: NodeResourcesAllocatable\n    args:\n      mode: Median\n"
            "      resources:\n      - name: cpu\n        weight: 0\n")
    result = validate_text(HEAD + body, "cfg.yaml")
    assert [(e.field, e.message) for e in result.errors] == [
        ("profiles[0].pluginConfig[0].args.resources[0].weight",
         "Invalid value: 0: resource weight of cpu should be a positive value, got :0"),
        ("profiles[0].pluginConfig[0].args.mode", 'Invalid value: "Median": invalid support ModeType'),
    ]


def test_out_of_tree_plugins_are_known_without_plugin_option() -> None:
    body = "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: Coscheduling\n" \
           "    queueSort:\n      enabled:\n      - name: Coscheduling\n      disabled:\n      - name: '*'\n"
    assert validate_text(HEAD + body, "cfg.yaml").valid
    registry = Registry()
    assert registry.origin("Coscheduling") == "out-of-tree" and registry.origin("NodeName") == "built-in"
    assert registry.points_of("CapacityScheduling") == ("preFilter", "postFilter", "reserve")


def test_shipped_points_match_the_classes() -> None:
    for name in OUT_OF_TREE_PLUGINS:
        info = plugin_registry.plugin_info(name)
        assert info is not None and info.points == OUT_OF_TREE_EXTENSION_POINTS[name], name


def test_a_raising_plugin_is_contained(plugin_dir: Path, tmp_path: Path) -> None:
    """The plugin's Filter raises: its status is Error naming the plugin and the exception; the
    report still renders (exit 1, JSON with the Error outcome)."""
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(textwrap.dedent("""\
        apiVersion: v1
        kind: Node
        metadata: {name: n1}
        status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
        """))
    pod = tmp_path / "pod.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: c, image: nginx}]\n")
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(HEAD + "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: Raises\n")
    res = run_cli("explain", "--plugin", f"{plugin_dir / 'my_plugins.py'}:Raises", "-c", str(cfg), "--cluster", str(cluster),
                  str(pod), "-o", "json")
    assert res.exit_code == 1, res.stderr
    import json

    data = json.loads(res.stdout)
    assert data["outcome"] == "Error"
    assert "Raises" in data["message"] and "RuntimeError" in data["message"] and "boom" in data["message"]
    filters = {f["plugin"]: f for f in data["nodes"][0]["filters"]}
    assert filters["Raises"]["code"] == "Error"
    # The table renders too.
    assert run_cli("explain", "--plugin", f"{plugin_dir / 'my_plugins.py'}:Raises", "-c", str(cfg), "--cluster",
                   str(cluster), str(pod)).exit_code == 1


def test_validate_cli_with_plugin_option(plugin_dir: Path, tmp_path: Path) -> None:
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(HEAD + "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: Good\n")
    assert run_cli("validate", str(cfg)).exit_code == 1
    assert run_cli("validate", "--plugin", "my_plugins:Good", str(cfg)).exit_code == 0
    broken = run_cli("validate", "--plugin", "my_plugins:Nope", str(cfg))
    assert broken.exit_code == 2 and "my_plugins:Nope" in broken.stderr


def test_no_entry_point_named_no_importlib_metadata(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    monkeypatch.setattr(loader, "_entry_points", lambda group: pytest.fail("importlib.metadata asked"))
    assert loader.load_entry_points(refresh=True) == []
