"""The lexer (the lexer rules of cel-go's CEL.g4) and the unescaping of string and bytes literals."""

from __future__ import annotations

import re

from .source import _Source


_DIGITS = frozenset("0123456789")


class _Tok:
    __slots__ = ("kind", "text", "pos")

    def __init__(self, kind: str, text: str, pos: int) -> None:
        self.kind = kind  # 'int' 'uint' 'float' 'string' 'bytes' 'ident' 'escident' 'eof' or the operator text
        self.text = text
        self.pos = pos

    def show(self) -> str:
        return "<EOF>" if self.kind == "eof" else self.text


class _SyntaxError(Exception):
    pass


_KEYWORDS = {"true", "false", "null", "in"}
_OPS2 = {"==", "!=", "<=", ">=", "&&", "||"}
_OPS1 = set("<>[]{}().,-!?:+*/%")
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ESCIDENT_RE = re.compile(r"`[A-Za-z0-9_./ -]+`")
_NUM_RES = (
    ("float", re.compile(r"[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|\.[0-9]+(?:[eE][+-]?[0-9]+)?")),
    ("uint", re.compile(r"0x[0-9a-fA-F]+[uU]|[0-9]+[uU]")),
    ("int", re.compile(r"0x[0-9a-fA-F]+|[0-9]+")),
)
_ESC_SEQ_RE = re.compile(r"\\(?:[abfnrtv\"'\\?`]|[0-3][0-7][0-7]|[xX][0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8})")


def _lex_string(s: str, i: int) -> int | None:
    """End offset of a STRING token starting at i (after any b/B prefix), or None."""
    raw = s[i] in "rR"
    j = i + 1 if raw else i
    if j >= len(s) or s[j] not in "\"'":
        return None
    q = s[j]
    if s.startswith(q * 3, j):  # triple quoted: newlines allowed, the first closing triple ends it
        k = j + 3
        while k < len(s):
            if s.startswith(q * 3, k):
                return k + 3
            if s[k] == "\\" and not raw:
                m = _ESC_SEQ_RE.match(s, k)
                if m is None:
                    break
                k = m.end()
            else:
                k += 1
        # no closing triple: fall back to the single-quoted form ("" then an unterminated ")
    k = j + 1
    while k < len(s):
        ch = s[k]
        if ch == q:
            return k + 1
        if ch in "\n\r":
            return None
        if ch == "\\" and not raw:
            m = _ESC_SEQ_RE.match(s, k)
            if m is None:
                return None
            k = m.end()
        else:
            k += 1
    return None


def _lex(src: _Source) -> list[_Tok]:
    s = src.text
    n = len(s)
    i = 0
    toks: list[_Tok] = []
    while i < n:
        c = s[i]
        if c in " \t\r\n\f":
            i += 1
            continue
        if s.startswith("//", i):
            j = s.find("\n", i)
            i = n if j < 0 else j
            continue
        if c in _DIGITS or (c == "." and i + 1 < n and s[i + 1] in _DIGITS):
            best = None
            for kind, rx in _NUM_RES:
                m = rx.match(s, i)
                if m and (best is None or m.end() > best[1]):
                    best = (kind, m.end())
            toks.append(_Tok(best[0], s[i:best[1]], i))
            i = best[1]
            continue
        j = i + 1 if c in "bB" else i  # j: where the STRING rule starts (after a bytes prefix)
        if j < n and (s[j] in "\"'" or (s[j] in "rR" and j + 1 < n and s[j + 1] in "\"'")) and \
                (c in "\"'bBrR"):
            end = _lex_string(s, j)
            if end is None:
                bad = s[i:]
                stop = re.search(r"[\n\r]", bad)
                raise _SyntaxError((i, "Syntax error: token recognition error at: "
                                       f"'{bad[:stop.start()] if stop else bad}'"))
            toks.append(_Tok("bytes" if c in "bB" else "string", s[i:end], i))
            i = end
            continue
        m = _IDENT_RE.match(s, i)
        if m:
            word = m.group(0)
            toks.append(_Tok(word if word in _KEYWORDS else "ident", word, i))
            i = m.end()
            continue
        if c == "`":
            m = _ESCIDENT_RE.match(s, i)
            if m:
                toks.append(_Tok("escident", m.group(0), i))
                i = m.end()
                continue
        two = s[i:i + 2]
        if two in _OPS2:
            toks.append(_Tok(two, two, i))
            i += 2
            continue
        if c in _OPS1:
            toks.append(_Tok(c, c, i))
            i += 1
            continue
        raise _SyntaxError((i, f"Syntax error: token recognition error at: '{s[i:i + 2] if c in '|&=' else c}'"))
    toks.append(_Tok("eof", "", n))
    return toks


def _unescape(text: str, is_bytes: bool) -> str | bytes:
    """A STRING token's value (cel-go parser/unescape.go); ValueError with cel-go's text."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    raw = text[0] in "rR"
    if raw:
        text = text[1:]
    if len(text) >= 6 and (text.startswith('"""') or text.startswith("'''")):
        body = text[3:-3]
    else:
        body = text[1:-1]
    if raw or "\\" not in body:
        return body.encode("utf-8") if is_bytes else body
    out = bytearray()
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\":
            out += ch.encode("utf-8")
            i += 1
            continue
        if i + 1 >= n:
            raise ValueError("unable to unescape string, found '\\' as last character")
        c = body[i + 1]
        i += 2
        simple = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92, "'": 39, '"': 34,
                  "`": 96, "?": 63}
        if c in simple:
            out.append(simple[c])
            continue
        if c in "xXuU":
            width = {"x": 2, "X": 2, "u": 4, "U": 8}[c]
            if is_bytes and c in "uU":
                raise ValueError("unable to unescape string")
            digits = body[i:i + width]
            if len(digits) < width or not re.fullmatch(r"[0-9a-fA-F]+", digits):
                raise ValueError("unable to unescape string")
            i += width
            v = int(digits, 16)
            if is_bytes:
                out.append(v)
            else:
                if v > 0x10FFFF or 0xD800 <= v <= 0xDFFF:
                    raise ValueError("invalid unicode code point")
                out += chr(v).encode("utf-8")
            continue
        if c in "0123":
            digits = body[i:i + 2]
            if len(digits) < 2 or not all(d in "01234567" for d in digits):
                raise ValueError("unable to unescape octal sequence in string")
            i += 2
            v = int(c + digits, 8)
            if is_bytes:
                out.append(v)
            else:
                out += chr(v).encode("utf-8")
            continue
        raise ValueError("unable to unescape string")
    return bytes(out) if is_bytes else out.decode("utf-8", errors="replace")
