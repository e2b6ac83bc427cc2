"""How tables write amounts for people: one convention per table.

CPU is written in cores with up to three decimals (``15.89``, ``6``, ``0.25``) or in millicores
(``250m``), never both in one table: ``cpu_unit`` looks at every amount a table holds and picks
millicores only when none reaches a core. Memory and other byte amounts are written in the
largest binary unit that keeps one figure readable (``62Gi``, ``326Mi``, ``14.8Gi``). The exact
quantities stay in the JSON and YAML output, which this module never touches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from kschedctl.k8s.quantity import format_cores, humanize_bytes

_MILLI = 1000


@dataclass(frozen=True)
class CpuUnit:
    """The unit a table writes its CPU amounts in."""

    millicores: bool

    @property
    def label(self) -> str:
        """The unit for a column header: ``cores`` (cores carry no suffix of their own)."""
        return "millicores" if self.millicores else "cores"

    def format(self, millicores: int) -> str:
        if self.millicores:
            return f"{millicores}m"
        return format_cores(millicores)


def cpu_unit(amounts: Iterable[int]) -> CpuUnit:
    """The unit for a table holding these CPU amounts (in millicores): millicores when every
    amount is below one core (``250m`` reads better than ``0.25``), else cores."""
    values = [abs(a) for a in amounts if a]
    return CpuUnit(millicores=bool(values) and all(v < _MILLI for v in values))


def format_bytes_for_people(amount: int) -> str:
    """Bytes in Gi, Mi (or Ki, Ti): ``humanize_bytes``."""
    return humanize_bytes(amount)
