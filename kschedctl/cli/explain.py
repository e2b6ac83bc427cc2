"""``kschedctl explain POD...``: where would these pods land, and why."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from kschedctl.cli.app import app
from kschedctl.cli.options import (
    AllFiltersOption,
    ClusterOption,
    ConfigOption,
    ContextOption,
    KubeconfigOption,
    OutputFormat,
    OutputOption,
    PluginOption,
    ProfileOption,
    QuietOption,
    SeedOption,
)


@app.command()
def explain(
    pods: Annotated[list[str], typer.Argument(help="Pod or workload files (YAML/JSON; '-' for stdin).",
                                              metavar="POD")],
    config: ConfigOption = None,
    cluster: ClusterOption = None,
    kubeconfig: KubeconfigOption = None,
    context: ContextOption = None,
    profile: ProfileOption = None,
    output: OutputOption = OutputFormat.table,
    seed: SeedOption = None,
    all_filters: AllFiltersOption = False,
    plugin: PluginOption = None,
    wide: Annotated[bool, typer.Option("--wide", help="Show every node, however many.")] = False,
    node: Annotated[Optional[str], typer.Option("--node", help="Show everything about one node.")] = None,
    no_extenders: Annotated[bool, typer.Option(
        "--no-extenders", help="Do not call the configuration's extenders (they are called over HTTP(S) by "
                               "default, as kube-scheduler calls them).")] = False,
    quiet: QuietOption = False,
) -> None:
    """Run each pod through the profile's extension points and show, per node and plugin, the
    filter verdicts, the scores and the chosen node (or why none). Exit 0 when every pod would
    be scheduled, 1 when any would not."""
    # The core is imported here, not at module level, so that `kschedctl --help` stays fast.
    from kschedctl.errors import EXIT_NO, EXIT_OK, UsageError

    if not cluster:
        raise UsageError(
            "reading a live cluster is not available yet: give the cluster state with "
            "--cluster FILE|DIR (YAML/JSON, e.g. the output of `kubectl get nodes,pods -A -o yaml`)"
        )
    registry, extra = _registry_with_plugins(plugin or [])
    cfg = _load_config(config, extra)
    cluster_state = _load_cluster(cluster)
    to_explain = _load_pods(pods, cluster_state)
    if not to_explain:
        raise UsageError("no pod to explain in " + ", ".join(pods))

    from kschedctl.scheduler.explain import Explainer
    from kschedctl.scheduler.result import ExplainResultList

    explainer = Explainer(cluster_state, cfg, registry=registry, seed=seed, all_filters=all_filters,
                          extenders=not no_extenders)
    # Each pod sees the cluster plus its own owners (its ReplicaSet, a StatefulSet's claims);
    # the shared state stays unchanged, so every pod is explained against the same cluster.
    results = [explainer.explain(item.pod, profile, cluster=item.apply(cluster_state)) for item in to_explain]

    if not quiet:
        for warning in [*(getattr(cluster_state, "warnings", None) or ()), *to_explain.warnings]:
            typer.echo(f"warning: {warning}", err=True)
    if output == OutputFormat.table:
        from rich.console import Console

        from kschedctl.render.explain import render_explain

        render_explain(results, Console(), wide=wide, node=node)
    else:
        from kschedctl.render.output import dump

        data = results[0].to_dict() if len(results) == 1 else ExplainResultList(results).to_dict()
        sys.stdout.write(dump(data, output.value))
    # typer drops a command's return value: the exit code travels in typer.Exit.
    raise typer.Exit(EXIT_OK if all(r.outcome == "Scheduled" for r in results) else EXIT_NO)


# -- loading ---------------------------------------------------------------------------------


def _load_config(path: Path | None, extra: dict[str, tuple[str, ...]]) -> Any:
    from kschedctl.config import load_config

    return load_config(None if path is None else str(path), extra_plugins=extra or None)


def _load_cluster(paths: list[str]) -> Any:
    from kschedctl.inputs.cluster import load_cluster

    return load_cluster(paths)


def _load_pods(paths: list[str], cluster_state: Any) -> Any:
    from kschedctl.inputs.workloads import load_pods

    return load_pods(paths, cluster_state, stdin=sys.stdin if "-" in paths else None)


def _registry_with_plugins(specs: list[str]) -> tuple[Any, dict[str, tuple[str, ...]]]:
    """The built-in registry plus the ``--plugin MODULE:ATTR`` (or ``file.py:ATTR``) classes."""
    from kschedctl.plugins.registry import Registry

    registry = Registry()
    extra: dict[str, tuple[str, ...]] = {}
    for spec in specs:
        cls = _import_plugin(spec)
        name = getattr(cls, "name", "") or getattr(cls, "__name__", "")
        registry.register(name, cls)
        extra[name] = registry.points_of(name)
    return registry, extra


def _import_plugin(spec: str) -> Any:
    import importlib
    import importlib.util

    from kschedctl.errors import UsageError

    target, sep, attr = spec.rpartition(":")
    if not sep or not target or not attr:
        raise UsageError(f"--plugin {spec}: expected MODULE:ATTR or path/to/file.py:ATTR")
    try:
        if target.endswith(".py"):
            module_spec = importlib.util.spec_from_file_location(Path(target).stem, target)
            if module_spec is None or module_spec.loader is None:
                raise ImportError(f"cannot load {target}")
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(target)
    except Exception as exc:  # whatever the plugin's module raises, name it and stop cleanly
        raise UsageError(f"--plugin {spec}: {type(exc).__name__}: {exc}") from None
    cls = getattr(module, attr, None)
    if cls is None:
        raise UsageError(f"--plugin {spec}: {target} has no attribute {attr}")
    return cls
