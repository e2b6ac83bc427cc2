"""Scores summed as arrays: simulate's frameworks take the column twins' scores as int64 arrays
through NormalizeScore, weights and totals; the runtime takes lists. Both must give the same
weighted scores, refuse the same first score out of range, and the rows read back as Python ints.
"""

from __future__ import annotations

import numpy as np
import pytest

from kschedctl.framework.runtime import NameView
from kschedctl.inputs.cluster import ClusterState
from kschedctl.scheduler.setup import load_default_config
from kschedctl.scheduler.simulate import Simulator
from tests.framework.fakes import make_node

CASES = [
    # normalized scores, weight, the first score out of [0, 100] (None: all in)
    ([0, 50, 100], 1, None),
    ([0, 50, 100], 3, None),
    ([7, 0, 99, 100, 1], 2, None),
    ([], 5, None),
    ([10, 101, 20, -1], 1, 101),
    ([10, -3, 200], 4, -3),
    ([100, 100, 100], 0, None),
]


@pytest.fixture(scope="module")
def frameworks() -> tuple:
    sim = Simulator(ClusterState().with_objects([make_node("a"), make_node("b")]), load_default_config(), seed=1)
    lean = next(iter(sim.frameworks.values()))
    base = super(type(lean), lean)  # the runtime's own hook
    return lean, base


@pytest.mark.parametrize(("normalized", "weight", "bad"), CASES)
def test_an_array_is_weighed_and_checked_as_a_list(frameworks: tuple, normalized: list, weight: int,
                                                   bad: int | None) -> None:
    lean, base = frameworks
    want, want_bad = base.weighted_scores(list(normalized), weight)
    got, got_bad = lean.weighted_scores(np.array(normalized, dtype=np.int64), weight)
    assert want_bad == bad and got_bad == bad and type(got_bad) is type(want_bad)
    assert np.asarray(got).tolist() == list(want)
    if bad is None:
        assert want == [v * weight for v in normalized]


def test_a_list_goes_the_runtime_way(frameworks: tuple) -> None:
    lean, _ = frameworks
    assert lean.weighted_scores([1, 2], 2) == ([2, 4], None)


def test_node_names_read_each_name_when_asked() -> None:
    class Node:
        def __init__(self, name: str) -> None:
            self.name = name

    nodes = [Node(n) for n in ("x", "y", "z")]
    names = NameView(nodes)
    assert len(names) == 3 and names[1] == "y" and names[-1] == "z" and names[:2] == ["x", "y"]
    assert list(names) == ["x", "y", "z"] and list(zip(names, [1, 2, 3])) == [("x", 1), ("y", 2), ("z", 3)]
    nodes[0].name = "w"
    assert names[0] == "w"  # read when asked, not copied
