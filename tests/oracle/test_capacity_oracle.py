"""capacity against upstream kube-scheduler v1.34: N + 1 copies of the pod through the oracle's
simulate land where capacity's perNode says, one left over (benchmarks.capacity_oracle).

Without Go these tests skip with a one-line reason, except under CI=true, where they must run.
"""

from __future__ import annotations

import contextlib
import io

from benchmarks import capacity_oracle


def test_capacity_agrees_with_upstream_copy_by_copy(oracle: str) -> None:  # noqa: F811
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = capacity_oracle.main(["--seed", "7", "--cases", "40", "--oracle", oracle])
    text = out.getvalue()
    print(text)
    assert "0 mismatches" in text and code == 0, text[-6000:]
    assert "match  fixtures: 169 copies on 5 nodes, method perNode" in text
    assert "match  synthetic-100: 3000 copies on 100 nodes, method perNode" in text
