"""Compilation of the checked tree to closures. Every node becomes ``f(r) -> value`` (raising
CelError); ``r`` is the per-evaluation state: the cost counter, the ``device`` value and the local
variable slots."""

from __future__ import annotations

import math
from typing import Any, Callable

from .cost import _call_cost, _eq_cost, _NC, _Run, _self_compare_cost, _UNSET
from .decls import _TYPE_VALUES
from .errors import CelError, _CompileFailure, COST_LIMIT, _CostLimit, _MAX_INT, _no_overload
from .gofmt import _fmt_v
from .lib_ext import _sort_by_keys
from .lib_k8s import _sum
from .library import _CONVERSIONS, _IMPLS
from .operations import _eq, _F_MAX_INT, _map_find, _MISSING, _want
from .regex import _regex, _RegexError
from .syntax import _Call, _Comp, _Cond, _Ident, _List, _Lit, _Logic, _Map, _N, _Select
from .values import CelType, _DefaultMap, _no_overload_sig, Quantity, Semver, _type_name, _UInt


def _items(v: Any, two: bool) -> list:
    """The values a comprehension iterates over (map keys, or (key, value)/(index, value))."""
    if type(v) is list:
        return list(enumerate(v)) if two else v
    if isinstance(v, dict):
        return list(v.items()) if two else list(v)
    if two:
        raise CelError(f"unsupported comprehension range type: {_go_type(v)}")
    raise CelError(f"got '{_go_type(v)}', expected iterable type")


def _go_type(v: Any) -> str:
    return {int: "types.Int", _UInt: "types.Uint", float: "types.Double", str: "types.String",
            bool: "types.Bool", bytes: "types.Bytes", type(None): "types.Null", Quantity: "cel.Quantity",
            Semver: "cel.Semver", CelType: "*types.Type"}.get(type(v), type(v).__name__)


def _check_limit(r: _Run) -> None:
    if r.cost > COST_LIMIT:
        raise _CostLimit()


def _string_key(op: Callable[[_Run], Any], key: str, cost: int) -> Callable[[_Run], Any]:
    """``o.key`` and ``o["key"]`` with a constant string: upstream gives both the same lookup,
    errors included, and this is the hot path of ``device.attributes[...]`` selectors."""
    def lookup(r: _Run) -> Any:
        o = op(r)
        r.cost += cost
        if isinstance(o, dict):
            try:
                return o[key]
            except KeyError:
                raise CelError(f"no such key: {key}") from None
        if type(o) is list:
            raise CelError("unsupported index type 'string' in list")
        raise CelError(f"no such key: {key}")
    return lookup


def _list_index(k: Any) -> int:
    t = type(k)
    if t is int:
        return k
    if t is _UInt:
        if k <= _MAX_INT:
            return int(k)
        raise CelError(f"unsupported index value {_fmt_v(k)} in list")
    if t is float:
        if k == k and abs(k) < _F_MAX_INT and k == int(k):
            return int(k)
        raise CelError(f"unsupported index value {_fmt_v(k)} in list")
    raise CelError(f"unsupported index type '{_type_name(k)}' in list")


def _index(o: Any, k: Any) -> Any:
    if isinstance(o, dict):
        if type(k) is str:
            try:
                return o[k]
            except KeyError:
                raise CelError(f"no such key: {k}") from None
        v = _map_find(o, k)
        if v is _MISSING:
            if type(o) is _DefaultMap:
                return {}
            raise CelError(f"no such key: {_fmt_v(k)}")
        return v
    if type(o) is list:
        i = _list_index(k)
        if 0 <= i < len(o):
            return o[i]
        raise CelError(f"index out of bounds: {_fmt_v(k)}")
    raise CelError(f"no such key: {_fmt_v(k)}")


def _has(o: Any, field: str) -> bool:
    if type(o) is _DefaultMap:
        return True  # upstream's mapper.Find never misses
    if isinstance(o, dict):
        return field in o
    if type(o) is list:
        raise CelError("unsupported index type 'string' in list")
    return False


def _bool_or_error(v: Any) -> Any:
    """A term of && / ||: True, False, or the CelError it stands for."""
    if v is True or v is False:
        return v
    return CelError("no such overload")


