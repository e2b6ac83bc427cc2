"""Regular expressions. cel-go's ``matches`` and the k8s regex library (``find``, ``findAll``) use Go's
regexp package: RE2 syntax, matching in time linear in the text, unanchored search. They run here on
RE2 itself (google-re2), over UTF-8 bytes as Go matches strings. Go's parser is a port of RE2's;
where the two accept different patterns (``\\C``, nesting depth), Go's rule is applied first. Errors
read as Go's."""

from __future__ import annotations

import re
from typing import Any

import re2

from .errors import CelError


class _RegexError(CelError):
    """A pattern Go's regexp package rejects (text: Go's error)."""


#: RE2's error codes (re2/regexp.cc) in Go's regexp/syntax wording, longest first so that a code
#: that is a prefix of another ("invalid character class") is tried last.
_GO_REGEX_ERRORS = sorted({
    "invalid escape sequence": "invalid escape sequence",
    "invalid character class": "invalid character class",
    "invalid character class range": "invalid character class range",
    "missing ]": "missing closing ]",
    "missing )": "missing closing )",
    "unexpected )": "unexpected )",
    "trailing \\": "trailing backslash at end of expression",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid repetition size": "invalid repeat count",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid UTF-8": "invalid UTF-8",
    "invalid named capture group": "invalid named capture",
}.items(), key=lambda item: -len(item[0]))
#: Go's maxHeight: a parse tree higher than this is "expression nests too deeply".
_GO_REGEX_MAX_HEIGHT = 1000
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # RE2 would otherwise log every bad pattern on stderr
#: Compiled patterns by text, oldest first. Each RE2 object keeps its program and a lazily grown
#: DFA (both within RE2's 8 MiB budget), so the cache is bounded by entries and by instructions.
_REGEX_CACHE: dict[str, Any] = {}
_REGEX_CACHE_ENTRIES = 64
_REGEX_CACHE_INSTRUCTIONS = 1 << 20
_regex_cache_instructions = 0


def _go_regex_error(code: str, arg: str) -> _RegexError:
    return _RegexError(f"error parsing regexp: {code}: `{arg}`")


_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def _utf8(s: str) -> bytes:
    """s as Go holds it: UTF-8, a lone surrogate (which no Go string decoded from JSON or YAML
    holds) as U+FFFD."""
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE_RE.sub("\ufffd", s).encode("utf-8")


def _re2_compile(pattern: str) -> Any:
    """RE2's compiled pattern, or _RegexError with Go's text for what RE2 refuses."""
    try:
        return re2.compile(_utf8(pattern), _RE2_OPTIONS)
    except re2.error as err:
        message = err.args[0] if err.args else ""
        if isinstance(message, bytes):
            message = message.decode("utf-8", "replace")
        if message.startswith("pattern too large"):
            raise _go_regex_error("expression too large", pattern) from None
        for re2_code, go_code in _GO_REGEX_ERRORS:
            if message == re2_code or message.startswith(re2_code + ": "):
                raise _go_regex_error(go_code, message[len(re2_code) + 2:]) from None
        raise _RegexError(f"error parsing regexp: {message}") from None


def _any_byte_escape(pattern: str) -> int:
    """The offset of the first ``\\C`` outside ``\\Q...\\E``, or -1. RE2 reads it as "any byte";
    Go's parser refuses it as an invalid escape."""
    i, n = 0, len(pattern)
    while i < n - 1:
        if pattern[i] != "\\":
            i += 1
        elif pattern[i + 1] == "C":
            return i
        elif pattern[i + 1] == "Q":
            end = pattern.find("\\E", i + 2)
            i = n if end < 0 else end + 2
        else:
            i += 2
    return -1


