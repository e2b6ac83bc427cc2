"""Help text as a user reads it: arguments named by their metavar, never by a Python type.

typer writes an argument as ``POD <list[str]>`` in the list and ``[PODS...]...`` or
``{CONFIG...}...`` in the usage line; here an argument is written the way man pages write one:
``POD...`` for several, ``[CONFIG]`` when it may be left out, ``SWEEP.yaml`` when it must be
given. Help is wrapped to the terminal's width, up to ``HELP_MAX_WIDTH`` columns.
"""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperCommand

#: Help lines are no longer than this, however wide the terminal (longer lines read badly).
HELP_MAX_WIDTH = 120


class HelpArgument(TyperArgument):
    """A positional argument written by its metavar alone."""

    def _bare_name(self) -> str:
        # Metavars in the sources are written a few ways ("PODS...", "[CONFIG]"): their word only.
        name = (self.metavar or self.name or "").strip("[]{}").removesuffix("...")
        return name if self.metavar else name.upper()

    def _shown_name(self) -> str:
        return self._bare_name() + ("..." if self.nargs != 1 else "")

    def get_usage_pieces(self, ctx: Any) -> list[str]:
        name = self._shown_name()
        return [name if self.required else f"[{name}]"]

    def get_help_record(self, ctx: Any) -> tuple[str, str] | None:
        if self.hidden:
            return None
        return self._shown_name(), self.help or ""


class HelpCommand(TyperCommand):
    """A command whose arguments are ``HelpArgument``s."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if type(param) is TyperArgument:
                param.__class__ = HelpArgument
