"""The type checker (cel-go checker/checker.go): overload resolution with type parameters,
``dyn``/``any`` handling, and the validators k8s enables (homogeneous aggregate literals, regex
literals)."""

from __future__ import annotations

from .decls import (
    _BOOL, _BYTES, _DECLS, _DOUBLE, _DYN, _ERR, _fmt_type, _GLOBAL_IDENTS, _INT, _list, _map, _NULL,
    _PRIMS, _STRING, _STRUCT_FIELDS, _T, _tp, _UINT, _unsupported,
)
from .regex import _regex, _RegexError
from .source import _Errors
from .syntax import _Call, _Comp, _Cond, _Ident, _List, _Lit, _Logic, _Map, _N, _Select
from .values import _UInt


def _exact(a: _T, b: _T) -> bool:
    if a is b:
        return True
    if a.kind != b.kind or a.name != b.name or len(a.params) != len(b.params):
        return False
    return all(_exact(x, y) for x, y in zip(a.params, b.params))


def _is_dyn(t: _T) -> bool:
    return t.kind == "dyn" or t.kind == "any"


def _subst(m: dict, t: _T, to_dyn: bool) -> _T:
    if t.kind == "tparam":
        s = m.get(t.name)
        if s is not None:
            return _subst(m, s, to_dyn)
        return _DYN if to_dyn else t
    if t.params:
        return _T(t.kind, t.name, tuple(_subst(m, p, to_dyn) for p in t.params))
    return t


def _less_specific(t1: _T, t2: _T) -> bool:
    """isEqualOrLessSpecific."""
    if _is_dyn(t1) or t1.kind == "tparam":
        return True
    if _is_dyn(t2) or t2.kind == "tparam":
        return False
    if t1.kind != t2.kind:
        return False
    if t1.kind in ("opaque", "list", "map"):
        if t1.name != t2.name or len(t1.params) != len(t2.params):
            return False
        return all(_less_specific(a, b) for a, b in zip(t1.params, t2.params))
    if t1.kind == "type":
        return True
    return _exact(t1, t2)


def _most_general(t1: _T, t2: _T) -> _T:
    return t1 if _less_specific(t1, t2) else t2


def _not_referenced(m: dict, t: _T, within: _T) -> bool:
    """The occurs check of unification."""
    if _exact(t, within):
        return False
    if within.kind == "tparam":
        s = m.get(within.name)
        return True if s is None else _not_referenced(m, t, s)
    return all(_not_referenced(m, t, p) for p in within.params)


def _assignable_from(t: _T, frm: _T) -> bool:
    """types.Type.IsAssignableType: t accepts frm."""
    if t is frm or t.kind in ("dyn", "any", "tparam"):
        return True
    if t.kind != frm.kind or t.name != frm.name or len(t.params) != len(frm.params):
        return False
    return all(_assignable_from(a, b) for a, b in zip(t.params, frm.params))


def _nullable(t: _T) -> bool:
    return t.kind in ("opaque", "struct", "any", "null", "dyn", "tparam")


def _valid_sub(m: dict, t1: _T, t2: _T) -> tuple[bool, bool]:
    """isValidTypeSubstitution(t1, t2) with t2 a type parameter: (valid, t2 had a substitution)."""
    if t1.kind == t2.kind and _exact(t1, t2):
        return True, True
    sub = m.get(t2.name)
    if sub is not None:
        if t1.kind == sub.kind and _exact(t1, sub):
            return True, True
        if _assign(m, t1, sub):
            new = _most_general(t1, sub)
            if _not_referenced(m, t2, new):
                m[t2.name] = new
            return True, True
        return False, True
    if _not_referenced(m, t2, t1):
        m[t2.name] = t1
        return True, False
    return False, False


def _assign(m: dict, t1: _T, t2: _T) -> bool:
    """internalIsAssignable: may t1 be used where t2 is expected (updating m)."""
    if t2.kind == "tparam":
        valid, had = _valid_sub(m, t1, t2)
        if valid:
            return True
        if had:
            return False
    if t1.kind == "tparam":
        return _valid_sub(m, t2, t1)[0]
    if t1.kind in ("dyn", "any", "error") or t2.kind in ("dyn", "any", "error"):
        return True
    if t1.kind == "null":
        return _nullable(t2)
    if t2.kind == "null":
        return _nullable(t1)
    if t1.kind in _PRIMS or t1.kind == "struct":
        return _assignable_from(t2, t1)
    if t1.kind == "type":
        return t2.kind == "type"
    if t1.kind in ("list", "map", "opaque"):
        return t1.kind == t2.kind and t1.name == t2.name and len(t1.params) == len(t2.params) and \
            all(_assign(m, a, b) for a, b in zip(t1.params, t2.params))
    return False


