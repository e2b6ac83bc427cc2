"""Runtime values. ints, floats, strs, bytes, bools, None, lists and dicts are used as they are; uint
needs its own type so that 1u and 1 stay distinguishable; kubernetes.Quantity and kubernetes.Semver
are classes of their own. Also the CEL type names of values, as errors print them."""

from __future__ import annotations

from typing import Any

from kschedctl.k8s.quantity import decimal_digits

from .errors import CelError


class _UInt(int):
    """A CEL uint (equal and hash-equal to the same int, as cel-go's map lookups allow)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"{int(self)}u"


class CelType:
    """A CEL type value, as ``type(x)`` returns and identifiers like ``int`` denote."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CelType) and other.name == self.name

    def __hash__(self) -> int:
        return hash(("type", self.name))

    def __repr__(self) -> str:
        return self.name


class _DefaultMap(dict):
    """``device.attributes`` / ``device.capacity``: upstream wraps them so that looking up an
    unknown domain yields an empty map, while ``in``, ``size`` and iteration see the real keys."""

    __slots__ = ()

    def __missing__(self, key: Any) -> dict:
        return {}


def _qcmp(m1: int, e1: int, m2: int, e2: int) -> int:
    """Compare m1*10**e1 with m2*10**e2 exactly without building huge powers of ten."""
    s1 = (m1 > 0) - (m1 < 0)
    s2 = (m2 > 0) - (m2 < 0)
    if s1 != s2:
        return 1 if s1 > s2 else -1
    if s1 == 0:
        return 0
    mag1 = decimal_digits(m1) + e1
    mag2 = decimal_digits(m2) + e2
    if mag1 != mag2:
        return s1 if mag1 > mag2 else -s1
    if e1 >= e2:
        a, b = m1 * 10 ** (e1 - e2), m2
    else:
        a, b = m1, m2 * 10 ** (e2 - e1)
    return (a > b) - (a < b)


class Quantity:
    """A ``kubernetes.Quantity`` value: the exact amount ``m * 10**e`` plus how apimachinery
    would hold it, because ``asInteger``/``isInteger`` depend on that (an int64Amount with a
    non-negative scale converts; a negative scale or an inf.Dec does not)."""

    __slots__ = ("m", "e", "dec", "ptr")

    def __init__(self, m: int, e: int, dec: bool, ptr: bool = False) -> None:
        self.m = m
        self.e = e
        #: True when upstream holds an inf.Dec rather than an int64Amount.
        self.dec = dec
        #: True for results of add/sub, which upstream returns as *Quantity; its Equal method
        #: refuses a pointer on the right-hand side.
        self.ptr = ptr

    def __repr__(self) -> str:
        m = self.m if decimal_digits(self.m) <= 100 else f"<{decimal_digits(self.m)} digits>"
        return f"Quantity({m}e{self.e}{', dec' if self.dec else ''})"

    def cmp(self, other: "Quantity") -> int:
        return _qcmp(self.m, self.e, other.m, other.e)


class Semver:
    """A ``kubernetes.Semver`` value (blang/semver v4 ``Version``)."""

    __slots__ = ("major", "minor", "patch", "pre", "build")

    def __init__(self, major: int, minor: int, patch: int, pre: tuple, build: tuple) -> None:
        self.major = major
        self.minor = minor
        self.patch = patch
        self.pre = pre  # tuple of (is_num, int, str)
        self.build = build

    def __repr__(self) -> str:
        s = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            s += "-" + ".".join(str(n) if isnum else t for isnum, n, t in self.pre)
        if self.build:
            s += "+" + ".".join(self.build)
        return f"Semver({s})"

    def cmp(self, o: "Semver") -> int:
        for a, b in ((self.major, o.major), (self.minor, o.minor), (self.patch, o.patch)):
            if a != b:
                return 1 if a > b else -1
        if not self.pre or not o.pre:
            return (not self.pre) - (not o.pre)
        for (an, av, at), (bn, bv, bt) in zip(self.pre, o.pre):
            if an != bn:
                return -1 if an else 1  # numeric identifiers sort before alphanumeric ones
            if an:
                if av != bv:
                    return 1 if av > bv else -1
            elif at != bt:
                return 1 if at > bt else -1  # byte-wise, as Go compares strings
        return (len(self.pre) > len(o.pre)) - (len(self.pre) < len(o.pre))


_TYPE_NAMES = {int: "int", _UInt: "uint", float: "double", str: "string", bool: "bool", bytes: "bytes",
               type(None): "null_type", list: "list", dict: "map", _DefaultMap: "map",
               Quantity: "kubernetes.Quantity", Semver: "kubernetes.Semver", CelType: "type"}


def _type_name(v: Any) -> str:
    return _TYPE_NAMES.get(type(v), type(v).__name__)


def _no_overload_sig(name: str, args: tuple) -> CelError:
    return CelError(f"no such overload: {name}({', '.join(_type_name(a) for a in args)})")
