"""Reports of ``kschedctl validate``: a table per file, JSON/YAML, or GitHub annotations."""

from __future__ import annotations

from typing import Any, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from kschedctl.printable import printable
from kschedctl.render.github import escape_data as _escape_data
from kschedctl.render.github import escape_property as _escape_prop
from kschedctl.render.output import dump


def results_data(results: Sequence[Any]) -> dict[str, Any]:
    """The contract's JSON: one ValidationResult, or a ValidationResultList for several files."""
    if len(results) == 1:
        return results[0].to_dict()
    return {"kind": "ValidationResultList", "items": [r.to_dict() for r in results]}


def render_machine(results: Sequence[Any], fmt: str) -> str:
    """``-o json`` / ``-o yaml``."""
    return dump(results_data(results), fmt)


def render_github(results: Sequence[Any]) -> str:
    """``::error file=F,line=N::field: message`` lines (warnings as ``::warning``)."""
    lines = []
    for r in results:
        for level, findings in (("error", r.errors), ("warning", r.warnings)):
            for f in findings:
                props = f"file={_escape_prop(r.file)}"
                if f.line is not None:
                    props += f",line={f.line}"
                text = str(f) + (f" ({f.hint})" if f.hint else "")
                lines.append(f"::{level} {props}::{_escape_data(text)}")
    return "\n".join(lines) + ("\n" if lines else "")


def _table(title: str, findings: Sequence[Any], style: str) -> Table:
    table = Table(title=title, title_justify="left", show_lines=False, expand=False)
    table.add_column("line", justify="right", style="dim")
    table.add_column("field", style="cyan", overflow="fold")
    table.add_column("problem", style=style, overflow="fold")
    table.add_column("hint", style="dim", overflow="fold")
    for f in findings:
        table.add_row("" if f.line is None else str(f.line), printable(f.field or "-"),
                      printable(f"{f.type}: {f.message}"), printable(f.hint or ""))
    return table


def print_tables(results: Sequence[Any], console: Console, origins: Sequence[Any] | None = None) -> None:
    """One block per file: a verdict line, then errors and warnings in separate tables.

    ``origins`` (one :class:`~kschedctl.config.origin.ConfigOrigins` or None per result, as
    ``validate --origin`` computes them) adds, per profile, where each plugin setting came from.
    """
    for i, r in enumerate(results):
        if r.unreadable:  # its error went to stderr, where every command reports bad input
            continue
        if r.valid:
            verdict = Text.assemble((printable(r.file), "bold"), ": ", ("valid", "bold green"))
        else:
            n = len(r.errors)
            verdict = Text.assemble((printable(r.file), "bold"), ": ",
                                    (f"invalid ({n} error{'s' if n != 1 else ''})", "bold red"))
        console.print(verdict, soft_wrap=True)
        if r.errors:
            console.print(_table("errors", r.errors, "red"))
        if r.warnings:
            console.print(_table("warnings", r.warnings, "yellow"))
        if origins is not None and i < len(origins) and origins[i] is not None:
            print_origins(origins[i], console, changed_only=True)


# -- where each plugin setting came from (defaults --explain-origin, validate --origin) -----

#: Short words for the origin codes of kschedctl.config.origin, and their styles.
_ORIGIN_STYLE = {
    "DefaultSet": "dim",
    "ReweightedInPlace": "yellow",
    "Appended": "green",
    "UserEnabled": "green",
    "UserEnabledOverride": "green",
    "UserDisabled": "red",
}


def _origin_text(entry: Any) -> Text:
    text = Text(entry.detail, style=_ORIGIN_STYLE.get(entry.origin, ""))
    if entry.field:
        text.append(f"\n{entry.field}", style="dim cyan")
    return text


def origin_table(profile: Any, changed_only: bool = False) -> Table | None:
    """One table per profile: extension point, plugin, weight, origin (multiPoint first).

    ``changed_only`` keeps the rows the user's configuration changed (None when there are none).
    """
    table = Table(title=f"plugins of profile {profile.scheduler_name!r} (profiles[{profile.index}]): where each "
                        "setting came from", title_justify="left", expand=False)
    table.add_column("extension point", style="bold")
    table.add_column("plugin", overflow="fold")
    table.add_column("weight", justify="right")
    table.add_column("origin", overflow="fold")
    rows = 0
    for po in [profile.multi_point, *profile.points]:
        entries = [e for e in po.entries if not changed_only or e.origin != "DefaultSet"]
        for k, e in enumerate(entries):
            name = Text(printable(e.plugin), style="strike dim" if not e.enabled else "")
            weight = "" if e.weight is None or not e.enabled else str(e.weight)
            table.add_row(po.point if k == 0 else "", name, weight, _origin_text(e), end_section=k == len(entries) - 1)
            rows += 1
    return table if rows or not changed_only else None


def _origin_warnings_table(profile: Any) -> Table:
    table = Table(title="plugin traps", title_justify="left", expand=False)
    table.add_column("field", style="cyan", overflow="fold")
    table.add_column("trap", style="yellow")
    table.add_column("problem", overflow="fold")
    for w in profile.warnings:
        table.add_row(printable(w.field), w.code, printable(w.message))
    return table


def print_origins(origins: Any, console: Console, changed_only: bool = False) -> None:
    """Per profile: the origin table, pluginConfig origins and the traps found."""
    for profile in origins.profiles:
        table = origin_table(profile, changed_only=changed_only)
        if table is not None:
            console.print(table)
        elif changed_only:
            console.print(Text.assemble(f"profile {profile.scheduler_name!r}: ", ("default plugin set, unchanged",
                                                                                   "dim")))
        configs = [pc for pc in profile.plugin_config if not changed_only or pc["origin"] == "User"]
        if configs:
            console.print(Text.assemble(("pluginConfig: ", "bold"), ", ".join(
                f"{pc['name']} ({'user args, defaulted' if pc['origin'] == 'User' else 'default args'})"
                for pc in configs)), soft_wrap=True)
        if profile.warnings:
            console.print(_origin_warnings_table(profile))
