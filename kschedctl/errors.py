"""User-facing errors and the exit codes of the contract, in one place.

Every error a user can cause by what they feed kschedctl is a ``KschedctlError``; the CLI
prints its one-line ``str()`` and exits with its ``exit_code``, never with a traceback.
"""

from __future__ import annotations

from kschedctl.printable import printable, shorten

#: Exit codes fixed by the contract.
EXIT_OK = 0
EXIT_NO = 1  # unschedulable / rejected pod, invalid configuration, failed scenario
EXIT_BAD_INPUT = 2  # unreadable file, malformed YAML, wrong kind, bad usage
EXIT_INTERNAL = 3  # a bug in kschedctl: the answer is unknown, neither yes nor no


class KschedctlError(Exception):
    """Base of every error meant for the user rather than for a developer."""

    exit_code = EXIT_BAD_INPUT


class InputError(KschedctlError):
    """Bad input: the message names the file and, where known, the line (1-based)."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = self.file if self.line is None else f"{self.file}:{self.line}"
            where += ": "
        return f"{where}{self.message}"

    def at(self, file: str | None, line: int | None = None) -> "InputError":
        """The same error located in ``file`` (keeps a more precise location already set)."""
        if self.file is None:
            self.file = file
        if self.line is None:
            self.line = line
        return self


class QuantityError(InputError):
    """A resource quantity that upstream's parser would reject, or one too large to mean anything."""


class UsageError(KschedctlError):
    """The command line asks for something that cannot be done (unknown profile, bad flag mix)."""


class ClusterAccessError(KschedctlError):
    """The live cluster could not be read (no kubeconfig, unreachable, unauthorized)."""


def internal_error_text(exc: BaseException) -> str:
    """What a bug reads as (``internal error: KeyError: 'x'``): the exception's type and its
    message, cut short and printable. Never a verdict: the CLI exits 3, a scenario reports an error."""
    return f"internal error: {type(exc).__name__}: {shorten(printable(exc), 300)}"