def _go_tree_height(pattern: str) -> int:
    """About the height of the parse tree Go's regexp/syntax builds (checkHeight): a capture or a
    repetition is a node over its operand; a concatenation or an alternation of several parts is
    one node over them, flattened through non-capturing groups; adjacent literal characters are one
    node, alternatives of single characters one class. Go's factoring of common prefixes out of
    alternatives is not modelled. Only called on patterns RE2 parsed."""
    # a node is (height, kind); kind "cat"/"alt" nodes are flattened into a parent of their kind
    def join(nodes: list[tuple[int, str]], kind: str, empty: int) -> tuple[int, str]:
        if not nodes:
            return empty, "empty"
        if len(nodes) == 1:
            return nodes[0]
        if kind == "alt" and all(k == "char" for _, k in nodes):
            return 1, "char"  # one character class
        return 1 + max(h - 1 if k == kind else h for h, k in nodes), kind

    # one frame per open group: [capturing, finished branches, nodes of the current branch]
    stack: list[list] = [[False, [], []]]
    i, n = 0, len(pattern)
    prev_literal = False  # the last node is a literal that a next literal character joins
    while i < n:
        c = pattern[i]
        nodes = stack[-1][2]
        if c == "(":
            capturing = not pattern.startswith("?", i + 1) or pattern.startswith(("?P<", "?<"), i + 1)
            if pattern.startswith("?", i + 1):
                close = min(x for x in (pattern.find(":", i), pattern.find(")", i), n) if x >= 0)
                if not capturing and pattern[close:close + 1] == ")":  # a flag group: "(?i)"
                    i, prev_literal = close + 1, False
                    continue
                i = pattern.find(">", i) + 1 if capturing else close + 1
            else:
                i += 1
            stack.append([capturing, [], []])
            prev_literal = False
            continue
        if c == ")" and len(stack) > 1:
            capturing, branches, last = stack.pop()
            height, kind = join(branches + [join(last, "cat", 1)], "alt", 1)
            stack[-1][2].append((height + 1, "cap") if capturing else (height, kind))
            i, prev_literal = i + 1, False
            continue
        if c == "|":
            stack[-1][1].append(join(nodes, "cat", 1))
            stack[-1][2] = []
            i, prev_literal = i + 1, False
            continue
        if c in "*+?{":
            end = pattern.find("}", i) + 1 if c == "{" else i + 1
            if c != "{" or re.fullmatch(r"\{[0-9]+(,[0-9]*)?\}", pattern[i:end]):
                if nodes:
                    nodes[-1] = (nodes[-1][0] + 1, "rep")
                i = end + (pattern[end:end + 1] == "?")
                prev_literal = False
                continue
        if c == "[":
            j = i + 1 + (pattern[i + 1:i + 2] == "^")
            j += pattern[j:j + 1] == "]"
            while j < n and pattern[j] != "]":
                if pattern.startswith("[:", j) and pattern.find(":]", j + 2) >= 0:
                    j = pattern.find(":]", j + 2) + 2
                else:
                    j += 2 if pattern[j] == "\\" else 1
            nodes.append((1, "char"))
            i, prev_literal = j + 1, False
            continue
        literal = c != "\\" and c not in ".^$"
        i += 1
        if c == "\\":
            i += 1
            if pattern[i - 1:i] in ("p", "P", "x") and pattern[i:i + 1] == "{":
                i = pattern.find("}", i) + 1
            elif pattern[i - 1:i] in ("p", "P"):
                i += 1
        followed_by_repeat = i < n and pattern[i] in "*+?{"
        if literal and prev_literal and not followed_by_repeat:
            nodes[-1] = (1, "leaf")  # a literal of several characters
        else:
            nodes.append((1, "char" if c not in "^$" else "leaf"))
        prev_literal = literal
    frame = stack[0]
    return join(frame[1] + [join(frame[2], "cat", 1)], "alt", 1)[0]


def _regex(pattern: str) -> Any:
    """The compiled RE2 pattern (cached); _RegexError with Go's text if Go refuses it."""
    compiled = _REGEX_CACHE.get(pattern)
    if compiled is not None:
        return compiled
    any_byte = _any_byte_escape(pattern)
    if any_byte >= 0:
        # Go stops at the first error it meets; RE2's own errors before \C come first, except
        # the missing ) or ] that cutting the pattern there creates
        try:
            _re2_compile(pattern[:any_byte])
        except _RegexError as err:
            if str(err).startswith("error parsing regexp: unexpected ): "):
                raise _go_regex_error("unexpected )", pattern) from None  # whose text is the whole pattern
            if not str(err).startswith("error parsing regexp: missing closing "):
                raise
        raise _go_regex_error("invalid escape sequence", "\\C")
    compiled = _re2_compile(pattern)
    if pattern.count("(") >= _GO_REGEX_MAX_HEIGHT // 2 and _go_tree_height(pattern) > _GO_REGEX_MAX_HEIGHT:
        raise _go_regex_error("expression nests too deeply", pattern)
    global _regex_cache_instructions
    size = compiled.programsize
    while _REGEX_CACHE and (len(_REGEX_CACHE) >= _REGEX_CACHE_ENTRIES
                            or _regex_cache_instructions + size > _REGEX_CACHE_INSTRUCTIONS):
        _regex_cache_instructions -= _REGEX_CACHE.pop(next(iter(_REGEX_CACHE))).programsize
    _REGEX_CACHE[pattern] = compiled
    _regex_cache_instructions += size
    return compiled


def _search(rx: Any, b: bytes, pos: int = 0) -> Any:
    """The leftmost match in b from pos, as Go finds it. RE2 tests empty-width assertions at
    every byte, so ``\\B`` can hold inside a multi-byte character, where Go never looks; such an
    empty match is skipped. (A match that consumes text always starts on a character.)"""
    while True:
        m = rx.search(b, pos)
        if m is None:
            return None
        st = m.start()
        if st == len(b) or not 0x80 <= b[st] < 0xC0 or m.end() != st:
            return m
        pos = st + 1
        while pos < len(b) and 0x80 <= b[pos] < 0xC0:
            pos += 1


def _utf8_width(b: bytes, pos: int) -> int:
    """The length of the UTF-8 sequence at b[pos] (b is well-formed UTF-8)."""
    lead = b[pos]
    return 1 if lead < 0xC0 else 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4


def _find_all(rx: Any, text: str, limit: int) -> list[str]:
    """Go's Regexp.FindAllString (allMatches): an empty match right after a previous match is
    skipped, and the search then moves on by one character."""
    b = _utf8(text)
    out: list[str] = []
    end = len(b)
    if limit < 0:
        limit = end + 1
    pos, prev_end = 0, -1
    while len(out) < limit and pos <= end:
        m = _search(rx, b, pos)
        if m is None:
            break
        st, en = m.span()
        accept = True
        if en == pos:  # an empty match at pos
            if st == prev_end:
                accept = False
            pos += _utf8_width(b, pos) if pos < end else 1
        else:
            pos = en
        prev_end = en
        if accept:
            out.append(b[st:en].decode("utf-8"))
    return out