def _walk(root: _N) -> list[_N]:
    out: list[_N] = []
    stack = [root]
    while stack:
        n = stack.pop()
        out.append(n)
        if isinstance(n, _Select):
            stack.append(n.operand)
        elif isinstance(n, _Call):
            if n.target is not None:
                stack.append(n.target)
            stack.extend(n.args)
        elif isinstance(n, _Logic):
            stack.extend(n.terms)
        elif isinstance(n, _Cond):
            stack.extend((n.cond, n.yes, n.no))
        elif isinstance(n, _List):
            stack.extend(n.elems)
        elif isinstance(n, _Map):
            stack.extend(x for kv in n.entries for x in kv)
        elif isinstance(n, _Comp):
            if n.rng is not None:
                stack.append(n.rng)
            stack.extend(n.args)
    return out


def _qualified_name(e: _N) -> str | None:
    """containers.ToQualifiedName: "a.b.c" for a chain of identifiers and selects."""
    if isinstance(e, _Ident):
        return e.name.lstrip(".")
    if isinstance(e, _Select) and not e.test:
        prefix = _qualified_name(e.operand)
        return None if prefix is None else prefix + "." + e.field
    return None


class _Checker:
    def __init__(self, errors: _Errors) -> None:
        self.errors = errors
        self.m: dict[str, _T] = {}
        self.nvar = 0
        self.scopes: list[dict[str, _T]] = []

    def fresh(self) -> _T:
        self.nvar += 1
        return _tp(f"_var{self.nvar - 1}")

    def assignable(self, t1: _T, t2: _T) -> bool:
        m = dict(self.m)
        if _assign(m, t1, t2):
            self.m = m
            return True
        return False

    def sub(self, t: _T) -> _T:
        return _subst(self.m, t, False)

    def lookup(self, name: str) -> _T | None:
        if not name.startswith("."):
            for scope in reversed(self.scopes):
                if name in scope:
                    return scope[name]
        return _GLOBAL_IDENTS.get(name.lstrip("."))

    def undeclared(self, pos: int, name: str) -> None:
        if _unsupported(name):
            self.errors.add(pos, f"undeclared reference to '{name}' (in container ''): "
                                 "kschedctl does not implement this Kubernetes CEL function or type")
        else:
            self.errors.add(pos, f"undeclared reference to '{name}' (in container '')")

    def check(self, e: _N) -> _T:
        t = self._check(e)
        e.t = t
        return t

    def _check(self, e: _N) -> _T:
        if isinstance(e, _Lit):
            v = e.value
            if v is None:
                return _NULL
            return {bool: _BOOL, int: _INT, _UInt: _UINT, float: _DOUBLE, str: _STRING,
                    bytes: _BYTES}[type(v)]
        if isinstance(e, _Ident):
            t = self.lookup(e.name)
            if t is None:
                self.undeclared(e.pos, e.name.lstrip("."))
                return _ERR
            return t
        if isinstance(e, _Select):
            return self.check_select(e)
        if isinstance(e, _Call):
            return self.check_call(e)
        if isinstance(e, _Logic):
            bad = False
            for term in e.terms:
                tt = self.check(term)
                if not self.assignable(tt, _BOOL):
                    self.errors.add(term.pos, f"expected type 'bool' but found '{_fmt_type(self.sub(tt))}'")
                    bad = True
            return _ERR if bad else _BOOL
        if isinstance(e, _Cond):
            types = [self.check(x) for x in (e.cond, e.yes, e.no)]
            return self.resolve(e, "_?_:_", None, types) or _ERR
        if isinstance(e, _List):
            elem = None
            for x in e.elems:
                elem = self.join(elem, self.check(x))
            return _list(elem if elem is not None else self.fresh())
        if isinstance(e, _Map):
            kt = vt = None
            for k, v in e.entries:
                kt = self.join(kt, self.check(k))
                vt = self.join(vt, self.check(v))
            if kt is None:
                return _map(self.fresh(), self.fresh())
            return _map(kt, vt)
        if isinstance(e, _Comp):
            return self.check_comp(e)
        raise AssertionError(f"unexpected node {e!r}")

    def join(self, prev: _T | None, cur: _T) -> _T:
        if prev is None:
            return cur
        if self.assignable(prev, cur):
            return _most_general(prev, cur)
        return _DYN  # mixed literals type-check as dyn; the homogeneity validator reports them

    def check_select(self, e: _Select) -> _T:
        if not e.test:
            q = _qualified_name(e)
            if q is not None and "." in q and q in _GLOBAL_IDENTS:
                e.qualified = q
                return _GLOBAL_IDENTS[q]
        ot = self.sub(self.check(e.operand))
        k = ot.kind
        if k == "map":
            rt = ot.params[1]
        elif k == "struct":
            fields = _STRUCT_FIELDS.get(ot.name, {})
            if e.field in fields:
                rt = fields[e.field]
            else:
                self.errors.add(e.pos, f"undefined field '{e.field}'")
                rt = _ERR
        elif k == "tparam":
            self.assignable(_DYN, ot)
            rt = _DYN
        else:
            if k not in ("dyn", "any", "error"):
                self.errors.add(e.pos, f"type '{_fmt_type(ot)}' does not support field selection")
            rt = _DYN
        return _BOOL if e.test else self.sub(rt)

    def check_call(self, e: _Call) -> _T:
        if e.target is not None:
            prefix = _qualified_name(e.target)
            if prefix is not None:
                q = prefix + "." + e.fn
                if q in _DECLS:  # a namespaced global function such as sets.contains
                    e.fn, e.target = q, None
                elif _unsupported(q) or prefix in ("optional", "format"):
                    self.undeclared(e.pos, q)
                    return _ERR
        arg_types = [self.check(a) for a in e.args]
        if e.target is None:
            if e.fn not in _DECLS:
                self.undeclared(e.pos, e.fn.lstrip("."))
                return _ERR
            return self.resolve(e, e.fn, None, arg_types) or _ERR
        target_t = self.check(e.target)
        if e.fn not in _DECLS:
            self.undeclared(e.pos, e.fn)
            return _ERR
        return self.resolve(e, e.fn, target_t, arg_types) or _ERR

    def resolve(self, e: _N, fn: str, target: _T | None, args: list[_T]) -> _T | None:
        """Overload resolution (resolveOverload): the result type, or None after an error."""
        arg_types = ([target] if target is not None else []) + args
        result: _T | None = None
        oids: list[str] = []
        for ov in _DECLS[fn]:
            if ov.member != (target is not None) or len(ov.params) != len(arg_types):
                continue
            params, res = ov.params, ov.result
            if ov.tparams:
                inst = {name: self.fresh() for name in ov.tparams}
                params = tuple(_subst(inst, p, False) for p in params)
                res = _subst(inst, res, False)
            m = dict(self.m)
            if all(_assign(m, a, p) for a, p in zip(arg_types, params)):
                self.m = m
                oids.append(ov.oid)
                rt = _subst(self.m, res, False)
                if result is None:
                    result = rt
                elif not _is_dyn(result) and not _exact(rt, result):
                    result = _DYN
        if result is None:
            shown = [_fmt_type(_subst(self.m, t, True)) for t in arg_types]
            sig = (shown[0] + ".(" + ", ".join(shown[1:]) + ")") if target is not None else \
                "(" + ", ".join(shown) + ")"
            self.errors.add(e.pos, f"found no matching overload for '{fn}' applied to '{sig}'")
            return None
        if isinstance(e, _Call):
            e.oids = oids
        return result

    def range_vars(self, e: _Comp, two: bool) -> tuple[_T, _T | None]:
        rt = self.sub(self.check(e.rng))
        if rt.kind == "list":
            return (_INT, rt.params[0]) if two else (rt.params[0], None)
        if rt.kind == "map":
            return rt.params[0], (rt.params[1] if two else None)
        if rt.kind in ("dyn", "any", "error", "tparam"):
            self.assignable(_DYN, rt)
            return _DYN, (_DYN if two else None)
        self.errors.add(e.rng.pos, f"expression of type '{_fmt_type(rt)}' cannot be range of a comprehension "
                                   "(must be list, map, or dynamic)")
        return _ERR, (_ERR if two else None)

    def in_scope(self, names: dict[str, _T], node: _N) -> _T:
        self.scopes.append(names)
        try:
            return self.check(node)
        finally:
            self.scopes.pop()

    def check_comp(self, e: _Comp) -> _T:
        k = e.kind
        if k == "bind":
            init_t = self.check(e.args[0])
            return self.in_scope({e.v1: init_t}, e.args[1])
        two = k in ("all2", "exists2", "exists_one2", "transformList", "transformMap", "transformMapEntry")
        t1, t2 = self.range_vars(e, two)
        names = {e.v1: t1}
        if two:
            names[e.v2] = t2
        if k in ("all", "exists", "all2", "exists2"):
            pt = self.in_scope(names, e.args[0])
            if not self.assignable(pt, _BOOL):
                self.errors.add(e.args[0].pos, f"expected type 'bool' but found '{_fmt_type(self.sub(pt))}'")
            return _BOOL
        if k in ("exists_one", "exists_one2"):
            pt = self.in_scope(names, e.args[0])
            self.resolve(e, "_?_:_", None, [pt, _INT, _INT])
            return _BOOL
        if k in ("map", "transformList"):
            if len(e.args) == 2:
                ft = self.in_scope(names, e.args[0])
                vt = self.in_scope(names, e.args[1])
                self.resolve(e, "_?_:_", None, [ft, _list(vt), _list(vt)])
            else:
                vt = self.in_scope(names, e.args[0])
            return _list(self.sub(vt))
        if k == "filter":
            pt = self.in_scope(names, e.args[0])
            self.resolve(e, "_?_:_", None, [pt, _list(t1), _list(t1)])
            return _list(self.sub(t1))
        if k in ("transformMap", "transformMapEntry"):
            accu = _map(self.fresh(), self.fresh())
            if len(e.args) == 2:
                ft = self.in_scope(names, e.args[0])
                self.resolve(e, "_?_:_", None, [ft, accu, accu])
            xt = self.in_scope(names, e.args[-1])
            ins = [accu, t1, xt] if k == "transformMap" else [accu, xt]
            rt = self.resolve(e, "cel.@mapInsert", None, ins)
            return self.sub(rt) if rt is not None else _ERR
        if k == "sortBy":
            lt = self.sub(self.check(e.rng))
            elem = lt.params[0] if lt.kind == "list" else _DYN
            if lt.kind not in ("list", "dyn", "any", "error", "tparam"):
                self.errors.add(e.rng.pos, f"expression of type '{_fmt_type(lt)}' cannot be range of a "
                                           "comprehension (must be list, map, or dynamic)")
            kt = self.in_scope({e.v1: elem}, e.args[0])
            rt = self.resolve(e, "@sortByAssociatedKeys", lt, [_list(kt)])
            return self.sub(rt) if rt is not None else _ERR
        raise AssertionError(k)

    def finish(self, root: _N) -> list[_N]:
        nodes = _walk(root)
        for n in nodes:
            if n.t is not None:
                n.t = _subst(self.m, n.t, True)
        return nodes


def _validate(nodes: list[_N], errors: _Errors) -> None:
    """The AST validators of the k8s base env that concern selectors."""
    for n in nodes:
        if isinstance(n, _List) and len(n.elems) > 1:
            first = n.elems[0].t
            for x in n.elems[1:]:
                if not _exact(first, x.t):
                    errors.add(x.pos, f"expected type '{_fmt_type(first)}' but found '{_fmt_type(x.t)}'")
                    break
        elif isinstance(n, _Map) and len(n.entries) > 1:
            k0, v0 = n.entries[0][0].t, n.entries[0][1].t
            for k, v in n.entries[1:]:
                if not _exact(k0, k.t):
                    errors.add(k.pos, f"expected type '{_fmt_type(k0)}' but found '{_fmt_type(k.t)}'")
                if not _exact(v0, v.t):
                    errors.add(v.pos, f"expected type '{_fmt_type(v0)}' but found '{_fmt_type(v.t)}'")
        elif isinstance(n, _Call) and n.fn == "matches" and n.args and isinstance(n.args[0], _Lit) \
                and isinstance(n.args[0].value, str):
            try:
                _regex(n.args[0].value)
            except _RegexError:
                errors.add(n.args[0].pos, "invalid matches argument")