class _Compiler:
    def __init__(self) -> None:
        self.nslots = 0
        self.scopes: list[dict[str, tuple]] = []

    def new_slot(self) -> int:
        self.nslots += 1
        return self.nslots - 1

    def local(self, name: str) -> tuple | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def fn(self, e: _N) -> Callable[[_Run], Any]:
        f, c = self.compile(e)
        if c is _NC:
            return f
        return lambda r: c

    def compile(self, e: _N) -> tuple[Callable[[_Run], Any], Any]:
        if isinstance(e, _Lit):
            v = e.value
            return (lambda r: v), v
        if isinstance(e, _Ident):
            return self.ident(e)
        if isinstance(e, _Select):
            return self.select(e)
        if isinstance(e, _Call):
            return self.call(e)
        if isinstance(e, _Logic):
            return self.logic(e), _NC
        if isinstance(e, _Cond):
            return self.cond(e), _NC
        if isinstance(e, _List):
            return self.list_lit(e)
        if isinstance(e, _Map):
            return self.map_lit(e)
        if isinstance(e, _Comp):
            return self.comp(e), _NC
        raise AssertionError(e)

    # -- identifiers and attribute access
    def ident(self, e: _Ident) -> tuple:
        name = e.name
        loc = None if name.startswith(".") else self.local(name)
        if loc is None:
            name = name.lstrip(".")
            if name == "device":
                def dev(r: _Run) -> Any:
                    r.cost += 1
                    return r.device
                return dev, _NC
            tv = _TYPE_VALUES[name]
            return (lambda r: tv), tv
        if loc[0] == "slot":
            i = loc[1]

            def var(r: _Run) -> Any:
                r.cost += 1
                return r.slots[i]
            return var, _NC
        _, i, init = loc

        def bound(r: _Run) -> Any:
            r.cost += 1
            slots = r.slots
            v = slots[i]
            if v is _UNSET:
                v = slots[i] = init(r)
            return v
        return bound, _NC

    @staticmethod
    def is_attribute(e: _N) -> bool:
        """Whether cel-go plans e as an attribute rooted at a variable (one cost per qualifier);
        selecting from any other value first builds a relative attribute (one more)."""
        while True:
            if isinstance(e, _Ident):
                return True
            if isinstance(e, _Select) and not e.test and e.qualified is None:
                e = e.operand
            elif isinstance(e, _Call) and e.fn == "_[_]":
                e = e.args[0]
            else:
                return False

    def select(self, e: _Select) -> tuple:
        if e.qualified is not None:
            tv = _TYPE_VALUES[e.qualified]
            return (lambda r: tv), tv
        op = self.fn(e.operand)
        field = e.field
        if e.test:
            extra = 0 if self.is_attribute(e.operand) else 1

            def has(r: _Run) -> bool:
                o = op(r)
                r.cost += extra
                return _has(o, field)
            return has, _NC
        return _string_key(op, field, 1 if self.is_attribute(e.operand) else 2), _NC

    # -- calls
    def call(self, e: _Call) -> tuple:
        fn = e.fn
        if fn == "_[_]":
            return self.index(e), _NC
        if fn in ("_==_", "_!=_"):
            return self.equality(e, fn == "_!=_"), _NC
        compiled = [self.compile(a) for a in ([e.target] if e.target is not None else []) + e.args]
        argfns = [f for f, _ in compiled]
        consts = [c for _, c in compiled]
        if fn in _CONVERSIONS and len(consts) == 1 and consts[0] is not _NC:
            # cel.OptOptimize folds conversions of constants; a failure stops program creation
            try:
                v = _IMPLS[fn](consts[0])
            except CelError as err:
                raise _CompileFailure(f"program instantiation failed: {err}") from None
            return (lambda r: v), v
        if fn == "@in" and consts[1] is not _NC and type(consts[1]) is list and \
                all(type(x) in (bool, int, _UInt, float, str) for x in consts[1]):
            return self.set_membership(argfns[0], consts[1]), _NC
        if fn in ("matches", "find", "findAll") and len(consts) >= 2 and type(consts[1]) is str:
            try:
                _regex(consts[1])  # compiled once here, as cel-go's regex optimization does
            except _RegexError as err:
                raise _CompileFailure(f"program instantiation failed: {str(err)}") from None
        impl = _IMPLS[fn] if fn != "sum" else self.sum_impl(e.oids)
        return self.make_call(impl, argfns, _call_cost(fn, e.oids)), _NC

    @staticmethod
    def sum_impl(oids: list[str]) -> Callable[[Any], Any]:
        # the overload the checker picked decides the zero (cel-go tries list(int) first)
        zero = {"list_uint_sum_uint": _UInt(0), "list_double_sum_double": 0.0}.get(
            oids[0] if len(oids) == 1 else "", 0)

        def sum_(lst: Any) -> Any:
            _want("sum", (lst,), list)
            return _sum(lst, zero)
        return sum_

    @staticmethod
    def make_call(impl: Callable[..., Any], argfns: list, cost: Any) -> Callable[[_Run], Any]:
        n = len(argfns)
        if isinstance(cost, int):
            if n == 1:
                a0 = argfns[0]

                def call1(r: _Run) -> Any:
                    v = a0(r)
                    r.cost += cost
                    return impl(v)
                return call1
            if n == 2:
                a0, a1 = argfns

                def call2(r: _Run) -> Any:
                    v0 = a0(r)
                    v1 = a1(r)
                    r.cost += cost
                    return impl(v0, v1)
                return call2

            def calln(r: _Run) -> Any:
                args = [a(r) for a in argfns]
                r.cost += cost
                return impl(*args)
            return calln

        def call_dyn(r: _Run) -> Any:
            args = [a(r) for a in argfns]
            res = impl(*args)
            r.cost += cost(args, res)
            if r.cost > COST_LIMIT:
                raise _CostLimit()
            return res
        return call_dyn

    def equality(self, e: _Call, negate: bool) -> Callable[[_Run], Any]:
        lf, rf = self.fn(e.args[0]), self.fn(e.args[1])

        def eq(r: _Run) -> bool:
            a = lf(r)
            b = rf(r)
            if type(a) is str and type(b) is str:
                r.cost += math.ceil(min(len(a), len(b)) * 0.1)
                return (a != b) if negate else (a == b)
            r.cost += _eq_cost(a, b)
            return _eq(a, b) != negate
        return eq

    def set_membership(self, lf: Callable[[_Run], Any], values: list) -> Callable[[_Run], Any]:
        if not values:
            return lambda r: False  # upstream folds "x in []" to false without evaluating x
        keys = {("b", v) if type(v) is bool else ("v", v) for v in values}

        def member(r: _Run) -> bool:
            x = lf(r)
            if type(x) is bool:
                return ("b", x) in keys
            if type(x) is float and x != x:
                return False
            try:
                return ("v", x) in keys
            except TypeError:
                return False
        return member

    def index(self, e: _Call) -> Callable[[_Run], Any]:
        op = self.fn(e.args[0])
        kf, kc = self.compile(e.args[1])
        cost = 1 if self.is_attribute(e.args[0]) else 2
        if kc is not _NC and type(kc) is str:
            return _string_key(op, kc, cost)
        return self.make_call(_index, [op, kf], cost)

    # -- logic
    def logic(self, e: _Logic) -> Callable[[_Run], Any]:
        terms = [self.fn(t) for t in e.terms]
        stop = e.op == "||"  # the value that decides the result

        def logic(r: _Run) -> bool:
            err: CelError | None = None
            for t in terms:
                try:
                    v = t(r)
                except CelError as ex:
                    if err is None:
                        err = ex
                    continue
                if v is stop:
                    return stop
                if v is not (not stop) and err is None:
                    err = CelError("no such overload")
            if err is not None:
                raise err
            return not stop
        if len(terms) != 2:
            return logic
        t0, t1 = terms
        go = not stop

        def logic2(r: _Run) -> bool:
            err: CelError | None = None
            try:
                v = t0(r)
            except CelError as ex:
                err = ex
            else:
                if v is stop:
                    return stop
                if v is not go:
                    err = CelError("no such overload")
            try:
                w = t1(r)
            except CelError as ex:
                raise (err or ex) from None
            if w is stop:
                return stop
            if err is not None:
                raise err
            if w is not go:
                raise CelError("no such overload")
            return go
        return logic2

    def cond(self, e: _Cond) -> Callable[[_Run], Any]:
        cf, yf, nf = self.fn(e.cond), self.fn(e.yes), self.fn(e.no)

        def cond(r: _Run) -> Any:
            c = cf(r)
            if c is True:
                return yf(r)
            if c is False:
                return nf(r)
            raise CelError("no such overload")
        return cond

    # -- literals
    def list_lit(self, e: _List) -> tuple:
        compiled = [self.compile(x) for x in e.elems]
        if all(c is not _NC for _, c in compiled):
            v = [c for _, c in compiled]
            return (lambda r: v), v
        fns = [f for f, _ in compiled]

        def make_list(r: _Run) -> list:
            out = [f(r) for f in fns]
            r.cost += 10
            return out
        return make_list, _NC

    def map_lit(self, e: _Map) -> tuple:
        compiled = [(self.compile(k), self.compile(v)) for k, v in e.entries]
        if all(kc is not _NC and vc is not _NC for (_, kc), (_, vc) in compiled):
            try:
                v = _build_map([(kc, vc) for (_, kc), (_, vc) in compiled])
            except CelError:
                pass  # upstream folds it into an error value, reported when evaluated
            else:
                return (lambda r: v), v
        fns = [(kf, vf) for (kf, _), (vf, _) in compiled]

        def make_map(r: _Run) -> dict:
            out = _build_map([(kf(r), vf(r)) for kf, vf in fns])
            r.cost += 30
            return out
        return make_map, _NC

    # -- macros
    def comp(self, e: _Comp) -> Callable[[_Run], Any]:
        k = e.kind
        if k == "bind":
            init = self.fn(e.args[0])
            i = self.new_slot()
            self.scopes.append({e.v1: ("bind", i, init)})
            body = self.fn(e.args[1])
            self.scopes.pop()

            def bind(r: _Run) -> Any:
                r.slots[i] = _UNSET
                return body(r)
            return bind
        rng = self.fn(e.rng)
        two = e.v2 is not None
        i1 = self.new_slot()
        scope = {e.v1: ("slot", i1)}
        i2 = -1
        if two:
            i2 = self.new_slot()
            scope[e.v2] = ("slot", i2)
        self.scopes.append(scope)
        args = [self.fn(a) for a in e.args]
        self.scopes.pop()
        if k == "sortBy":
            return self.sort_by(e, rng, i1, args[0])
        builder = getattr(self, "comp_" + k.rstrip("2"))
        return builder(rng, two, i1, i2, args)

    def comp_all(self, rng: Callable, two: bool, i1: int, i2: int, args: list) -> Callable[[_Run], Any]:
        # loop condition @not_strictly_false(@result): 2 per iteration
        return self.quantifier(rng, two, i1, i2, args[0], False, 2)

    def comp_exists(self, rng: Callable, two: bool, i1: int, i2: int, args: list) -> Callable[[_Run], Any]:
        # loop condition @not_strictly_false(!@result): the negation costs one more
        return self.quantifier(rng, two, i1, i2, args[0], True, 3)

    @staticmethod
    def quantifier(rng: Callable, two: bool, i1: int, i2: int, pred: Callable, stop: bool,
                   loop_cost: int) -> Callable[[_Run], Any]:
        """all (``stop`` False) and exists (``stop`` True): a predicate yielding ``stop`` decides
        the result, whatever errors came before it; otherwise the first error (or non-bool) is
        raised."""
        go = not stop

        def quantify(r: _Run) -> Any:
            items = _items(rng(r), two)
            slots = r.slots
            acc: Any = go
            for x in items:
                r.cost += loop_cost
                if acc is stop:
                    break
                r.cost += 1  # @result in the step
                if two:
                    slots[i1], slots[i2] = x
                else:
                    slots[i1] = x
                try:
                    v = pred(r)
                except CelError as err:
                    v = err
                if v is stop:
                    acc = stop
                elif v is not go and acc is go:
                    acc = v if isinstance(v, CelError) else CelError("no such overload")
                if r.cost > COST_LIMIT:
                    raise _CostLimit()
            r.cost += 1  # result: @result
            if acc is True or acc is False:
                return acc
            raise acc
        return quantify

    def comp_exists_one(self, rng: Callable, two: bool, i1: int, i2: int, args: list) -> Callable[[_Run], Any]:
        pred = args[0]

        def exists_one(r: _Run) -> Any:
            items = _items(rng(r), two)
            slots = r.slots
            count = 0
            for x in items:
                if two:
                    slots[i1], slots[i2] = x
                else:
                    slots[i1] = x
                v = pred(r)
                if v is True:
                    count += 1
                    r.cost += 2  # @result + 1
                elif v is False:
                    r.cost += 1  # @result
                else:
                    raise CelError("no such overload")
                if r.cost > COST_LIMIT:
                    raise _CostLimit()
            r.cost += 2  # result: @result == 1
            return count == 1
        return exists_one

    def comp_map(self, rng: Callable, two: bool, i1: int, i2: int, args: list) -> Callable[[_Run], Any]:
        return self.transform(rng, two, i1, i2, args, None)

    comp_transformList = comp_map

    def comp_filter(self, rng: Callable, two: bool, i1: int, i2: int, args: list) -> Callable[[_Run], Any]:
        pred = args[0]

        def filter_(r: _Run) -> list:
            items = _items(rng(r), two)
            slots = r.slots
            out = []
            for x in items:
                slots[i1] = x
                c = pred(r)
                if c is True:
                    out.append(x)
                    r.cost += 13  # @result + [x]
                elif c is False:
                    r.cost += 1
                else:
                    raise CelError("no such overload")
                if r.cost > COST_LIMIT:
                    raise _CostLimit()
            r.cost += 1
            return out
        return filter_

    def comp_transformMap(self, rng: Callable, two: bool, i1: int, i2: int,
                          args: list) -> Callable[[_Run], Any]:
        return self.transform(rng, two, i1, i2, args, False)

    def comp_transformMapEntry(self, rng: Callable, two: bool, i1: int, i2: int,
                               args: list) -> Callable[[_Run], Any]:
        return self.transform(rng, two, i1, i2, args, True)

    @staticmethod
    def transform(rng: Callable, two: bool, i1: int, i2: int, args: list,
                  entry: bool | None) -> Callable[[_Run], Any]:
        """map and transformList (``entry`` None: the list of results), transformMap (False: each
        key to its result) and transformMapEntry (True: the entries of the result maps), each with
        an optional filter as the first of two arguments."""
        filt = args[0] if len(args) == 2 else None
        fn = args[-1]
        to_list = entry is None

        def transform(r: _Run) -> Any:
            items = _items(rng(r), two)
            slots = r.slots
            out: Any = [] if to_list else {}
            for x in items:
                if two:
                    slots[i1], slots[i2] = x
                else:
                    slots[i1] = x
                if filt is not None:
                    c = filt(r)
                    if c is False:
                        r.cost += 1
                        continue
                    if c is not True:
                        raise CelError("no such overload")
                v = fn(r)
                if to_list:
                    out.append(v)
                    r.cost += 12  # @result + [value]: identifier, list literal, list concatenation
                else:
                    if entry:
                        if not isinstance(v, dict):
                            raise _no_overload_sig("cel.@mapInsert", (out, v))
                        new = v.items()
                        r.cost += 2  # cel.@mapInsert(@result, entry)
                    else:
                        new = ((x[0], v),)
                        r.cost += 3  # cel.@mapInsert(@result, key, value)
                    for key, val in new:
                        if _map_find(out, key) is not _MISSING:
                            raise CelError(f"insert failed: key {_fmt_v(key)} already exists")
                        out[key] = val
                if r.cost > COST_LIMIT:
                    raise _CostLimit()
            r.cost += 1
            return out
        return transform

    def sort_by(self, e: _Comp, rng: Callable, i1: int, key: Callable) -> Callable[[_Run], Any]:
        def sort_by(r: _Run) -> list:
            lst = rng(r)
            r.cost += 2  # two references to the bound input
            if type(lst) is not list:
                raise _no_overload()
            slots = r.slots
            keys = []
            for x in lst:
                slots[i1] = x
                keys.append(key(r))
                r.cost += 12
                if r.cost > COST_LIMIT:
                    raise _CostLimit()
            r.cost += 1 + _self_compare_cost(keys)
            return _sort_by_keys(lst, keys)
        return sort_by


def _build_map(entries: list) -> dict:
    out: dict = {}
    for k, v in entries:
        if type(k) in (bytes, list) or isinstance(k, dict):  # unhashable as Go map keys
            raise CelError(f"unsupported key type: {_type_name(k)}")
        out[k] = v
    return out
