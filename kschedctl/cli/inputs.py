"""The inputs the scheduling commands share, declared once and handed to each as one object.

``@command_inputs(...)`` puts the shared options (configuration, cluster source, pod files,
field validation, output, the node what-ifs, ...) into a command's signature where its
``inputs`` parameter stands, and calls the command with a ``CommandInputs`` built from them, so
that a command declares and reads only what is its own. A command may replace one option's
declaration (``diff`` takes ``--config`` twice) or leave options out.

Everything here imports the core lazily, so that ``kschedctl --help`` stays fast.
"""

from __future__ import annotations

import functools
import inspect
import typing
from dataclasses import dataclass, field
from typing import Annotated, Any, Callable, Optional

import typer

from kschedctl.cli.options import (
    ClusterOption,
    ConfigOption,
    ContextOption,
    FilenameOption,
    KubeconfigOption,
    MetricsOption,
    NoExtendersOption,
    OutputFormat,
    OutputOption,
    PluginOption,
    ProfileOption,
    QuietOption,
    ReportOption,
    RequestTimeoutOption,
    SeedOption,
    ValidateOption,
    WidthOption,
)

__all__ = ["CommandInputs", "command_inputs", "SHARED_OPTIONS", "WHAT_IF_OPTIONS"]

WithoutNodeOption = Annotated[Optional[list[str]], typer.Option(
    "--without-node", metavar="NAME", help="What if this node were gone, with its pods (repeatable).")]
WithoutNodesOption = Annotated[Optional[list[str]], typer.Option(
    "--without-nodes", metavar="SELECTOR", help="What if the nodes matching this label selector were gone, with "
                                                "their pods (zone=us-east-1a; repeatable).")]
CordonOption = Annotated[Optional[list[str]], typer.Option(
    "--cordon", metavar="NAME|SELECTOR", help="What if this node, or the nodes a label selector matches, were "
                                              "cordoned (kubectl cordon; repeatable).")]
DrainOption = Annotated[Optional[list[str]], typer.Option(
    "--drain", metavar="NAME|SELECTOR", help="What if this node, or the nodes a label selector matches, were "
    "drained (kubectl drain --ignore-daemonsets --delete-emptydir-data; PodDisruptionBudgets honoured): the "
    "evicted pods' replacements are scheduled first (repeatable: the nodes drain one after the other, as "
    "kubectl drain A B). Exit 1 when the drain would not complete.")]
DrainForceOption = Annotated[bool, typer.Option(
    "--drain-force", help="With --drain: delete the pods that declare no controller, as kubectl drain --force "
                          "(without it, such a pod stops its node's drain, as kubectl does).")]
AddNodesOption = Annotated[Optional[int], typer.Option(
    "--add-nodes", metavar="N", help="What if N copies of the --like node were added (fresh names and hostname "
                                     "labels, no pods).")]
LikeOption = Annotated[Optional[str], typer.Option(
    "--like", metavar="NODE", help="With --add-nodes: the node the new ones copy.")]
SetLabelOption = Annotated[Optional[list[str]], typer.Option(
    "--set-label", metavar="KEY=VALUE", help="With --add-nodes: a label of the new nodes (repeatable).")]
TaintOption = Annotated[Optional[list[str]], typer.Option(
    "--taint", metavar="KEY[=VALUE]:EFFECT", help="With --add-nodes: a taint of the new nodes, as kubectl taint "
                                                  "(repeatable).")]

#: The shared options, in the order of the help: name -> (annotation, default).
SHARED_OPTIONS: dict[str, tuple[Any, Any]] = {
    "config": (ConfigOption, None),
    "cluster": (ClusterOption, None),
    "kubeconfig": (KubeconfigOption, None),
    "context": (ContextOption, None),
    "profile": (ProfileOption, None),
    "output": (OutputOption, OutputFormat.table),
    "seed": (SeedOption, None),
    "plugin": (PluginOption, None),
    "no_extenders": (NoExtendersOption, False),
    "quiet": (QuietOption, False),
    "width": (WidthOption, None),
    "filename": (FilenameOption, None),
    "request_timeout": (RequestTimeoutOption, None),
    "metrics": (MetricsOption, None),
    "validate": (ValidateOption, "strict"),
    "report": (ReportOption, None),
}
WHAT_IF_OPTIONS: dict[str, tuple[Any, Any]] = {
    "without_node": (WithoutNodeOption, None),
    "without_nodes": (WithoutNodesOption, None),
    "cordon": (CordonOption, None),
    "drain": (DrainOption, None),
    "drain_force": (DrainForceOption, False),
    "add_nodes": (AddNodesOption, None),
    "like": (LikeOption, None),
    "set_label": (SetLabelOption, None),
    "taint": (TaintOption, None),
}


