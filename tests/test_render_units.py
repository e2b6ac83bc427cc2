"""One CPU unit per table (kschedctl.render.units) and short names with a legend (render.shorten)."""

from __future__ import annotations

import pytest

from kschedctl.render.shorten import shorten
from kschedctl.render.units import cpu_unit


@pytest.mark.parametrize("amounts,expected", [
    ([15890, 6000], ["15.89", "6"]),
    ([2500, 7000, 0], ["2.5", "7", "0"]),
    ([1, 1000], ["0.001", "1"]),
    ([250, 500, 0], ["250m", "500m", "0m"]),
    ([0], ["0"]),
    ([-1500, 999], ["-1.5", "0.999"]),
])
def test_a_table_writes_all_its_cpu_amounts_in_one_unit(amounts: list[int], expected: list[str]) -> None:
    unit = cpu_unit(amounts)
    assert [unit.format(a) for a in amounts] == expected


@pytest.mark.parametrize("names,limit,short,legend", [
    (["default", "bin-packing"], 12, ["default", "bin-packing"], []),
    (["default", "bin-packing[percentageOfNodesToScore=50]"], 16, ["default", "c1"],
     [("c1", "bin-packing[percentageOfNodesToScore=50]")]),
    (["bin-packing[percentageOfNodesToScore=50]", "bin-packing[percentageOfNodesToScore=70]"], 16,
     ["~50]", "~70]"], [("~50]", "bin-packing[percentageOfNodesToScore=50]"),
                        ("~70]", "bin-packing[percentageOfNodesToScore=70]")]),
    (["c1", "a-very-long-configuration-name"], 16, ["c1", "c2"], [("c2", "a-very-long-configuration-name")]),
])
def test_long_names_are_shortened_with_a_legend(names: list[str], limit: int, short: list[str],
                                                legend: list[tuple[str, str]]) -> None:
    mapping, shown = shorten(names, limit)
    assert [mapping[n] for n in names] == short and shown == legend
