"""Text from inputs made safe to print: one sanitizer for every line kschedctl writes.

Names, keys, values and file names arrive in files a pull request controls. Printed raw, a line
break in one of them starts a new output line (``::warning::`` there is a GitHub workflow
command), and an ESC or OSC sequence drives the reader's terminal. ``printable`` writes such
characters as visible escapes (``\\n``, ``\\x1b``), the way Python's ``repr`` would, and
``defuse_line`` keeps a line that still begins with ``::`` (a long name wrapped in a table) from
reading as a workflow command. ``shorten`` cuts a value quoted in a message.

GitHub's runner also acts on its older command syntax, ``##[command]``, found anywhere in a line
(actions/runner's ``ActionCommand.TryParse`` searches with ``IndexOf("##[")``): ``printable``
writes the bracket of every ``##[`` as ``\\x5b``, so no value prints as one.
"""

from __future__ import annotations

import re
from functools import lru_cache

#: Characters never printed as they are: C0 controls (line breaks, ESC, ...), DEL, C1 controls
#: (NEL, CSI, ...), Unicode line and paragraph separators, bidirectional overrides (text that
#: reads differently from what it is), lone surrogates (undecodable bytes of a file name) and
#: the two non-characters XML cannot carry.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                     "\ud800-\udfff\ufffe\uffff]")
#: The runner's older command mark (``##[set-output name=x;]y``), acted on anywhere in a line.
OLD_COMMAND_MARK = "##["
#: How the table and message outputs write it: the bracket as a visible escape.
OLD_COMMAND_MARK_DEFUSED = "##\\x5b"
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}

#: Longest value a message quotes whole; longer ones are cut (a 200,000-digit quantity is not
#: echoed back).
QUOTED_MAX_CHARS = 200
#: Longest line an error or warning prints; the rest is cut.
MESSAGE_MAX_CHARS = 4096


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte os.fsdecode could not decode: show the byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object, keep: str = "") -> str:
    """``text`` with every control character written as a visible escape (``\\n``, ``\\x1b``,
    ``\\x85``, ``\\xff`` for an undecodable byte of a file name); the characters of ``keep``
    (``"\\n"`` where the caller's own line breaks are wanted) stay as they are."""
    text = str(text)
    if not _UNSAFE.search(text):
        return text.replace(OLD_COMMAND_MARK, OLD_COMMAND_MARK_DEFUSED) if OLD_COMMAND_MARK in text else text
    # the escapes made here never form a ##[ (each begins with a backslash)
    text = _unsafe_but(keep).sub(_escape, text)
    return text.replace(OLD_COMMAND_MARK, OLD_COMMAND_MARK_DEFUSED) if OLD_COMMAND_MARK in text else text


@lru_cache(maxsize=16)
def _unsafe_but(keep: str) -> re.Pattern[str]:
    return re.compile(f"(?![{re.escape(keep)}]){_UNSAFE.pattern}") if keep else _UNSAFE


def has_unsafe(text: str, keep: str = "") -> bool:
    """Whether ``printable(text, keep)`` would change ``text``."""
    return _unsafe_but(keep).search(text) is not None or OLD_COMMAND_MARK in text


def defuse_line(line: str) -> str:
    """``line`` with every ``##[`` written ``##\\x5b`` and, when it begins (after blanks, which
    GitHub's runner skips) with ``::``, the mark of a workflow command, that first colon written
    ``\\x3a``."""
    if OLD_COMMAND_MARK in line:
        line = line.replace(OLD_COMMAND_MARK, OLD_COMMAND_MARK_DEFUSED)
    stripped = line.lstrip()
    if not stripped.startswith("::"):
        return line
    return line[:len(line) - len(stripped)] + "\\x3a" + stripped[1:]


def defuse_lines(text: str) -> str:
    """``defuse_line`` on every line of ``text``."""
    if "::" not in text and OLD_COMMAND_MARK not in text:
        return text
    return "\n".join(defuse_line(line) for line in text.split("\n"))


def shorten(text: object, limit: int = QUOTED_MAX_CHARS) -> str:
    """``text`` cut to ``limit`` characters, saying how long it was (``1234567…(200,000 characters)``)."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…({len(text):,} characters)"


def message_line(text: object) -> str:
    """One printable line of at most ``MESSAGE_MAX_CHARS`` characters: how an error or warning
    reaches stderr."""
    return shorten(printable(text), MESSAGE_MAX_CHARS)
