"""``kschedctl defaults [CONFIG]``: the effective configuration, as ``kube-scheduler --write-config-to`` prints it."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer

from kschedctl.cli.app import app


class DefaultsFormat(str, Enum):
    yaml = "yaml"
    json = "json"


@app.command()
def defaults(
    config: Annotated[Optional[str], typer.Argument(help="KubeSchedulerConfiguration file (- for stdin); "
                                                         "without it, the built-in default.", metavar="[CONFIG]")] = None,
    output: Annotated[DefaultsFormat, typer.Option("--output", "-o", help="Output format.",
                                                   case_sensitive=False)] = DefaultsFormat.yaml,
    allow_unknown_plugins: Annotated[bool, typer.Option(
        "--allow-unknown-plugins", help="Accept plugin names no registry of kschedctl knows.")] = False,
) -> None:
    """Print the configuration after defaulting (default plugins, weights, plugin args).

    An invalid configuration is an error (exit 2) naming its first findings; run
    ``kschedctl validate`` for all of them.
    """
    from kschedctl.config.api import default_config_dict, load_config
    from kschedctl.render.output import dump

    cfg = load_config(config, allow_unknown_plugins=allow_unknown_plugins)
    for warning in cfg.warnings:
        typer.echo(f"warning: {warning}", err=True)
    typer.echo(dump(default_config_dict(cfg), output.value), nl=False)
