"""Reports of ``kschedctl validate``: a table per file, JSON/YAML, or GitHub annotations."""

from __future__ import annotations

from typing import Any, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from kschedctl.render.output import dump


def results_data(results: Sequence[Any]) -> dict[str, Any]:
    """The contract's JSON: one ValidationResult, or a ValidationResultList for several files."""
    if len(results) == 1:
        return results[0].to_dict()
    return {"kind": "ValidationResultList", "items": [r.to_dict() for r in results]}


def render_machine(results: Sequence[Any], fmt: str) -> str:
    """``-o json`` / ``-o yaml``."""
    return dump(results_data(results), fmt)


def _escape_data(text: str) -> str:
    # GitHub workflow-command escaping of the message part.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_prop(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


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
        table.add_row("" if f.line is None else str(f.line), f.field or "-", f"{f.type}: {f.message}", f.hint)
    return table


def print_tables(results: Sequence[Any], console: Console) -> None:
    """One block per file: a verdict line, then errors and warnings in separate tables."""
    for r in results:
        if r.valid:
            verdict = Text.assemble((r.file, "bold"), ": ", ("valid", "bold green"))
        else:
            n = len(r.errors)
            verdict = Text.assemble((r.file, "bold"), ": ", (f"invalid ({n} error{'s' if n != 1 else ''})", "bold red"))
        console.print(verdict, soft_wrap=True)
        if r.errors:
            console.print(_table("errors", r.errors, "red"))
        if r.warnings:
            console.print(_table("warnings", r.warnings, "yellow"))
