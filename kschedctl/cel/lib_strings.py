"""String functions: the CEL standard ones (contains, startsWith, endsWith, matches), the k8s regex
library (find, findAll) and cel-go's ext strings v2."""

from __future__ import annotations

from typing import Any, Callable

from kschedctl.k8s.strconv import QUOTE_ESCAPES

from .errors import CelError
from .gofmt import _fmt_v, _GO_SPACE
from .operations import _eq_quiet, _want
from .regex import _find_all, _regex, _RegexError, _search, _utf8


def _contains(s: Any, sub: Any) -> bool:
    _want("contains", (s, sub), str, str)
    return sub in s


def _starts_with(s: Any, p: Any) -> bool:
    _want("startsWith", (s, p), str, str)
    return s.startswith(p)


def _ends_with(s: Any, p: Any) -> bool:
    _want("endsWith", (s, p), str, str)
    return s.endswith(p)


def _matches(s: Any, pattern: Any) -> bool:
    _want("matches", (s, pattern), str, str)
    return _search(_regex(pattern), _utf8(s)) is not None


def _find(s: Any, pattern: Any) -> str:
    _want("find", (s, pattern), str, str)
    try:
        rx = _regex(pattern)
    except _RegexError as err:
        raise CelError(f"Illegal regex: {err}") from None
    m = _search(rx, _utf8(s))
    return m.group(0).decode("utf-8") if m else ""


def _find_all_fn(s: Any, pattern: Any, n: Any = -1) -> list:
    _want("findAll", (s, pattern, n), str, str, int)
    try:
        rx = _regex(pattern)
    except _RegexError as err:
        raise CelError(f"Illegal regex: {err}") from None
    return _find_all(rx, s, n)


# -- ext strings (v2)


def _char_at(s: Any, i: Any) -> str:
    _want("charAt", (s, i), str, int)
    if i < 0 or i > len(s):
        raise CelError(f"index out of range: {i}")
    return s[i] if i < len(s) else ""


def _list_position(lst: list, x: Any, positions: range) -> int:
    """The k8s lists library's indexOf / lastIndexOf: the first of ``positions`` that holds x
    (an element that cannot be compared with x does not), or -1."""
    for i in positions:
        if _eq_quiet(lst[i], x):
            return i
    return -1


def _index_of(s: Any, sub: Any, off: Any = None) -> int:
    if type(s) is list:
        return _list_position(s, sub, range(len(s)))
    _want("indexOf", (s, sub) + (() if off is None else (off,)), str, str, int)
    offset = 0 if off is None else off
    if sub == "":
        return offset
    if offset < 0:
        raise CelError(f"index out of range: {offset}")
    if offset >= len(s):
        return -1
    return s.find(sub, offset)


def _last_index_of(s: Any, sub: Any, off: Any = None) -> int:
    if type(s) is list:
        return _list_position(s, sub, range(len(s) - 1, -1, -1))
    _want("lastIndexOf", (s, sub) + (() if off is None else (off,)), str, str, int)
    if off is None:
        if sub == "":
            return len(s)
        if len(s.encode("utf-8")) < len(sub.encode("utf-8")):
            return -1
        off = len(s) - 1
    if sub == "":
        return off
    if off < 0:
        raise CelError(f"index out of range: {off}")
    if off >= len(s):
        return -1
    return s.rfind(sub, 0, min(off, len(s) - len(sub)) + len(sub))


_LOWER = {i: i + 32 for i in range(65, 91)}
_UPPER = {i + 32: i for i in range(65, 91)}


def _lower_ascii(s: Any) -> str:
    _want("lowerAscii", (s,), str)
    return s.translate(_LOWER)


def _upper_ascii(s: Any) -> str:
    _want("upperAscii", (s,), str)
    return s.translate(_UPPER)


def _replace(s: Any, old: Any, new: Any, n: Any = -1) -> str:
    _want("replace", (s, old, new, n), str, str, str, int)
    return s.replace(old, new, n if n >= 0 else -1)


def _split(s: Any, sep: Any, n: Any = -1) -> list:
    _want("split", (s, sep, n), str, str, int)
    if n == 0:
        return []
    if sep == "":  # Go splits into single characters (the last one keeps the rest)
        chars = list(s)
        if 0 < n < len(chars):
            return chars[:n - 1] + ["".join(chars[n - 1:])]
        return chars
    return s.split(sep, n - 1) if n > 0 else s.split(sep)


def _substring(s: Any, start: Any, end: Any = None) -> str:
    _want("substring", (s, start) + (() if end is None else (end,)), str, int, int)
    n = len(s)
    if end is None:
        if start < 0 or start > n:
            raise CelError(f"index out of range: {start}")
        return s[start:]
    if start > end:
        raise CelError(f"invalid substring range. start: {start}, end: {end}")
    if start < 0 or start > n:
        raise CelError(f"index out of range: {start}")
    if end < 0 or end > n:
        raise CelError(f"index out of range: {end}")
    return s[start:end]


def _trim(s: Any) -> str:
    _want("trim", (s,), str)
    return s.strip(_GO_SPACE)


def _join(lst: Any, sep: Any = "") -> str:
    _want("join", (lst, sep), list, str)
    for x in lst:
        if type(x) is not str:
            raise CelError(f"join: invalid input: {_fmt_v(x)}")
    return sep.join(lst)


def _quote(s: Any) -> str:
    _want("strings.quote", (s,), str)
    return '"' + "".join(QUOTE_ESCAPES.get(c, c) for c in s) + '"'


#: The string functions by name (the receiver comes first). indexOf and lastIndexOf also serve
#: the k8s lists library's overloads.
FUNCTIONS: dict[str, Callable[..., Any]] = {
    "contains": _contains, "startsWith": _starts_with, "endsWith": _ends_with, "matches": _matches,
    "charAt": _char_at, "indexOf": _index_of, "lastIndexOf": _last_index_of, "lowerAscii": _lower_ascii,
    "upperAscii": _upper_ascii, "replace": _replace, "split": _split, "substring": _substring,
    "trim": _trim, "join": _join, "strings.quote": _quote, "find": _find, "findAll": _find_all_fn,
}
