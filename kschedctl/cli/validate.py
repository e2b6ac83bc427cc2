"""``kschedctl validate CONFIG...``: what kube-scheduler v1.34 would refuse, with upstream's field paths."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer

from kschedctl.cli.app import app, error
from kschedctl.cli.options import WidthOption


class ValidateFormat(str, Enum):
    table = "table"
    json = "json"
    yaml = "yaml"
    github = "github"


_EPILOG = """Example: check every profile before rolling it out, with annotations in GitHub Actions.

  $ kschedctl validate profiles/*.yaml
  $ kschedctl validate -o github scheduler/config.yaml
  $ kschedctl validate --origin profiles/bin-packing.yaml   # where each plugin entry came from
"""


@app.command(epilog=_EPILOG)
def validate(
    configs: Annotated[list[str], typer.Argument(help="KubeSchedulerConfiguration files (- for stdin).",
                                                 metavar="CONFIG...")],
    output: Annotated[ValidateFormat, typer.Option("--output", "-o", help="Output format.",
                                                   case_sensitive=False)] = ValidateFormat.table,
    allow_unknown_plugins: Annotated[bool, typer.Option(
        "--allow-unknown-plugins",
        help="Report plugin names no registry of kschedctl knows as warnings instead of errors.")] = False,
    plugin: Annotated[Optional[list[str]], typer.Option(
        "--plugin", metavar="MODULE:ATTR", help="Custom plugin MODULE:ATTR whose name counts as known (repeatable).")] = None,
    origin: Annotated[bool, typer.Option(
        "--origin", help="In the table, show where each plugin entry you changed came from, and the "
                         "classic traps (weights that do nothing, plugins enabled twice, ...).")] = False,
    width: WidthOption = None,
) -> None:
    """Check configurations: schema first, then every rule kube-scheduler enforces at start-up.

    Every file is reported. Exit 2 when a file cannot be read as a KubeSchedulerConfiguration
    at all, else 1 when one is invalid (a removed apiVersion such as v1beta3 included), else 0.
    """
    from kschedctl.config.api import validate_text
    from kschedctl.config.decode import read_text
    from kschedctl.config.types import ValidationResult
    from kschedctl.errors import EXIT_BAD_INPUT, EXIT_NO, EXIT_OK, InputError

    extra = _extra_plugins(plugin or [])
    if configs.count("-") > 1:
        from kschedctl.errors import UsageError

        raise UsageError("stdin (-) can be given only once")
    texts: list[Optional[str]] = []
    results: list[ValidationResult] = []
    for path in configs:
        # One unreadable file is one failed entry: the others' verdicts still print.
        text = None
        try:
            text = read_text(path)
            results.append(validate_text(text, path, allow_unknown_plugins=allow_unknown_plugins,
                                         extra_plugins=extra, removed_versions_invalid=True))
        except InputError as exc:
            error(exc.at(path))
            results.append(ValidationResult.of_unreadable(path, exc.message, exc.line))
        texts.append(text)
    if output is ValidateFormat.table:
        from kschedctl.render.console import output_console

        from kschedctl.render.validate import print_tables

        origins = _origins(texts, configs, extra) if origin else None
        print_tables(results, output_console(width), origins=origins)
    else:
        from kschedctl.render import validate as render

        text = render.render_github(results) if output is ValidateFormat.github else \
            render.render_machine(results, output.value)
        typer.echo(text, nl=False)
    if any(r.unreadable for r in results):
        raise typer.Exit(EXIT_BAD_INPUT)
    raise typer.Exit(EXIT_OK if all(r.valid for r in results) else EXIT_NO)


def _extra_plugins(specs: list[str]) -> dict[str, tuple[str, ...]]:
    """Out-of-tree, entry-point and ``--plugin`` plugins, checked when loaded (exit 2 if broken)."""
    from kschedctl.plugins.registry import extension_points_of_specs

    return dict(extension_points_of_specs(specs))


def _origins(texts: list[Optional[str]], paths: list[str], extra: dict) -> list:
    """Each file's plugin origins, or None for a file that does not decode."""
    from kschedctl.config.api import ConfigInvalidError, raw_config_text
    from kschedctl.config.origin import config_origins

    out = []
    for text, path in zip(texts, paths):
        if text is None:
            out.append(None)
            continue
        try:
            out.append(config_origins(raw_config_text(text, path), path, extra))
        except ConfigInvalidError:
            out.append(None)
    return out
