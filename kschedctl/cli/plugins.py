"""``kschedctl plugins``: every registered plugin, its origin, extension points, default weight and args."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from kschedctl.cli.app import app
from kschedctl.cli.options import OutputFormat, OutputOption, WidthOption


_EPILOG = """Example: every plugin kschedctl knows, including a custom one.

  $ kschedctl plugins
  $ kschedctl plugins --plugin examples/custom-plugin/prefer_label.py:PreferLabel -o yaml
"""


@app.command(epilog=_EPILOG)
def plugins(
    output: OutputOption = OutputFormat.table,
    plugin: Annotated[Optional[list[str]], typer.Option(
        "--plugin", metavar="MODULE:ATTR", help="Also load a custom plugin, MODULE:ATTR or path/to/file.py:ATTR (repeatable).")] = None,
    width: WidthOption = None,
) -> None:
    """List the plugins kschedctl knows: built-in (kube-scheduler v1.34), out-of-tree
    (scheduler-plugins ports and the seed articles' plugins) and custom (entry points of the
    ``kschedctl.plugins`` group and ``--plugin``), with their extension points, the weight the
    default profile gives them and the defaults of their args."""
    from kschedctl.plugins.registry import registry_with
    from kschedctl.scheduler.catalog import plugin_catalog

    registry, _ = registry_with(plugin or [])
    items = plugin_catalog(registry)
    if output == OutputFormat.name:
        typer.echo("".join(f"plugin/{item['name']}\n" for item in items), nl=False)
        raise typer.Exit(0)
    if output in (OutputFormat.table, OutputFormat.wide):
        from kschedctl.render.console import output_console

        from kschedctl.render.plugins import print_table

        print_table(items, output_console(width))
    else:
        from kschedctl.render.plugins import render_machine

        typer.echo(render_machine(items, output.value), nl=False)
    raise typer.Exit(0)
