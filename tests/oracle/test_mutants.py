"""The differential catches planted bugs (benchmarks.mutants): a few of its mutants, among them
the empty namespaceSelector issue 41 found unnoticed, run against a slice of the CI batch and
must each be caught.

The oracle tests skip without Go, except under CI=true (see test_differential.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import mutants

# The start of test_differential.py's batch, in which (with the generator of this commit) each of
# these is caught; the whole list against the whole CI batch is `python -m benchmarks.mutants`.
SLICE: mutants.Batch = ((mutants.CI_BATCH[0][0], 150, 15),)
PICKED = ("ns-selector-empty-matches-none", "gt-inclusive", "toleration-ignores-effect", "adaptive-percentage",
          "min-feasible-nodes", "start-index-not-advanced")


def test_every_mutant_applies_to_exactly_one_place(tmp_path: Path) -> None:
    """A mutant whose line moved or was duplicated would test nothing: each line to change
    occurs exactly once, and the change is a change."""
    assert len(mutants.MUTANTS) >= 20
    assert len({m.id for m in mutants.MUTANTS}) == len(mutants.MUTANTS)
    areas = {m.area.split("/")[0] for m in mutants.MUTANTS}
    assert {"plugins", "cycle", "preemption", "columns", "DRA"} <= areas
    for m in mutants.MUTANTS:
        assert m.old != m.new
        mutants.apply(m, tmp_path / m.id / "kschedctl")
        mutated = (tmp_path / m.id / "kschedctl" / m.path).read_text()
        assert m.new in mutated and m.old not in mutated, m.id
    # The real tree is never touched.
    assert all(m.old in (mutants.PACKAGE / m.path).read_text() for m in mutants.MUTANTS)


def test_a_moved_line_is_an_error(tmp_path: Path) -> None:
    gone = mutants.Mutant("gone", "plugins", "framework/types.py", "no such line\n", "x\n", "nothing")
    with pytest.raises(ValueError, match="occurs 0 times in kschedctl/framework/types.py"):
        mutants.apply(gone, tmp_path / "kschedctl")


def test_planted_bugs_are_caught(oracle: str) -> None:
    picked = [m for m in mutants.MUTANTS if m.id in PICKED]
    lines: list[str] = []
    results = mutants.run(picked, SLICE, oracle, echo=lines.append)
    print("\n".join(lines))
    assert [r["id"] for r in results] == list(PICKED)
    survived = [r["id"] for r in results if not r["caught"] or str(r["caught"]).startswith("error")]
    assert survived == [], "\n".join(lines)
