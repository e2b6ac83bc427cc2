"""Machine-readable output: ``-o json`` and ``-o yaml`` print the same structure.

Both carry every string as it is, in the format's own escapes where a character could not be
printed as it is: JSON writes C1 controls, Unicode line separators, bidirectional overrides and
the undecodable bytes of a file name as ``\\uXXXX`` (it already escapes C0 controls); YAML writes
any string holding a control character double-quoted, where PyYAML escapes them (``\\n``,
``\\e``, ``\\N``), and an undecodable byte of a file name as ``\\xff`` text. So no line break of
a value starts a new output line, and nothing reaches a terminal as a control sequence. Nor does
YAML fold a long value at a space onto a new line (where ``text ::warning::x`` would put a
workflow command at the start of a line): lines are never wrapped. A string holding ``::`` is
double-quoted (a key ``::warning::x`` would otherwise begin a line), and the bracket of ``##[``,
the runner's older command mark acted on anywhere in a line, is written as an escape in both
(``\\u005b`` in JSON, ``\\x5b`` in a double-quoted YAML string): the values read back unchanged.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from kschedctl.printable import OLD_COMMAND_MARK, has_unsafe, printable

_BaseDumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

#: What JSON (with ensure_ascii=False) would print as it is, but a terminal or CI log must not see.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_SURROGATES = re.compile("[\ud800-\udfff]")
#: A line width no value reaches: PyYAML folds longer scalars at spaces.
_NEVER_WRAP = 1 << 30


class _Dumper(_BaseDumper):  # type: ignore[misc, valid-type]
    pass


def _represent_str(dumper: Any, value: str) -> Any:
    if not has_unsafe(value, keep="\t") and "::" not in value:
        return dumper.represent_str(value)
    if _SURROGATES.search(value):  # libyaml cannot encode them: the bytes as \xff text
        value = _SURROGATES.sub(lambda m: printable(m.group()), value)
        if not has_unsafe(value, keep="\t") and "::" not in value:
            return dumper.represent_str(value)
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')


def _represent_str_subclass(dumper: Any, value: str) -> Any:
    """A ``str`` subclass (an ``Outcome``, any ``StrEnum``) as the plain string it is, never a
    Python tag nor a refusal to represent it."""
    return _represent_str(dumper, str.__str__(value))


_Dumper.add_representer(str, _represent_str)
_Dumper.add_multi_representer(str, _represent_str_subclass)


def to_json(data: Any) -> str:
    text = _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json.dumps(data, indent=2, ensure_ascii=False))
    # JSON never escapes "#", so every ##[ of the text is one of a string's
    return text.replace(OLD_COMMAND_MARK, "##\\u005b") if OLD_COMMAND_MARK in text else text


def to_yaml(data: Any) -> str:
    text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False,
                     width=_NEVER_WRAP)
    # Every string holding ##[ is double-quoted (has_unsafe), where \x5b is the bracket.
    return text.replace(OLD_COMMAND_MARK, "##\\x5b") if OLD_COMMAND_MARK in text else text


def to_yaml_documents(docs: list[Any]) -> str:
    """``docs`` as YAML documents (each after ``---``), under the same rules as ``to_yaml``."""
    text = yaml.dump_all(docs, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False,
                         width=_NEVER_WRAP, explicit_start=True)
    return text.replace(OLD_COMMAND_MARK, "##\\x5b") if OLD_COMMAND_MARK in text else text


def dump(data: Any, fmt: str) -> str:
    """``data`` (plain dicts/lists) as ``json`` or ``yaml`` text, ending with a newline."""
    if fmt == "json":
        return to_json(data) + "\n"
    if fmt == "yaml":
        return to_yaml(data)
    raise ValueError(f"not a machine-readable format: {fmt}")
