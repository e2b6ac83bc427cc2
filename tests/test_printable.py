"""The one sanitizer of printed text (``kschedctl.printable``) and the outputs built on it."""

from __future__ import annotations

import io
import json

import pytest
import yaml
from rich.table import Table
from rich.text import Text

from kschedctl.printable import defuse_line, message_line, printable, shorten
from kschedctl.render.console import OutputConsole, output_console
from kschedctl.render.github import escape_data, escape_property
from kschedctl.render.output import dump


@pytest.mark.parametrize(("raw", "shown"), [
    ("plain name", "plain name"),
    ("a\nb", "a\\nb"),
    ("a\r\nb", "a\\r\\nb"),
    ("tab\there", "tab\\there"),
    ("\x1b[31mred", "\\x1b[31mred"),
    ("\x1b]8;;http://x\x07link", "\\x1b]8;;http://x\\x07link"),
    ("nel\x85x", "nel\\x85x"),
    ("csi\x9b31m", "csi\\x9b31m"),
    ("del\x7f", "del\\x7f"),
    ("line\u2028sep", "line\\u2028sep"),
    ("bidi\u202eevil", "bidi\\u202eevil"),
    ("bad\udcff\udcfe.yaml", "bad\\xff\\xfe.yaml"),  # os.fsdecode's undecodable bytes: backslashreplace
    ("back\\slash", "back\\slash"),
    ("ünïcödé ✓", "ünïcödé ✓"),
    ("##[set-output name=verdict;]all-green", "##\\x5bset-output name=verdict;]all-green"),
    ("x ##[stop-commands]zz ###[y", "x ##\\x5bstop-commands]zz ###\\x5by"),
    ("#[ # [ #\n#[", "#[ # [ #\\n#["),
])
def test_printable(raw: str, shown: str) -> None:
    assert printable(raw) == shown
    assert printable(raw).isprintable() or "\\" in printable(raw)


def test_printable_keeps_what_the_caller_asks() -> None:
    assert printable("a\nb\x1b", keep="\n") == "a\nb\\x1b"


@pytest.mark.parametrize(("line", "shown"), [
    ("::warning::x", "\\x3a:warning::x"),
    ("   ::add-mask::x", "   \\x3a:add-mask::x"),
    ("a ::warning::x", "a ::warning::x"),
    (": one colon", ": one colon"),
    ("a ##[error]x", "a ##\\x5berror]x"),
    ("  ::x ##[y", "  \\x3a:x ##\\x5by"),
])
def test_defuse_line(line: str, shown: str) -> None:
    assert defuse_line(line) == shown


def test_shorten_says_how_long_the_value_was() -> None:
    assert shorten("9" * 200_000, 10) == "9999999999…(200,000 characters)"
    assert shorten("short", 10) == "short"


def test_message_line_is_one_bounded_line() -> None:
    line = message_line("x\n::warning::" + "y" * 100_000)
    assert "\n" not in line and line.startswith("x\\n::warning::") and len(line) < 4200


def test_github_escaping() -> None:
    assert escape_data("50%\r\n::x\x1b") == "50%25%0D%0A::x\\x1b"
    assert escape_data("a ##[error]b") == "a ##\\x5berror]b"
    assert escape_property("a:b,c\n") == "a%3Ab%2Cc%0A"


HOSTILE = {"name": "x\n::warning::y \x1b[31m\x85\u2028", "file": "bad\udcff.yaml", "tab": "a\tb",
           "long": "z" * 90 + " ::error::folded", "old": "a ##[set-output name=x;]y", "::warning::key": "##[k",
           "list": ["::error::item", "\\##[x"]}


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_machine_output_keeps_values_on_their_line(fmt: str) -> None:
    text = dump(HOSTILE, fmt)
    for char in ("\x1b", "\x85", "\u2028", "\r"):
        assert char not in text
    assert not any(line.lstrip().startswith("::") for line in text.splitlines()), text
    assert "##[" not in text
    text.encode("utf-8")  # no lone surrogate left: the output can be written
    back = json.loads(text) if fmt == "json" else yaml.safe_load(text)
    assert back["name"] == HOSTILE["name"] and back["long"] == HOSTILE["long"] and back["tab"] == "a\tb"
    assert all(back[k] == HOSTILE[k] for k in ("old", "::warning::key", "list"))
    assert back["file"] == ("bad\udcff.yaml" if fmt == "json" else "bad\\xff.yaml")


def _render(console: OutputConsole, *objects: object) -> str:
    console.print(*objects)
    console.file.flush()
    return console.file.target.getvalue() if hasattr(console.file, "target") else console.file.getvalue()


def test_table_cells_are_escaped_and_keep_their_style() -> None:
    table = Table("name")
    table.add_row(Text("ok \x1b[31mred\nnext", style="bold"))
    table.add_row("::warning::from a cell")
    table.add_row(Text("#", style="bold") + Text("#[error]split across styles"))
    out = _render(output_console(file=io.StringIO()), table)
    assert "\x1b" not in out and "\\x1b[31mred" in out and "##[" not in out
    assert not any(line.lstrip().startswith("::") for line in out.splitlines()), out


@pytest.mark.parametrize("env", [{"FORCE_COLOR": "1"}, {"NO_COLOR": "1", "FORCE_COLOR": "1"}])
def test_rich_styles_still_reach_a_terminal(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    stream = io.StringIO()
    console = OutputConsole(file=stream, color_system="standard")  # a terminal, as FORCE_COLOR says
    console.print(Text("plain ", style="bold") + Text("\x1b[31minjected", style="green"))
    out = stream.getvalue()
    assert "\x1b[1m" in out  # rich's own bold
    assert "\\x1b[31minjected" in out and "\x1b[31m" not in out
    assert ("32m" in out) is ("NO_COLOR" not in env)  # green: colours obey NO_COLOR, as before