@dataclass
class CommandInputs:
    """The shared options of one command run, and what is loaded from them."""

    options: dict[str, Any]
    _registry: Any = field(default=None, repr=False)
    #: What the node what-ifs changed (set by ``apply_what_if``; empty without what-ifs).
    what_if_report: Any = None

    def __getattr__(self, name: str) -> Any:
        options = self.__dict__.get("options") or {}
        if name in options:
            return options[name]
        if name in SHARED_OPTIONS or name in WHAT_IF_OPTIONS:
            return SHARED_OPTIONS.get(name, WHAT_IF_OPTIONS.get(name, (None, None)))[1]
        raise AttributeError(name)

    def files(self, arguments: Optional[list[str]] = None) -> list[str]:
        """The pod files: the arguments, then ``-f/--filename``."""
        return [*(arguments or ()), *(self.filename or ())]

    def registry(self) -> tuple[Any, dict[str, tuple[str, ...]]]:
        """The plugin registry with the ``--plugin`` classes, and the custom plugins' extension points."""
        if self._registry is None:
            from kschedctl.cli.common import registry_with_plugins

            self._registry = registry_with_plugins(self.plugin or [])
        return self._registry

    def load_config(self, path: Any = ...) -> Any:
        """The defaulted configuration of ``--config`` (or of ``path``); exit 2 if invalid."""
        from kschedctl.cli.common import load_config

        return load_config(self.config if path is ... else path, self.registry()[1], self.quiet)

    def load_cluster(self, pod_paths: Any = ()) -> Any:
        """The cluster state of ``--cluster`` or of the live cluster, with ``--metrics``."""
        from kschedctl.cli.common import load_cluster

        return load_cluster(self.cluster, self.kubeconfig, self.context, self.quiet, pod_paths=pod_paths,
                            request_timeout=self.request_timeout, metrics=self.metrics)

    def what_if(self) -> Any:
        """The node what-ifs of the flags (a ``WhatIf``, empty without them); UsageError if misused."""
        from kschedctl.cli.what_if import what_if_of

        return what_if_of(self)

    def apply_what_if(self, cluster_state: Any, config: Any, seed: Any = ...) -> Any:
        """``cluster_state`` with the node what-ifs applied (the drained pods' replacements placed
        under ``config``); what changed is kept in ``what_if_report``."""
        from kschedctl.errors import InputError, UsageError

        what_if = self.what_if()
        try:
            state, self.what_if_report = what_if.apply(cluster_state, config, registry=self.registry()[0],
                                                       seed=self.seed if seed is ... else seed,
                                                       extenders=not self.no_extenders)
        except InputError as exc:
            raise UsageError(exc.message) from None
        return state

    def with_what_if(self, data: Any) -> Any:
        """A result's JSON/YAML form with the ``whatIf`` key when the run changed the cluster."""
        if self.what_if_report and isinstance(data, dict):
            data = {**data, "whatIf": self.what_if_report.to_dict()}
        return data

    def emit(self, output: Any, data: Callable[[], Any], render_table: Callable[[Any], None],
             report: Any = None) -> None:
        """The answer: the HTML page of ``--report`` (of ``report``, when given), then the table
        (the "what-if:" block, then ``render_table(console)``) or ``data()`` as JSON/YAML."""
        import sys

        self.write_report(report)
        if output == OutputFormat.table:
            from kschedctl.render.console import output_console

            console = output_console(self.width)
            self.render_what_if(console)
            render_table(console)
        else:
            from kschedctl.render.output import dump

            sys.stdout.write(dump(self.with_what_if(data()), output.value))

    def write_report(self, answer: Any) -> None:
        """The HTML page of ``--report`` for ``answer`` (nothing without the flag or an answer)."""
        if self.report and answer is not None:
            from kschedctl.render.report import write_report

            write_report(self.report, answer, what_if=self.what_if_report)

    def render_what_if(self, console: Any) -> None:
        """The table's "what-if:" block, before the answer."""
        if self.what_if_report:
            from kschedctl.render.what_if import render_what_if

            render_what_if(self.what_if_report.lines(), console)


def command_inputs(*, what_if: bool = True, omit: tuple[str, ...] = (),
                   **replace: tuple[Any, Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorates a command whose signature has an ``inputs`` parameter: the shared options (and,
    with ``what_if``, the node what-if flags) take its place, but for ``omit``; ``replace`` maps
    an option's name to its own (annotation, default). The command is called with ``inputs``, a
    ``CommandInputs``, under the field validation ``--validate`` asks for."""
    declared = {name: spec for name, spec in SHARED_OPTIONS.items() if name not in omit}
    declared.update(replace)
    if what_if:
        declared.update({name: spec for name, spec in WHAT_IF_OPTIONS.items() if name not in replace})

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        hints = typing.get_type_hints(command, include_extras=True)
        params: list[inspect.Parameter] = []
        for param in inspect.signature(command).parameters.values():
            if param.name == "inputs":
                params.extend(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                                annotation=annotation)
                              for name, (annotation, default) in declared.items())
            else:
                params.append(param.replace(kind=inspect.Parameter.KEYWORD_ONLY,
                                            annotation=hints.get(param.name, param.annotation)))

        @functools.wraps(command)
        def run(**kwargs: Any) -> Any:
            from kschedctl.cli.common import print_warnings
            from kschedctl.errors import UsageError
            from kschedctl.inputs.fields import field_validation, parse_validation

            inputs = CommandInputs({name: kwargs.pop(name) for name in declared})
            try:
                mode = parse_validation(inputs.validate or "strict")
            except ValueError as exc:
                raise UsageError(str(exc)) from None
            with field_validation(mode, report=lambda warning: print_warnings([warning], inputs.quiet)):
                return command(inputs=inputs, **kwargs)

        run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in params}
        del run.__wrapped__  # typer reads the signature above, not the command's
        return run

    return decorate

