"""``kschedctl test PATHS...``: run scenario files as CI checks (exit 0 passed, 1 failed, 2 bad files, 3 internal error)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from kschedctl.cli.app import app, error, warning as print_warning
from kschedctl.cli.common import checks_fields
from kschedctl.cli.options import (AllowExtendersOption, AllowExtenderURLOption, AllowOutsidePathsOption,
                                   PluginOption, ReportOption, ValidateOption, WidthOption)


class TestFormat(str, Enum):
    __test__ = False  # not a pytest test class, whatever its name

    table = "table"
    json = "json"
    yaml = "yaml"
    github = "github"


# Rich markup: brackets are escaped so that YAML flow lists survive.
_EPILOG = """Example: pin what the bin-packing profile does, then run the check in CI.

  # profiles/scenarios/bin-packing.yaml
  apiVersion: kschedctl/v1
  kind: Scenario
  name: bin-packing puts a pod on the fullest node that fits
  config: ../bin-packing.yaml
  cluster: ../../fixtures/cluster
  pods: \\[../../fixtures/pods/pod.yaml]
  expect:
    - pod: default/hello
      outcome: Scheduled
      nodeIn: \\[node-a1, node-b1]

  $ kschedctl test profiles/ --junit report.xml
"""

_HELP = " ".join("""Run scenario files (configuration + cluster + pods + expectations) and report
each expectation. An expectation checks one pod (outcome, node, nodeIn, notNode, messageContains,
rank, filter, victims, nominatedNode) or a whole simulate run (countPerNode, countPerZone, scheduled,
unschedulable, placements, preempted). Configurations and clusters are loaded once per distinct path.
Scenarios may only make kschedctl read files inside the scenario root (the git repository of the
working directory, or else the working directory), symlinks resolved, and their extenders are not
called, unless --allow-outside-paths / --allow-extenders / --allow-extender-url say otherwise:
scenario files from a pull request cannot reach the network or other files. Exit 0 when every
expectation passed, 1 when any failed, 2 when a scenario file is malformed or a file it names
cannot be loaded, 3 when kschedctl itself failed on a scenario (an internal error).""".split())


@app.command("test", help=_HELP, epilog=_EPILOG)
@checks_fields
def run_tests(
    paths: Annotated[Optional[list[str]], typer.Argument(
        help="Scenario files, or directories searched recursively for *.yaml files with kind: Scenario "
             "(other YAML there is skipped). Default: the current directory.", metavar="PATHS...")] = None,
    output: Annotated[TestFormat, typer.Option(
        "--output", "-o", help="table (people), json / yaml (machines), github (workflow annotations).",
        case_sensitive=False)] = TestFormat.table,
    junit: Annotated[Optional[Path], typer.Option(
        "--junit", metavar="FILE", help="Also write a JUnit XML report to this file.", dir_okay=False)] = None,
    failures_only: Annotated[bool, typer.Option(
        "--failures-only", help="In the table, list only the checks that did not pass.")] = False,
    plugin: PluginOption = None,
    allow_outside_paths: AllowOutsidePathsOption = False,
    allow_extenders: AllowExtendersOption = False,
    allow_extender_url: AllowExtenderURLOption = None,
    width: WidthOption = None,
    validate: ValidateOption = "strict",
    report_file: ReportOption = None,
) -> None:
    """``kschedctl test``: see ``_HELP``."""
    import sys

    from kschedctl.scenarios.files import ScenarioFileError, load_scenarios
    from kschedctl.scenarios.junit import write_junit
    from kschedctl.scenarios.runner import ScenarioRunner
    from kschedctl.scenarios.trust import TrustPolicy

    trust = TrustPolicy.for_run(allow_outside_paths=allow_outside_paths, allow_extenders=allow_extenders,
                                extender_urls=allow_extender_url or ())
    registry = extra = None
    if plugin:
        from kschedctl.cli.common import registry_with_plugins

        registry, extra = registry_with_plugins(plugin)
    try:
        with trust.files():
            scenarios = load_scenarios(paths or ["."])
    except ScenarioFileError as exc:
        _report_file_errors(exc.findings, output, junit)
        raise typer.Exit(2) from None
    runner = ScenarioRunner(registry, extra, trust=trust)
    from kschedctl.render.progress import progress_wanted
    from kschedctl.render.simulate import progress_bar

    show = len(scenarios) >= 20 and output is TestFormat.table and progress_wanted(False)
    with progress_bar("scenarios", len(scenarios), show) as progress:
        from kschedctl import limits

        with limits.work_budget():  # one budget for the whole run, every scenario's work in it
            report = runner.run(scenarios, progress=progress)
    for warning in runner.warnings:
        print_warning(warning)
    if junit is not None:
        write_junit(str(junit), report)
    if report_file:
        from kschedctl.render.report import write_report

        write_report(report_file, report)
    if output is TestFormat.table:
        from kschedctl.render.console import output_console

        from kschedctl.render.scenarios import render_table

        render_table(report, output_console(width), failures_only=failures_only)
    else:
        from kschedctl.render import scenarios as render

        text = render.render_github(report) if output is TestFormat.github else \
            render.render_machine(report, output.value)
        sys.stdout.write(text)
    raise typer.Exit(report.exit_code)


def _report_file_errors(findings: list, output: TestFormat, junit: Optional[Path]) -> None:
    import sys

    from kschedctl.render import scenarios as render
    from kschedctl.scenarios.junit import write_junit

    if junit is not None:
        write_junit(str(junit), None, findings)
    for finding in findings:
        error(finding)
    if output is TestFormat.github:
        sys.stdout.write(render.render_file_errors_github(findings))
    elif output in (TestFormat.json, TestFormat.yaml):
        sys.stdout.write(render.render_file_errors_machine(findings, output.value))
