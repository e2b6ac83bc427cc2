"""Semantic versions: blang/semver v4 Parse, and the apiserver's normalizing variant."""

from __future__ import annotations

from kschedctl.k8s.strconv import NumError, parse_uint, quote

from .errors import CelError, _MAX_INT
from .values import Semver


_DIGITS = frozenset("0123456789")
_SEMVER_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")


def _parse_uint64(s: str) -> int:
    try:
        return parse_uint(s, 64)
    except NumError as err:
        raise CelError(str(err)) from None


def _only(s: str, chars: frozenset) -> bool:
    return all(c in chars for c in s)


def _parse_semver(s: str) -> Semver:
    """semver.Parse (strict); CelError with blang's error text."""
    if not s:
        raise CelError("Version string empty")
    parts = s.split(".", 2)
    if len(parts) != 3:
        raise CelError("No Major.Minor.Patch elements found")
    nums = []
    for label, p in (("major", parts[0]), ("minor", parts[1])):
        if not _only(p, _DIGITS):
            raise CelError(f"Invalid character(s) found in {label} number {quote(p)}")
        if len(p) > 1 and p[0] == "0":
            raise CelError(f"{label.capitalize()} number must not contain leading zeroes {quote(p)}")
        nums.append(_parse_uint64(p))
    patch = parts[2]
    build: list[str] = []
    pre: list[str] = []
    i = patch.find("+")
    if i >= 0:
        build = patch[i + 1:].split(".")
        patch = patch[:i]
    i = patch.find("-")
    if i >= 0:
        pre = patch[i + 1:].split(".")
        patch = patch[:i]
    if not _only(patch, _DIGITS):
        raise CelError(f"Invalid character(s) found in patch number {quote(patch)}")
    if len(patch) > 1 and patch[0] == "0":
        raise CelError(f"Patch number must not contain leading zeroes {quote(patch)}")
    nums.append(_parse_uint64(patch))
    pres = []
    for p in pre:
        if not p:
            raise CelError("Prerelease is empty")
        if _only(p, _DIGITS):
            if len(p) > 1 and p[0] == "0":
                raise CelError(f"Numeric PreRelease version must not contain leading zeroes {quote(p)}")
            pres.append((True, _parse_uint64(p), ""))
        elif _only(p, _SEMVER_ALNUM):
            pres.append((False, 0, p))
        else:
            raise CelError(f"Invalid character(s) found in prerelease {quote(p)}")
    for b in build:
        if not b:
            raise CelError("Build meta data is empty")
        if not _only(b, _SEMVER_ALNUM):
            raise CelError(f"Invalid character(s) found in build meta data {quote(b)}")
    return Semver(nums[0], nums[1], nums[2], tuple(pres), tuple(build))


def _normalize_parse_semver(s: str) -> Semver:
    """The apiserver's normalizeAndParse: tolerate a leading v, leading zeros and missing parts."""
    if s.startswith("v"):
        s = s[1:]
    parts = s.split(".", 2)
    for i, p in enumerate(parts):
        if len(p) > 1:
            p = p.lstrip("0")
            if not p or p[0] not in _DIGITS:
                p = "0" + p
            parts[i] = p
    if len(parts) < 3:
        if any(c in parts[-1] for c in "+-"):
            raise CelError("short version cannot contain PreRelease/Build meta data")
        parts += ["0"] * (3 - len(parts))
    return _parse_semver(".".join(parts))


def _go_int64(u: int) -> int:
    """types.Int(uint64): Go's conversion wraps values above 2^63-1."""
    return u - (1 << 64) if u > _MAX_INT else u
