"""``kschedctl validate CONFIG...``: what kube-scheduler v1.34 would refuse, with upstream's field paths."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer

from kschedctl.cli.app import app


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
        "--plugin", help="Custom plugin MODULE:ATTR whose name counts as known (repeatable).")] = None,
    origin: Annotated[bool, typer.Option(
        "--origin", help="In the table, show where each plugin entry you changed came from, and the "
                         "classic traps (weights that do nothing, plugins enabled twice, ...).")] = False,
) -> None:
    """Check configurations: schema first, then every rule kube-scheduler enforces at start-up.

    Exit 0 when every file is valid, 1 when one is not, 2 when a file cannot be read as a
    KubeSchedulerConfiguration at all.
    """
    from kschedctl.config.api import validate_text
    from kschedctl.config.decode import read_text

    extra = _extra_plugins(plugin or [])
    texts = [read_text(path) for path in configs]
    results = [validate_text(text, path, allow_unknown_plugins=allow_unknown_plugins, extra_plugins=extra)
               for text, path in zip(texts, configs)]
    if output is ValidateFormat.table:
        from rich.console import Console

        from kschedctl.render.validate import print_tables

        origins = _origins(texts, configs, extra) if origin else None
        print_tables(results, Console(), origins=origins)
    else:
        from kschedctl.render import validate as render

        text = render.render_github(results) if output is ValidateFormat.github else \
            render.render_machine(results, output.value)
        typer.echo(text, nl=False)
    raise typer.Exit(0 if all(r.valid for r in results) else 1)


def _extra_plugins(specs: list[str]) -> dict[str, tuple[str, ...]]:
    """Out-of-tree, entry-point and ``--plugin`` plugins, checked when loaded (exit 2 if broken)."""
    from kschedctl.plugins import loader

    return dict(loader.extension_points_of(specs))


def _origins(texts: list[str], paths: list[str], extra: dict) -> list:
    """Each file's plugin origins, or None for a file that does not decode."""
    from kschedctl.config.api import ConfigInvalidError, raw_config_text
    from kschedctl.config.origin import config_origins

    out = []
    for text, path in zip(texts, paths):
        try:
            out.append(config_origins(raw_config_text(text, path), path, extra))
        except ConfigInvalidError:
            out.append(None)
    return out
