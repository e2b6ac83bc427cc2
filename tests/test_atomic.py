"""Atomic output files: whole or not at all, the previous file untouched on any failure."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kschedctl import atomic
from kschedctl.atomic import write_text_atomic
from kschedctl.errors import InputError


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_writes_and_replaces(tmp_path: Path) -> None:
    target = tmp_path / "out.yaml"
    write_text_atomic(target, "first\n")
    os.chmod(target, 0o640)
    write_text_atomic(target, "second\n")
    assert target.read_text(encoding="utf-8") == "second\n"
    assert target.stat().st_mode & 0o777 == 0o640
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("failure", [KeyboardInterrupt, OSError])
def test_failure_mid_write_keeps_the_previous_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   failure: type[BaseException]) -> None:
    target = tmp_path / "snapshot.yaml"
    target.write_text("good old snapshot\n", encoding="utf-8")

    def broken_fsync(fd: int) -> None:
        raise failure(28, "No space left on device") if failure is OSError else failure()

    monkeypatch.setattr(atomic.os, "fsync", broken_fsync)
    with pytest.raises(InputError if failure is OSError else KeyboardInterrupt):
        write_text_atomic(target, "half a new snap")
    assert target.read_text(encoding="utf-8") == "good old snapshot\n"
    assert _leftovers(tmp_path) == []


def test_unwritable_directory_is_bad_input(tmp_path: Path) -> None:
    with pytest.raises(InputError) as exc:
        write_text_atomic(tmp_path / "no" / "such" / "dir.xml", "x")
    assert "cannot write the file" in str(exc.value)


def test_private_file_is_0600_even_over_a_wider_file(tmp_path: Path) -> None:
    target = tmp_path / "snapshot.yaml"
    target.write_text("old\n", encoding="utf-8")
    os.chmod(target, 0o644)
    write_text_atomic(target, "new\n", private=True)
    assert target.read_text(encoding="utf-8") == "new\n"
    assert target.stat().st_mode & 0o777 == 0o600
    write_text_atomic(tmp_path / "fresh.yaml", "x\n", private=True)
    assert (tmp_path / "fresh.yaml").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("private,mode", [(True, 0o600), (False, 0o640)])
def test_a_file_written_bit_by_bit_appears_whole_at_the_end(tmp_path: Path, private: bool, mode: int) -> None:
    target = tmp_path / "trace.jsonl"
    target.write_text("old\n", encoding="utf-8")
    os.chmod(target, 0o640)
    with atomic.writing_atomic(target, private=private) as fh:
        fh.write("line 1\n")
        fh.flush()
        assert target.read_text(encoding="utf-8") == "old\n"  # not yet
        assert len(_leftovers(tmp_path)) == 1
        fh.write("line 2\n")
    assert target.read_text(encoding="utf-8") == "line 1\nline 2\n"
    assert target.stat().st_mode & 0o777 == mode
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("failure", [KeyboardInterrupt, RuntimeError])
def test_a_file_written_bit_by_bit_is_dropped_on_failure(tmp_path: Path, failure: type[BaseException]) -> None:
    target = tmp_path / "trace.jsonl"
    target.write_text("old\n", encoding="utf-8")
    with pytest.raises(failure):
        with atomic.writing_atomic(target) as fh:
            fh.write("half\n")
            raise failure()
    assert target.read_text(encoding="utf-8") == "old\n"
    assert _leftovers(tmp_path) == []
