"""The ``kschedctl`` application: command registration, error handling and exit codes."""

from __future__ import annotations

import inspect
import os
import sys
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperCommand, TyperGroup

from kschedctl import UPSTREAM_VERSION, __version__
from kschedctl.cli.help import HELP_MAX_WIDTH, HelpCommand
from kschedctl.errors import EXIT_INTERNAL, KschedctlError, internal_error_text
from kschedctl.printable import message_line

class _InterruptibleGroup(TyperGroup):
    """Ctrl-C while the command line is parsed or a command runs is ``Interrupted`` (one line, exit
    130): left to click, a KeyboardInterrupt outside a command's body becomes "Aborted!" and exit
    1, which the contract reads as "no"."""

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt:
            raise Interrupted("interrupted") from None

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted("interrupted") from None


app = typer.Typer(
    name="kschedctl",
    cls=_InterruptibleGroup,
    help=f"What-if tool for the Kubernetes scheduler: where would this pod land, and why? "
    f"Reproduces kube-scheduler {UPSTREAM_VERSION} offline.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    # Help follows the terminal's width (click stops at 80 by default), up to a readable maximum.
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": HELP_MAX_WIDTH},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"kschedctl {__version__} (kube-scheduler {UPSTREAM_VERSION})")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        Optional[bool],
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = None,
    debug: Annotated[bool, typer.Option(
        "--debug", help="On an internal error (exit 3), print the full traceback (also: KSCHEDCTL_DEBUG=1).")] = False,
) -> None:
    """kschedctl: explain, validate and simulate kube-scheduler decisions."""
    global _debug
    _debug = _debug or debug


#: Set by ``--debug``: an internal error prints its traceback rather than one line.
_debug = False


def _debug_wanted() -> bool:
    return _debug or os.environ.get("KSCHEDCTL_DEBUG", "").strip().lower() not in ("", "0", "false", "no")


#: One line per command in ``kschedctl --help`` (short enough never to be cut).
_SHORT_HELP = {
    "explain": "Where would this pod land, and why?",
    "simulate": "Schedule pods one after another: placements, preemptions.",
    "capacity": "How many more copies of a pod fit, and what stops the next.",
    "validate": "Check configurations as kube-scheduler v1.34 would.",
    "defaults": "The configuration after upstream's defaulting.",
    "snapshot": "The live cluster's scheduling objects, as fixtures.",
    "plugins": "Every plugin kschedctl knows: points, weights, args.",
    "test": "Run scenario files as CI checks.",
    "diff": "Which pods a profile change moves, and why.",
    "sweep": "Compare profiles over clusters and workloads, in parallel.",
    "record": "Watch a live cluster (read-only) and write a trace.",
    "replay": "Replay a trace under a profile: what would differ.",
}

#: Command modules, in the order ``--help`` lists them.
_COMMAND_MODULES = ("explain", "simulate", "capacity", "validate", "defaults", "snapshot", "plugins", "test", "diff",
                    "sweep", "record", "replay")


def _register_commands() -> None:
    # Each command module adds itself to ``app``; importing them is cheap because they import
    # the core lazily, inside the command function.
    import importlib

    for module in _COMMAND_MODULES:
        importlib.import_module(f"kschedctl.cli.{module}")
    for command in app.registered_commands:
        # Docstrings are wrapped for the source; the terminal wraps again, so keep paragraphs only.
        text = command.help or (command.callback.__doc__ if command.callback else None)
        if text and not command.short_help:
            command.help = _reflow(text)
        name = command.name or (command.callback.__name__ if command.callback else "")
        command.short_help = command.short_help or _SHORT_HELP.get(name)
        if command.epilog:
            command.epilog = _verbatim(command.epilog)
        if command.cls in (None, TyperCommand):
            command.cls = HelpCommand


class Interrupted(KschedctlError):
    """Ctrl-C: one line and exit 130, as a shell expects of an interrupted command."""

    exit_code = 130


def _reflow(text: str) -> str:
    paragraphs = [" ".join(p.split()) for p in inspect.cleandoc(text).split("\n\n")]
    # Docstrings quote commands the reStructuredText way; help is plain text.
    return "\n\n".join(p.replace("``", "`") for p in paragraphs if p)


def _verbatim(text: str) -> str:
    """Examples keep their lines: click's \\b marks a paragraph it must not rewrap."""
    text = text.replace("\\[", "[")  # escapes once needed by rich markup
    return "\n\n".join("\b\n" + p for p in text.strip("\n").split("\n\n"))


def error(message: object) -> None:
    """One line on stderr, the way every error reaches the user: whatever the input put into the
    message (a line break, an escape sequence) is printed as a visible escape, a long one is cut."""
    typer.echo(f"error: {message_line(message)}", err=True)


def warning(message: object) -> None:
    """One line on stderr, like ``error``."""
    typer.echo(f"warning: {message_line(message)}", err=True)


def main(argv: list[str] | None = None, prog_name: str = "kschedctl", complete_var: str | None = None) -> None:
    """Console-script entry point: runs the app and maps every outcome to the contract's exit codes.

    Commands end with ``typer.Exit(code)``; typer itself turns usage errors into exit 2. What is
    left to catch here is kschedctl's own user-facing errors, printed as one line, never a traceback.
    ``prog_name`` and ``complete_var`` let the kubectl plugin run the same application.
    """
    global _debug
    _debug = False
    from kschedctl.cli.coercion import install

    install()  # values given on the command line converted without importing pydantic
    _register_commands()
    try:
        app(args=argv, prog_name=prog_name, complete_var=complete_var)
    except KschedctlError as exc:
        error(str(exc))
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        error("interrupted")
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except Exception as exc:  # a bug: never exit 1, which the contract reads as "no"
        if _debug_wanted():
            import traceback

            traceback.print_exc(file=sys.stderr)
        else:
            error(f"{internal_error_text(exc)} (run with --debug for the traceback)")
        sys.exit(EXIT_INTERNAL)
