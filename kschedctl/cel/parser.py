"""A recursive-descent parser for cel-go's CEL.g4 grammar, with cel-go's macros, reserved words and
recursion limits."""

from __future__ import annotations

import math
from typing import Any, Callable, NoReturn

from kschedctl.k8s.strconv import NumError, parse_int, parse_uint

from .errors import _MAX_DEPTH, _MAX_INT, _MAX_UINT, _MIN_INT
from .lexer import _lex, _SyntaxError, _Tok, _unescape
from .source import _Errors, _Source
from .syntax import (
    _ACCUMULATORS, _BINARY_LEVELS, _BINOPS, _Call, _Comp, _Cond, _EXPR_START, _Ident, _List, _Lit,
    _Logic, _Map, _N, _OPTIONAL_NOTE, _RESERVED, _Select, _START_KINDS,
)
from .values import _UInt


def _literal(parse: Callable[[str], int], text: str) -> int | None:
    """The value of a decimal int or uint literal, or None out of range (an error upstream)."""
    try:
        return parse(text)
    except NumError:
        return None


class _Parser:
    """Recursive descent over CEL.g4, building the tree and expanding macros as cel-go does."""

    def __init__(self, src: _Source, errors: _Errors) -> None:
        self.src = src
        self.errors = errors
        self.toks = _lex(src)
        self.i = 0
        self.depth = 0

    # -- token helpers
    def peek(self, k: int = 0) -> _Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def take(self) -> _Tok:
        t = self.toks[self.i]
        if t.kind != "eof":
            self.i += 1
        return t

    def syntax(self, tok: _Tok, message: str) -> NoReturn:
        raise _SyntaxError((tok.pos, "Syntax error: " + message))

    def expect(self, kind: str, expecting: str | None = None) -> _Tok:
        t = self.peek()
        if t.kind != kind:
            self.syntax(t, f"mismatched input '{t.show()}' expecting {expecting or repr(kind)}")
        return self.take()

    def parse(self) -> _N:
        e = self.expr()
        t = self.peek()
        if t.kind != "eof":
            word = "extraneous" if self.peek(1).kind == "eof" else "mismatched"
            self.syntax(t, f"{word} input '{t.show()}' expecting <EOF>")
        return e

    # -- grammar
    def expr(self) -> _N:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise _SyntaxError((-1, f"expression recursion limit exceeded: {_MAX_DEPTH}"))
        e = self.logic("||")
        if self.peek().kind == "?":
            q = self.take()
            yes = self.logic("||")
            self.expect(":", "':'")
            no = self.expr()
            e = _Cond(q.pos, e, yes, no)
        self.depth -= 1
        return e

    def logic(self, op: str) -> _N:
        sub = (lambda: self.logic("&&")) if op == "||" else self.binary
        first = sub()
        if self.peek().kind != op:
            return first
        pos = self.peek().pos
        terms = [first]
        while self.peek().kind == op:
            self.take()
            terms.append(sub())
        return _Logic(pos, op, terms)

    def binary(self, level: int = 0) -> _N:
        """The rules relation, additive and multiplicative (``level`` 0, 1, 2): each a
        left-associative chain of the next rule's expressions."""
        if level == len(_BINARY_LEVELS):
            return self.unary()
        ops = _BINARY_LEVELS[level]
        e = self.binary(level + 1)
        while self.peek().kind in ops:
            t = self.take()
            e = _Call(t.pos, _BINOPS[t.kind], None, [e, self.binary(level + 1)])
        return e

    def unary(self) -> _N:
        t = self.peek()
        if t.kind not in ("!", "-"):
            return self.member()
        count = 0
        while self.peek().kind == t.kind:
            self.take()
            count += 1
        if t.kind == "-" and count == 1 and self.peek().kind in ("int", "float"):
            # CEL.g4 reads "-1" as a signed literal, not as a negation
            return self.member(signed=t)
        e = self.member()
        if count % 2 == 0:
            return e
        return _Call(t.pos, "!_" if t.kind == "!" else "-_", None, [e])

    def member(self, signed: _Tok | None = None) -> _N:
        e = self.primary(signed)
        while True:
            t = self.peek()
            if t.kind == ".":
                self.take()
                self.optional_marker(".?", t.pos)
                f = self.peek()
                if f.kind == "escident":
                    self.errors.add(f.pos, "unsupported syntax: '`'")
                    self.take()
                    e = _Select(t.pos, e, f.text[1:-1])
                    continue
                if f.kind != "ident":
                    self.syntax(f, f"mismatched input '{f.show()}' expecting IDENTIFIER")
                self.take()
                if self.peek().kind == "(":
                    op = self.take()
                    args = self.call_args()
                    e = self.receiver_call(op.pos, f.text, e, args)
                else:
                    e = _Select(t.pos, e, f.text)
            elif t.kind == "[":
                self.take()
                self.optional_marker("[?", t.pos)
                idx = self.expr()
                self.expect("]", "']'")
                e = _Call(t.pos, "_[_]", None, [e, idx])
            else:
                return e

    def call_args(self) -> list:
        args: list = []
        if self.peek().kind == ")":
            self.take()
            return args
        while True:
            args.append(self.expr())
            t = self.peek()
            if t.kind == ")":
                self.take()
                return args
            if t.kind != ",":
                self.syntax(t, f"mismatched input '{t.show()}' expecting {{')', ','}}")
            self.take()

    def primary(self, signed: _Tok | None = None) -> _N:
        t = self.peek()
        k = t.kind
        if signed is not None or k in ("int", "uint", "float", "string", "bytes", "true", "false", "null"):
            self.take()
            return self.literal(t, signed)
        if k == "." or k == "ident":
            self.take()
            dot = ""
            if k == ".":
                t = self.peek()
                if t.kind != "ident":
                    self.syntax(t, f"no viable alternative at input '.{t.show()}'")
                self.take()
                dot = "."
            name = t.text
            if self.peek().kind == "(":
                op = self.take()
                args = self.call_args()
                if name in _RESERVED:
                    self.errors.add(t.pos, f"reserved identifier: {name}")
                return self.global_call(op.pos, dot + name, args)
            if self.peek().kind == "{":
                self.errors.add(self.peek().pos, f"undeclared reference to '{dot + name}' (in container ''): "
                                                 "kschedctl does not implement message construction")
                self.skip_braces()
                return _Lit(t.pos, None)
            if name in _RESERVED:
                self.errors.add(t.pos, f"reserved identifier: {name}")
            return _Ident(t.pos, dot + name)
        if k == "(":
            self.take()
            e = self.expr()
            self.expect(")", "')'")
            return e
        if k == "[":
            self.take()
            return _List(t.pos, self.aggregate("]", self.expr))
        if k == "{":
            self.take()
            return _Map(t.pos, self.aggregate("}", self.map_entry))
        if k != "eof" and self.peek(1).kind in _START_KINDS:
            self.syntax(t, f"extraneous input '{t.show()}' expecting {_EXPR_START}")
        self.syntax(t, f"mismatched input '{t.show()}' expecting {_EXPR_START}")

    def optional_marker(self, syntax: str, pos: int | None = None) -> None:
        """Report and skip the '?' of optional syntax, which kschedctl does not implement; parsing
        goes on so that later errors are reported too."""
        q = self.peek()
        if q.kind == "?":
            self.errors.add(q.pos if pos is None else pos, f"unsupported syntax '{syntax}': {_OPTIONAL_NOTE}")
            self.take()

    def aggregate(self, close: str, element: Callable[[], Any]) -> list:
        """The elements of a list or map literal, after its opening bracket through ``close``
        (unlike call arguments, a trailing comma is allowed)."""
        items: list = []
        while self.peek().kind != close:
            self.optional_marker("?")
            items.append(element())
            nxt = self.peek()
            if nxt.kind == ",":
                self.take()
            elif nxt.kind != close:
                self.syntax(nxt, f"mismatched input '{nxt.show()}' expecting {{'{close}', ','}}")
        self.take()
        return items

    def map_entry(self) -> tuple[_N, _N]:
        key = self.expr()
        self.expect(":", "':'")
        return key, self.expr()

    def skip_braces(self) -> None:
        depth = 0
        while True:
            t = self.take()
            if t.kind == "{":
                depth += 1
            elif t.kind == "}":
                depth -= 1
                if depth == 0:
                    return
            elif t.kind == "eof":
                self.syntax(t, "mismatched input '<EOF>' expecting '}'")

    def literal(self, t: _Tok, signed: _Tok | None) -> _N:
        pos = signed.pos if signed is not None else t.pos
        k = t.kind
        if k == "int":
            text = ("-" if signed is not None else "") + t.text
            v = int(text.replace("0x", ""), 16) if "0x" in text else _literal(parse_int, text)
            if v is None or not _MIN_INT <= v <= _MAX_INT:
                self.errors.add(pos, "invalid int literal")
                v = 0
            return _Lit(pos, v)
        if k == "uint":
            text = t.text[:-1]
            v = int(text[2:], 16) if text.startswith("0x") else _literal(parse_uint, text)
            if v is None or v > _MAX_UINT:
                self.errors.add(pos, "invalid uint literal")
                v = 0
            return _Lit(pos, _UInt(v))
        if k == "float":
            f = float(t.text)
            if math.isinf(f):
                self.errors.add(pos, "invalid double literal")
            return _Lit(pos, -f if signed is not None else f)
        if k in ("string", "bytes"):
            try:
                return _Lit(pos, _unescape(t.text[1:] if k == "bytes" else t.text, k == "bytes"))
            except ValueError as err:
                self.errors.add(pos, str(err))
                return _Lit(pos, "")
        return _Lit(pos, {"true": True, "false": False, "null": None}[k])

    # -- macros (cel-go parser/macro.go, ext/bindings.go, ext/comprehensions.go, ext/lists.go)
    def global_call(self, pos: int, name: str, args: list) -> _N:
        if name == "has" and len(args) == 1:
            arg = args[0]
            if isinstance(arg, _Select) and not arg.test:
                return _Select(pos, arg.operand, arg.field, True)
            self.errors.add(arg.pos, "invalid argument to has() macro")
            return _Lit(pos, False)
        return _Call(pos, name, None, args)

    def ident_arg(self, arg: _N, message: str) -> str | None:
        if isinstance(arg, _Ident) and not arg.name.startswith("."):
            if arg.name in _ACCUMULATORS:
                self.errors.add(arg.pos, "iteration variable overwrites accumulator variable")
                return None
            return arg.name
        self.errors.add(arg.pos, message)
        return None

    def receiver_call(self, pos: int, name: str, target: _N, args: list) -> _N:
        n = len(args)
        if name == "bind" and n == 3 and isinstance(target, _Ident) and target.name == "cel":
            if not isinstance(args[0], _Ident) or args[0].name.startswith("."):
                self.errors.add(args[0].pos, "cel.bind() variable names must be simple identifiers")
                return _Lit(pos, None)
            return _Comp(pos, "bind", None, args[0].name, None, [args[1], args[2]])
        if n == 2 and name in ("all", "exists", "exists_one"):
            v = self.ident_arg(args[0], "argument must be a simple name")
            return _Comp(pos, name, target, v or "", None, [args[1]])
        if (name == "map" and n in (2, 3)) or (name == "filter" and n == 2):
            v = self.ident_arg(args[0], "argument is not an identifier")
            return _Comp(pos, name, target, v or "", None, args[1:])
        if (n == 3 and name in ("all", "exists", "existsOne", "exists_one")) or \
                (n in (3, 4) and name in ("transformList", "transformMap", "transformMapEntry")):
            v1 = self.ident_arg(args[0], "argument must be a simple name")
            v2 = self.ident_arg(args[1], "argument must be a simple name")
            if v1 is not None and v1 == v2:
                self.errors.add(args[1].pos, f"duplicate variable name: {v1}")
            kind = {"all": "all2", "exists": "exists2", "existsOne": "exists_one2",
                    "exists_one": "exists_one2"}.get(name, name)
            return _Comp(pos, kind, target, v1 or "", v2 or "", args[2:])
        if name == "sortBy" and n == 2:
            if not isinstance(target, (_List, _Select, _Ident, _Comp, _Call, _Logic, _Cond)):
                self.errors.add(target.pos, "sortBy can only be applied to a list, identifier, comprehension, "
                                            "call or select expression")
            v = self.ident_arg(args[0], "argument is not an identifier")
            return _Comp(pos, "sortBy", target, v or "", None, [args[1]])
        return _Call(pos, name, target, args)


def _visit_depth(root: _N) -> int:
    """Nesting depth as cel-go's parser visitor counts it (operators, selects, calls, index),
    computed without recursion: the checker and evaluator recurse on this depth."""
    best = 0
    stack = [(root, 0)]
    while stack:
        node, d = stack.pop()
        children: list = []
        if isinstance(node, _Select):
            d += 1
            children = [node.operand]
        elif isinstance(node, _Call):
            if node.target is not None or node.fn.startswith("_") or node.fn == "@in":
                d += 1
            children = ([node.target] if node.target is not None else []) + list(node.args)
        elif isinstance(node, _Cond):
            d += 1
            children = [node.cond, node.yes, node.no]
        elif isinstance(node, _Logic):
            children = list(node.terms)
        elif isinstance(node, _List):
            children = list(node.elems)
        elif isinstance(node, _Map):
            children = [x for kv in node.entries for x in kv]
        elif isinstance(node, _Comp):
            d += 1
            children = ([node.rng] if node.rng is not None else []) + list(node.args)
        best = max(best, d)
        stack.extend((c, d) for c in children)
    return best
