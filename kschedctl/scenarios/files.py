"""Finding and reading scenario files: discovery, YAML with line numbers, the JSON Schema, sense checks.

Every problem of every file is collected before anything runs, so that one ``kschedctl test``
lists them all (``file:line: message``) and exits 2. Directories are walked recursively for
``*.yaml`` / ``*.yml`` files holding a ``kind: Scenario`` document; other YAML there (the
cluster fixtures and pods the scenarios point at, configurations) is skipped without being
parsed. A file named explicitly must hold scenarios.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

import yaml

from kschedctl.config.lines import MAX_BYTES, LineWalker, nearest_line, read_nodes
from kschedctl.errors import InputError
from kschedctl.inputs import access
from kschedctl.scenarios.model import API_VERSION, KIND, POD_CHECKS, Scenario

_SCHEMA_PATH = Path(__file__).with_name("schema.json")
#: File name endings looked at inside directories.
EXTENSIONS = (".yaml", ".yml")
#: A top-level ``kind: Scenario`` line: how a file in a directory is recognized without parsing it.
_KIND_LINE = re.compile(r"""^kind:[ \t]*(["']?)Scenario\1[ \t]*(#.*)?$""", re.MULTILINE)
_TYPE_NAMES = {"string": "a string", "array": "a list", "object": "a mapping", "integer": "an integer",
               "boolean": "true or false", "number": "a number", "null": "null"}


@dataclass
class Finding:
    """One problem in a scenario file."""

    file: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "message": self.message}


