"""The behaviour fingerprint of the scheduling hot paths is the committed one.

benchmarks/equivalence.py simulates each benchmark workload at a small size with a fixed seed and
explains probe pods afterwards, hashing the JSON; ``benchmarks/equivalence.expected`` holds the
digests of the last change of behaviour. A speed change must leave them as they are; a change of
behaviour regenerates the file (``python3 -m benchmarks.equivalence > benchmarks/equivalence.expected``)
in the same commit, saying why the digests moved.
"""

from __future__ import annotations

from benchmarks import equivalence


def test_the_equivalence_digests_are_the_committed_ones() -> None:
    want = equivalence.EXPECTED.read_text(encoding="utf-8").splitlines()
    assert len(want) == len(equivalence.CASES) + 4  # one line per workload and four combined digests
    assert equivalence.digest_lines() == want


def test_a_moved_digest_fails_the_check_and_is_shown(monkeypatch, capsys) -> None:
    want = equivalence.EXPECTED.read_text(encoding="utf-8").splitlines()
    moved = want[:-1] + [want[-1][:-4] + "ffff"]
    monkeypatch.setattr(equivalence, "digest_lines", lambda *args, **kwargs: moved)
    assert equivalence.check() == 1
    out = capsys.readouterr().out
    assert f"-{want[-1]}" in out and f"+{moved[-1]}" in out
