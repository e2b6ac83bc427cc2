"""``kschedctl defaults [CONFIG]``: the effective configuration, as ``kube-scheduler --write-config-to`` prints it."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Any, Optional

import typer

from kschedctl.cli.app import app, warning as print_warning
from kschedctl.cli.options import WidthOption


class DefaultsFormat(str, Enum):
    yaml = "yaml"
    json = "json"
    table = "table"  # --explain-origin only


_EPILOG = """Example: what kube-scheduler would run for a profile after upstream's defaulting.

  $ kschedctl defaults profiles/bin-packing.yaml
  $ kschedctl defaults --explain-origin profiles/two-profiles.yaml
"""


@app.command(epilog=_EPILOG)
def defaults(
    config: Annotated[Optional[str], typer.Argument(help="KubeSchedulerConfiguration file (- for stdin); "
                                                         "without it, the built-in default.", metavar="[CONFIG]")] = None,
    output: Annotated[Optional[DefaultsFormat], typer.Option(
        "--output", "-o", help="Output format: yaml (default) or json; with --explain-origin also table "
                               "(its default).", case_sensitive=False)] = None,
    allow_unknown_plugins: Annotated[bool, typer.Option(
        "--allow-unknown-plugins", help="Accept plugin names no registry of kschedctl knows.")] = False,
    explain_origin: Annotated[bool, typer.Option(
        "--explain-origin", help="Per profile and extension point, the effective plugins with their weight and "
                                 "where each came from (default set, multiPoint expansion, user enabled or "
                                 "disabled, re-weighted in place, appended), and the classic traps.")] = False,
    width: WidthOption = None,
) -> None:
    """Print the configuration after defaulting (default plugins, weights, plugin args).

    A configuration that decodes but does not validate is still printed as defaulting leaves it,
    with each validation error as a warning on stderr and exit 1: kube-scheduler would refuse to
    start with it. One that does not decode (not YAML, unknown fields, wrong types) is an error
    (exit 2).
    """
    if explain_origin:
        _explain_origin(config, output or DefaultsFormat.table, allow_unknown_plugins, width)
        return
    if output is DefaultsFormat.table:
        from kschedctl.errors import UsageError

        raise UsageError("-o table is only for --explain-origin: the configuration prints as yaml or json")
    output = output or DefaultsFormat.yaml
    from kschedctl.config.api import default_config_dict
    from kschedctl.render.output import dump

    cfg, invalid = _defaulted(config, allow_unknown_plugins)
    for warning in cfg.warnings:
        print_warning(warning)
    typer.echo(dump(default_config_dict(cfg), output.value), nl=False)
    _report_invalid(config, invalid)


def _defaulted(config: Optional[str], allow_unknown_plugins: bool) -> tuple[Any, list[Any]]:
    """The defaulted configuration and the validation errors kube-scheduler would refuse it for."""
    from kschedctl.config.api import ConfigInvalidError, default_configuration, validate_file

    if config is None:
        return default_configuration(), []
    result = validate_file(config, allow_unknown_plugins=allow_unknown_plugins)
    if result.config is None:  # it did not even decode: there is nothing to default
        raise ConfigInvalidError(config, result.errors)
    return result.config, result.errors


def _report_invalid(config: Optional[str], invalid: list[Any]) -> None:
    if not invalid:
        return
    for finding in invalid:
        where = f"{config}:{finding.line}" if finding.line else f"{config}"
        print_warning(f"{where}: invalid: {finding}")
    print_warning(f"{config}: kube-scheduler would refuse to start with this configuration "
                  f"({len(invalid)} validation error(s))")
    raise typer.Exit(1)


def _explain_origin(config: Optional[str], output: DefaultsFormat, allow_unknown_plugins: bool,
                    width: Optional[int] = None) -> None:
    """``defaults --explain-origin``: the origin of every plugin setting, per profile."""
    from kschedctl.config.api import ConfigInvalidError, raw_config_text, validate_text
    from kschedctl.config.decode import read_text
    from kschedctl.config.origin import config_origins

    raw = None
    invalid: list[Any] = []
    if config is not None:
        # Read once: the same text is validated (refused configurations exit 2) and then
        # examined as written, before defaulting (stdin cannot be read twice).
        text = read_text(config)
        result = validate_text(text, config, allow_unknown_plugins=allow_unknown_plugins)
        if result.config is None:
            raise ConfigInvalidError(config, result.errors)
        invalid = result.errors
        for warning in result.config.warnings:
            print_warning(warning)
        raw = raw_config_text(text, config)
    origins = config_origins(raw, file=config)
    if output is DefaultsFormat.table:
        from kschedctl.render.console import output_console

        from kschedctl.render.validate import print_origins

        print_origins(origins, output_console(width))
    else:
        from kschedctl.render.output import dump

        typer.echo(dump(origins.to_dict(), output.value), nl=False)
    _report_invalid(config, invalid)
