"""``kubectl-ksched``: kschedctl as a kubectl plugin, so that ``kubectl ksched explain ...`` works.

kubectl finds an executable named ``kubectl-ksched`` on the PATH and runs it with the
arguments that follow the plugin name (``kubectl ksched explain pod.yaml`` runs
``kubectl-ksched explain pod.yaml``). It is the same application as ``kschedctl``, with the
same commands, options and exit codes; only the program name in help and usage texts reads
``kubectl ksched``.
"""

from __future__ import annotations

import sys

#: How the program calls itself in help and usage texts.
PROG_NAME = "kubectl ksched"


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point of ``kubectl-ksched`` (pyproject ``[project.scripts]``)."""
    from kschedctl.cli.app import main as kschedctl_main

    # complete_var: typer derives it from prog_name, whose space would make an invalid
    # environment variable name; keep kubectl-ksched's own (_KUBECTL_KSCHED_COMPLETE).
    kschedctl_main(argv if argv is not None else sys.argv[1:], prog_name=PROG_NAME,
                   complete_var="_KUBECTL_KSCHED_COMPLETE")


if __name__ == "__main__":  # pragma: no cover - ``python -m kschedctl.cli.kubectl_plugin``
    main()