class ScenarioFileError(InputError):
    """Scenario files that cannot be run (exit 2); ``findings`` lists every problem found."""

    def __init__(self, findings: list[Finding]) -> None:
        first = findings[0]
        more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
        super().__init__(first.message + more, first.file, first.line)
        self.findings = findings


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The JSON Schema of scenario files shipped with kschedctl."""
    return json.loads(_SCHEMA_PATH.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema

    return jsonschema.Draft202012Validator(schema())


# ------------------------------------------------------------------------------ discovery


def discover(paths: Iterable[str]) -> tuple[list[str], list[Finding]]:
    """The scenario files ``paths`` stand for, and the paths that could not be used.

    Files named explicitly are taken as they are; directories are walked (sorted, hidden
    directories skipped) for YAML files with a top-level ``kind: Scenario`` line.
    """
    files: list[str] = []
    problems: list[Finding] = []
    seen: set[str] = set()

    def add(path: str) -> None:
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            files.append(path)

    for path in paths:
        path = os.fspath(path)
        if os.path.isdir(path):
            try:
                access.check_path(path)  # os.walk below follows no symlinked directory but this one
            except InputError as exc:
                problems.append(Finding(path, None, exc.message))
                continue
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(names):
                    if name.endswith(EXTENSIONS) and not name.startswith("."):
                        candidate = os.path.join(root, name)
                        if _looks_like_scenario(candidate):
                            add(candidate)
        elif os.path.exists(path):
            add(path)
        else:
            problems.append(Finding(path, None, "no such file or directory"))
    return files, problems


def _looks_like_scenario(path: str) -> bool:
    try:
        with access.open_input(path) as fh:
            head = fh.read(MAX_BYTES + 1)
    except (OSError, InputError):
        return True  # let reading it report the problem
    return bool(_KIND_LINE.search(head.decode("utf-8", "replace")))


# ------------------------------------------------------------------------------ reading


def load_scenarios(paths: Iterable[str]) -> list[Scenario]:
    """Every scenario of ``paths``; raises :class:`ScenarioFileError` listing every problem."""
    paths = list(paths)
    files, findings = discover(paths)
    scenarios: list[Scenario] = []
    for file in files:
        found, problems = read_file(file)
        scenarios.extend(found)
        findings.extend(problems)
    if not findings and not scenarios:
        findings.append(Finding(", ".join(paths) or ".", None,
                                f"no scenario files found (YAML files with apiVersion: {API_VERSION}, kind: {KIND})"))
    if findings:
        raise ScenarioFileError(findings)
    return scenarios


def read_file(path: str) -> tuple[list[Scenario], list[Finding]]:
    """The scenarios of one file and the problems found in it."""
    try:
        with access.open_input(path) as fh:
            raw = fh.read(MAX_BYTES + 1)
    except InputError as exc:
        return [], [Finding(path, None, exc.message)]
    except OSError as exc:
        return [], [Finding(path, None, f"cannot read the file: {exc.strerror or exc}")]
    if len(raw) > MAX_BYTES:
        return [], [Finding(path, None, f"file is larger than {MAX_BYTES // (1024 * 1024)} MiB")]
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return [], [Finding(path, None, "the file is not UTF-8 text")]
    return parse_text(text, path)


def parse_text(text: str, name: str) -> tuple[list[Scenario], list[Finding]]:
    """The scenarios in ``text`` (one or more YAML documents) read as the file ``name``."""
    try:
        nodes = read_nodes(text, name)
    except InputError as exc:
        return [], [Finding(name, exc.line, exc.message)]
    scenarios: list[Scenario] = []
    findings: list[Finding] = []
    docs = [n for n in nodes if n is not None and not _is_null(n)]
    if not docs:
        return [], [Finding(name, None, f"no scenario in the file (expected apiVersion: {API_VERSION}, kind: {KIND})")]
    for node in docs:
        line = node.start_mark.line + 1
        walker = LineWalker(name)
        try:
            data = walker.build(node, "", 0)
        except InputError as exc:
            findings.append(Finding(name, exc.line, exc.message))
            continue
        lines = walker.lines
        if walker.duplicates:
            findings.extend(Finding(name, dup_line, f"{path}: duplicate key") for path, dup_line in walker.duplicates)
            continue
        if not isinstance(data, dict):
            findings.append(Finding(name, line, f"a scenario must be a mapping, not {_type_of(data)}"))
            continue
        if data.get("kind") != KIND:
            kind = data.get("kind")
            what = f"kind {kind}" if isinstance(kind, str) and kind else "no kind"
            findings.append(Finding(name, lines.get("kind", line),
                                    f"not a scenario ({what}): expected apiVersion: {API_VERSION}, kind: {KIND}"))
            continue
        problems = schema_findings(data, lines, name, line)
        if "expect" not in data and "steps" not in data:
            # The schema requires expect only without steps, which it cannot say in one field.
            problems = sorted([*problems, Finding(name, line, "expect: required field is missing")],
                              key=lambda f: (f.line or 0, f.message))
        problems = problems or sense_findings(data, lines, name)
        steps: list[Any] = []
        if not problems and data.get("steps"):
            steps, problems = _steps(data["steps"], lines, name)
        if problems:
            findings.extend(problems)
            continue
        scenarios.append(Scenario.from_document(data, name, line, lines, steps))
    return scenarios, findings


def _steps(specs: list[Any], lines: dict[str, int], file: str) -> tuple[list[Any], list[Finding]]:
    """The parsed steps, or the finding of the first bad one (unknown action, bad duration, ...)."""
    from kschedctl.scenarios.model import resolve_sources
    from kschedctl.analyses.steps import parse_steps

    try:
        steps = parse_steps(specs, lines, file)
    except InputError as exc:
        return [], [Finding(file, exc.line, exc.message)]
    resolve_sources(steps, file, lines)
    return steps, []


def _is_null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null")


# ------------------------------------------------------------------------------ checks


def schema_findings(doc: dict[str, Any], lines: dict[str, int], file: str, doc_line: int | None,
                    validator: Any = None, what: str = "the scenario") -> list[Finding]:
    """What the JSON Schema (the scenario schema unless ``validator`` is given) finds wrong in
    ``doc``, one clear sentence each, in file order; ``what`` names the document as a whole."""
    out: dict[tuple[int, str], Finding] = {}
    for error in (validator or _validator()).iter_errors(doc):
        for finding in _describe(error, lines, file, doc_line, what):
            # ``required`` is reported once per missing field, each naming them all.
            out.setdefault((finding.line or 0, finding.message), finding)
    return [out[k] for k in sorted(out)]


def _path(parts: Iterable[Any]) -> str:
    path = ""
    for p in parts:
        path = f"{path}[{p}]" if isinstance(p, int) else (f"{path}.{p}" if path else str(p))
    return path


def _line(lines: dict[str, int], path: str, default: int | None) -> int | None:
    line = nearest_line(lines, path)
    return default if line is None else line


def _describe(error: Any, lines: dict[str, int], file: str, doc_line: int | None,
              what: str = "the scenario") -> list[Finding]:
    path = _path(error.absolute_path)
    where = _line(lines, path, doc_line)
    label = path or what
    kind = error.validator
    instance = error.instance
    if kind == "additionalProperties" and isinstance(instance, dict):
        known = list((error.schema.get("properties") or {}).keys())
        out = []
        for key in instance:
            if key in known:
                continue
            sub = f"{path}.{key}" if path else key
            hint = _did_you_mean(key, known)
            out.append(Finding(file, _line(lines, sub, where),
                               f"{sub}: unknown field{hint} (allowed: {', '.join(known)})"))
        return out
    if kind == "required":
        missing = [k for k in error.validator_value if not isinstance(instance, dict) or k not in instance]
        return [Finding(file, where, f"{(path + '.') if path else ''}{k}: required field is missing")
                for k in missing]
    if kind == "const":
        return [Finding(file, where, f"{label}: must be {json.dumps(error.validator_value)}, not {_show(instance)}")]
    if kind == "enum":
        choices = [str(c) for c in error.validator_value]
        hint = _did_you_mean(str(instance), choices) if isinstance(instance, str) else ""
        return [Finding(file, where, f"{label}: {_show(instance)} is not one of {', '.join(choices)}{hint}")]
    if kind == "type":
        types = error.validator_value if isinstance(error.validator_value, list) else [error.validator_value]
        wanted = " or ".join(_TYPE_NAMES.get(t, t) for t in types)
        return [Finding(file, where, f"{label}: must be {wanted}, not {_type_of(instance)}")]
    if kind == "minItems":
        return [Finding(file, where, f"{label}: must not be empty")]
    if kind == "minLength":
        return [Finding(file, where, f"{label}: must not be an empty string")]
    if kind == "minProperties":
        return [Finding(file, where, f"{label}: must not be empty")]
    if kind == "minimum":
        return [Finding(file, where, f"{label}: must be at least {error.validator_value}, not {_show(instance)}")]
    if kind == "maximum":
        return [Finding(file, where, f"{label}: must be at most {error.validator_value}, not {_show(instance)}")]
    return [Finding(file, where, f"{label}: {error.message}")]


def sense_findings(doc: dict[str, Any], lines: dict[str, int], file: str) -> list[Finding]:
    """Rules the schema does not express: every expectation checks something, no contradictions."""
    out: list[Finding] = []
    has_pods = bool(doc.get("pods"))
    steps = doc.get("steps") or []
    if "expect" not in doc and steps and not any(isinstance(s, dict) and s.get("expect") for s in steps):
        out.append(Finding(file, lines.get("steps"), "steps: the scenario checks nothing: give expect: on a step"))
    for i, exp in enumerate(doc.get("expect") or []):
        path = f"expect[{i}]"
        line = lines.get(path)
        checks = [k for k in POD_CHECKS if k in exp]
        if "simulate" in exp:
            clash = checks + (["pod"] if "pod" in exp else [])
            if clash:
                out.append(Finding(file, line, f"{path}: simulate looks at the whole run and cannot be combined "
                                               f"with {', '.join(clash)}: write them as a separate expectation"))
            continue
        if not checks:
            out.append(Finding(file, line, f"{path}: checks nothing: give outcome, node, nodeIn, notNode, "
                                           f"messageContains, rank, filter, victims, nominatedNode or simulate"))
            continue
        if not has_pods:
            out.append(Finding(file, line, f"{path}: the scenario has no pods to check (add pods:)"))
        if "node" in exp and "nodeIn" in exp:
            out.append(Finding(file, lines.get(f"{path}.nodeIn", line), f"{path}: give node or nodeIn, not both"))
        rank = exp.get("rank")
        if isinstance(rank, dict) and ("is" in rank) == ("atMost" in rank):
            out.append(Finding(file, lines.get(f"{path}.rank", line),
                               f"{path}.rank: give exactly one of is (the exact rank) or atMost"))
        filt = exp.get("filter")
        if isinstance(filt, dict) and filt.get("code") == "Success" and ("reason" in filt or "reasonContains" in filt):
            out.append(Finding(file, lines.get(f"{path}.filter", line),
                               f"{path}.filter: code Success has no reason to check"))
    return out


def _did_you_mean(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    if not close:
        lowered = {c.lower(): c for c in choices}
        if word.lower() in lowered:
            close = [lowered[word.lower()]]
    return f' (did you mean "{close[0]}"?)' if close else ""


#: Longest piece of a file's text a message quotes: errors say where, not what the file holds.
_QUOTE_MAX = 60


def _quoted(text: str) -> str:
    shown = json.dumps(text)
    return shown if len(shown) <= _QUOTE_MAX else shown[:_QUOTE_MAX - 4] + '..."'


def _show(value: Any) -> str:
    if isinstance(value, str):
        return _quoted(value)
    if isinstance(value, (dict, list)):
        return _type_of(value)
    return json.dumps(value)


def _type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {_quoted(value)}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__
