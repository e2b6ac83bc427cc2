"""The syntax tree. Macros are kept as their own node kinds (not expanded into generic comprehensions),
but checked and costed as cel-go's expansions."""

from __future__ import annotations

from typing import Any


class _N:
    __slots__ = ("pos", "t")

    def __init__(self, pos: int) -> None:
        self.pos = pos
        self.t: Any = None


class _Lit(_N):
    __slots__ = ("value",)

    def __init__(self, pos: int, value: Any) -> None:
        super().__init__(pos)
        self.value = value


class _Ident(_N):
    __slots__ = ("name",)

    def __init__(self, pos: int, name: str) -> None:
        super().__init__(pos)
        self.name = name


class _Select(_N):
    __slots__ = ("operand", "field", "test", "qualified")

    def __init__(self, pos: int, operand: _N, field: str, test: bool = False) -> None:
        super().__init__(pos)
        self.operand = operand
        self.field = field
        self.test = test
        #: set by the checker when "a.b" names a declared identifier (e.g. kubernetes.Quantity)
        self.qualified: str | None = None


class _Call(_N):
    __slots__ = ("fn", "target", "args", "oids")

    def __init__(self, pos: int, fn: str, target: _N | None, args: list) -> None:
        super().__init__(pos)
        self.fn = fn
        self.target = target
        self.args = args
        self.oids: list[str] = []  # overloads the checker found applicable


class _Logic(_N):
    __slots__ = ("op", "terms")

    def __init__(self, pos: int, op: str, terms: list) -> None:
        super().__init__(pos)
        self.op = op
        self.terms = terms


class _Cond(_N):
    __slots__ = ("cond", "yes", "no")

    def __init__(self, pos: int, cond: _N, yes: _N, no: _N) -> None:
        super().__init__(pos)
        self.cond = cond
        self.yes = yes
        self.no = no


class _List(_N):
    __slots__ = ("elems",)

    def __init__(self, pos: int, elems: list) -> None:
        super().__init__(pos)
        self.elems = elems


class _Map(_N):
    __slots__ = ("entries",)

    def __init__(self, pos: int, entries: list) -> None:
        super().__init__(pos)
        self.entries = entries  # [(key, value)]


class _Comp(_N):
    """A macro: all/exists/exists_one/map/filter (one variable), their two-variable forms,
    transformList/transformMap/transformMapEntry, sortBy, and cel.bind (kind "bind": v1 is the
    variable, args = [init, body], rng unused)."""

    __slots__ = ("kind", "rng", "v1", "v2", "args")

    def __init__(self, pos: int, kind: str, rng: _N | None, v1: str, v2: str | None, args: list) -> None:
        super().__init__(pos)
        self.kind = kind
        self.rng = rng
        self.v1 = v1
        self.v2 = v2
        self.args = args


#: The operators of CEL.g4's relation, additive and multiplicative rules, loosest first.
_BINARY_LEVELS = (("<", "<=", ">", ">=", "==", "!=", "in"), ("+", "-"), ("*", "/", "%"))
_BINOPS = {"==": "_==_", "!=": "_!=_", "<": "_<_", "<=": "_<=_", ">": "_>_", ">=": "_>=_", "in": "@in",
           "+": "_+_", "-": "_-_", "*": "_*_", "/": "_/_", "%": "_%_"}
_EXPR_START = ("{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, "
               "STRING, BYTES, IDENTIFIER}")
_START_KINDS = {"[", "{", "(", ".", "-", "!", "true", "false", "null", "float", "int", "uint", "string",
                "bytes", "ident"}
_RESERVED = {"as", "break", "const", "continue", "else", "false", "for", "function", "if", "import", "in",
             "let", "loop", "package", "namespace", "null", "return", "true", "var", "void", "while"}
_ACCUMULATORS = {"__result__", "@result"}
_OPTIONAL_NOTE = "kschedctl does not implement CEL optional types"
