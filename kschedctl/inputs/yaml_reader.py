"""The one safe YAML reader: untrusted text in, checked nodes or plain Python data out.

Every YAML document kschedctl reads (cluster state, pods, scheduler configurations, scenario
files) goes through this module, so the protections live in one place:

- libyaml parses and composes (``yaml.CSafeLoader``, the pure-Python SafeLoader when PyYAML
  was built without it);
- nesting is bounded before the C composer, which recurses on the C stack, sees the text
  (a cheap bound on the text first; an event pre-scan only when that bound is not enough);
- aliases are checked before anything is built, with the rule go-yaml (hence kubectl)
  applies ("document contains excessive aliasing"): this stops "billion laughs"; aliases to
  unknown anchors and to anchors that contain them are refused;
- integer literals longer than ``MAX_NUMBER_CHARS`` are refused (``int()`` is quadratic);
- every fault is an ``InputError`` naming the file and, where known, the line. Its words come
  from the caller's :class:`Wording`: cluster inputs and the configuration keep the texts
  their users already know.

Two ways out:

- :func:`compose` gives the root nodes, for layers that need positions (the configuration's
  field path -> line map, :mod:`kschedctl.config.lines`);
- :func:`documents` gives plain data, exactly what PyYAML's SafeLoader builds (YAML 1.1
  implicit types, merge keys), except that timestamps stay strings as go-yaml hands them to
  kubectl and aliases never share a dict. A lean builder makes the data straight from
  libyaml's events, with no node tree in between (a 50,000-pod ``kind: List`` would need
  over a gigabyte of nodes) and each distinct plain scalar resolved once. It covers what
  real files hold; from the first document holding anything else (other tags, complex keys,
  duplicate anchors, a value it cannot read) PyYAML's own constructor builds the rest, so
  values and error messages are PyYAML's either way.
"""

from __future__ import annotations

import re
from contextlib import closing
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, NamedTuple

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from kschedctl import limits
from kschedctl.errors import InputError

__all__ = ["MAX_DEPTH", "MAX_NUMBER_CHARS", "CLoader", "Doc", "Rules", "Wording", "compose", "documents",
           "load_all", "number_reason"]

#: Deepest nesting of mappings and sequences accepted in one document (kschedctl.limits).
MAX_DEPTH = limits.INPUT_MAX_DEPTH
#: Longest integer literal accepted, in characters.
MAX_NUMBER_CHARS = limits.MAX_NUMBER_CHARS

#: The loader class everything parses with: libyaml's when PyYAML has it.
CLoader: Any = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader

_T = "tag:yaml.org,2002:"
_STR = yaml.resolver.BaseResolver.DEFAULT_SCALAR_TAG
_SEQ = yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG
_MAP = yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG
_NULL, _BOOL, _INT, _FLOAT, _TIMESTAMP = (_T + k for k in ("null", "bool", "int", "float", "timestamp"))
_MERGE, _VALUE = _T + "merge", _T + "value"


# --------------------------------------------------------------------------- wording


class Wording:
    """How the reader's faults are worded: the texts of cluster and pod inputs.

    A caller whose users know other texts (the configuration) subclasses it; the checks stay here.
    """

    def syntax(self, exc: yaml.YAMLError, name: str, text: str) -> InputError:
        """A fault libyaml or PyYAML reported: the text is not YAML we can read."""
        if isinstance(exc, yaml.MarkedYAMLError):
            mark = exc.problem_mark or exc.context_mark
            parts = [p for p in (exc.context, exc.problem) if p]
            reason = ", ".join(parts) or "malformed"
            if mark is not None and text and 0 <= mark.index < len(text) and text[mark.index] == "\t":
                reason += " (a tab: YAML is indented with spaces only)"
            if mark is not None:
                return InputError(f"invalid YAML: {reason} (column {mark.column + 1})", name, mark.line + 1)
            return InputError(f"invalid YAML: {reason}", name)
        if isinstance(exc, yaml.reader.ReaderError):
            line = text.count("\n", 0, exc.position) + 1 if text and isinstance(exc.position, int) else None
            char = exc.character
            code = ord(char) if isinstance(char, str) and len(char) == 1 else char
            if isinstance(code, int):
                return InputError(f"invalid YAML: unacceptable character #x{code:04x} ({exc.reason})", name, line)
            return InputError(f"invalid YAML: {exc.reason}", name, line)
        return InputError(f"invalid YAML: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}", name)

    def too_deep(self, name: str, line: int | None, limit: int, anchor: str | None = None) -> InputError:
        """Nesting beyond ``limit`` (``anchor``: reached through that alias)."""
        via = f" (through alias '{anchor}')" if anchor else ""
        return InputError(f"document nested deeper than {limit} levels{via}", name, line)

    def unknown_anchor(self, name: str, line: int, anchor: str) -> InputError:
        """An alias to an anchor not defined before it."""
        return InputError(f"invalid YAML: unknown anchor '{anchor}' referenced", name, line)

    def self_alias(self, name: str, line: int, anchor: str) -> InputError:
        """An alias inside the value its anchor names (a cycle)."""
        return InputError(f"invalid YAML: anchor '{anchor}' value contains itself", name, line)

    def excessive_aliasing(self, name: str, line: int) -> InputError:
        """Aliases expand to too much of the document (go-yaml's rule)."""
        return InputError("invalid YAML: document contains excessive aliasing", name, line)

    def bad_value(self, name: str, line: int, exc: Exception) -> InputError:
        """A scalar PyYAML could not turn into a value (``!!int abc``, ``!!bool maybe``)."""
        if isinstance(exc, ValueError):
            return InputError(f"invalid YAML: {number_reason(exc)}", name, line)
        return InputError(f"invalid YAML: a tagged value cannot be read ({type(exc).__name__}: {exc})",
                          name, line)


def number_reason(exc: ValueError) -> str:
    """A short reason for a number Python could not read (YAML and JSON alike)."""
    msg = str(exc)
    if "digits" in msg or "integer" in msg:
        return "integer literal too large"
    return msg.splitlines()[0] if msg else "invalid number"


@dataclass(frozen=True)
class Rules:
    """What a caller allows: nesting depth, alias checks, and the words for faults.

    ``check_aliases`` off leaves aliases to a caller that walks nodes itself (the configuration's
    line walker has a budget of its own, whose messages its users know); :func:`documents`
    checks them anyway. Nesting is bounded either way, since the composer would crash on it.
    """

    max_depth: int = MAX_DEPTH
    check_aliases: bool = True
    wording: Wording = field(default_factory=Wording)


_DEFAULT_RULES = Rules()


# --------------------------------------------------------------------------- loaders


def _construct_int(loader: Any, node: ScalarNode) -> int:
    value = loader.construct_scalar(node)
    if len(value) > MAX_NUMBER_CHARS:
        raise yaml.constructor.ConstructorError(
            None, None, f"integer literal of {len(value)} characters is too large", node.start_mark)
    return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)


def _construct_timestamp(loader: Any, node: ScalarNode) -> str:
    # go-yaml hands timestamps to kubectl as strings; keep them as written.
    return loader.construct_scalar(node)


class _Loader(CLoader):  # type: ignore[misc, valid-type]
    """SafeLoader (libyaml when present) with go-yaml's reading of timestamps and a cap on ints."""


_Loader.add_constructor(_INT, _construct_int)
_Loader.add_constructor(_TIMESTAMP, _construct_timestamp)


# --------------------------------------------------------------------------- nesting and aliases

_BLOCK_PREFIX_CACHE: dict[tuple[int, bool], re.Pattern[str]] = {}


def _block_prefix_re(k: int, props: bool) -> re.Pattern[str]:
    pat = _BLOCK_PREFIX_CACHE.get((k, props))
    if pat is None:
        token = r"(?:[ \t?:\-]|[&!][^ \t\r\n]*)" if props else r"[ \t?:\-]"
        pat = _BLOCK_PREFIX_CACHE[(k, props)] = re.compile(r"^%s{%d}" % (token, k), re.M)
    return pat


def _depth_surely_ok(text: str, max_depth: int) -> bool:
    """A cheap upper bound on nesting: flow brackets plus two levels per column of block indent.

    A block collection nested in another starts at least one column further right, or after
    an indicator (``- ``, ``? ``, ``: ``, an anchor or a tag) on the same line, so no line
    with a prefix of k such tokens means at most about 2k block levels.
    """
    flow = text.count("[") + text.count("{") - text.count("[]") - text.count("{}") + 1
    room = max_depth - flow - 2
    if room < 2:
        return False
    k = room // 2
    props = "&" in text or "!" in text
    return _block_prefix_re(k, props).search(text) is None


def _alias_ratio(decode_count: int) -> float:
    # go-yaml's allowedAliasRatio: 99% up to 400k decoded nodes, falling to 10% at 4M.
    if decode_count <= 400_000:
        return 0.99
    if decode_count >= 4_000_000:
        return 0.10
    return 0.99 - 0.89 * (decode_count - 400_000) / 3_600_000


def _syntax_fault(exc: yaml.YAMLError, name: str, text: str, rules: Rules) -> InputError:
    """What libyaml reported, in the rules' wording. Newer libyaml builds (PyYAML 6.0.4) stop at a
    nesting depth of their own, which can come before our limit is checked (the scanner reads
    flow collections ahead): that is the same fault as ours, worded as ours."""
    if isinstance(exc, yaml.MarkedYAMLError) and "exceeded maximum nesting depth" in (exc.problem or ""):
        mark = exc.problem_mark
        return rules.wording.too_deep(name, mark.line + 1 if mark is not None else None, rules.max_depth)
    return rules.wording.syntax(exc, name, text)


def _prescan(text: str, name: str, rules: Rules, check_depth: bool) -> None:
    """Walk the event stream (iterative, in C) to check nesting and aliases before composing.

    Per document: depth (aliases count with the height of what they point to), aliases to
    an anchor still open ("contains itself"), unknown anchors, and go-yaml's alias ratio.
    """
    words = rules.wording
    limit = rules.max_depth
    check_aliases = rules.check_aliases
    loader = CLoader(text)
    try:
        ScalarEvent, AliasEvent = yaml.ScalarEvent, yaml.AliasEvent
        starts = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
        ends = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
        # Per open collection: [expanded node count, height, anchor].
        stack: list[list[Any]] = []
        anchors: dict[str, tuple[int, int] | None] = {}
        decoded = aliased = 0
        while True:
            ev = loader.get_event()
            if ev is None:
                break
            cls = type(ev)
            if cls is ScalarEvent:
                if stack:
                    stack[-1][0] += 1
                else:
                    decoded += 1
                if ev.anchor:
                    anchors[ev.anchor] = (1, 0)
                continue
            if cls in starts:
                if len(stack) >= limit:
                    raise words.too_deep(name, ev.start_mark.line + 1, limit)
                stack.append([1, 1, ev.anchor])
                if ev.anchor:
                    anchors[ev.anchor] = None  # open: an alias to it now would contain itself
                continue
            if cls in ends:
                size, height, anchor = stack.pop()
                if anchor:
                    anchors[anchor] = (size, height)
                if stack:
                    parent = stack[-1]
                    parent[0] += size
                    if height + 1 > parent[1]:
                        parent[1] = height + 1
                else:
                    decoded += size
                continue
            if cls is AliasEvent:
                if not check_aliases:
                    continue
                if ev.anchor not in anchors:
                    raise words.unknown_anchor(name, ev.start_mark.line + 1, ev.anchor)
                target = anchors[ev.anchor]
                if target is None:
                    raise words.self_alias(name, ev.start_mark.line + 1, ev.anchor)
                size, height = target
                if check_depth and len(stack) + height > limit:
                    raise words.too_deep(name, ev.start_mark.line + 1, limit, ev.anchor)
                if stack:
                    stack[-1][0] += 1 + size
                    if height + 1 > stack[-1][1]:
                        stack[-1][1] = height + 1
                    decoded_now = decoded + sum(s[0] for s in stack)
                else:
                    decoded += 1 + size
                    decoded_now = decoded
                aliased += size
                if aliased > 100 and decoded_now > 1000 and aliased / decoded_now > _alias_ratio(decoded_now):
                    raise words.excessive_aliasing(name, ev.start_mark.line + 1)
                continue
            if cls is yaml.DocumentStartEvent:
                anchors = {}
                decoded = aliased = 0
    except yaml.YAMLError as exc:
        raise _syntax_fault(exc, name, text, rules) from None
    finally:
        loader.dispose()


def _check(text: str, name: str, rules: Rules) -> bool:
    """Pre-scan ``text`` when its nesting or aliases need it; whether it may hold aliases."""
    has_alias = "*" in text
    check_depth = not _depth_surely_ok(text, rules.max_depth)
    if (has_alias and rules.check_aliases) or check_depth:
        _prescan(text, name, rules, check_depth)
    return has_alias


# --------------------------------------------------------------------------- nodes


def compose(text: str, name: str, rules: Rules = _DEFAULT_RULES, single: bool = False) -> list[Node]:
    """The root node of every document in ``text``, checked (nesting, and aliases if the rules say so).

    ``single``: the text must hold at most one document (PyYAML's ``compose``); the list is
    then ``[root]``, or ``[None]`` when the text holds no document.
    """
    words = rules.wording
    _check(text, name, rules)
    loader = _Loader(text)
    try:
        if single:
            return [loader.get_single_node()]
        nodes = []
        while loader.check_node():
            nodes.append(loader.get_node())
        return nodes
    except yaml.YAMLError as exc:
        raise _syntax_fault(exc, name, text, rules) from None
    except RecursionError:  # pragma: no cover - the pre-scan bounds nesting first
        raise words.too_deep(name, None, rules.max_depth) from None
    finally:
        loader.dispose()


# --------------------------------------------------------------------------- data


class Doc(NamedTuple):
    """One document as plain data."""

    #: The document's value (None for an empty document).
    value: Any
    #: The line its root node starts at.
    line: int | None
    #: The lines of the items of its top-level ``items`` sequence (``kind: List``), if any.
    item_lines: list[int] | None


def documents(text: str, name: str, rules: Rules = _DEFAULT_RULES) -> Iterator[Doc]:
    """Each document of ``text`` as plain data, read lazily.

    A document is read only when the previous one has been taken, so that a problem the
    caller finds in an early document is reported before a syntax error further down, as
    with PyYAML. The values are what SafeLoader gives (timestamps as strings, integers at most
    ``MAX_NUMBER_CHARS`` characters) with no dict or list shared between two places.
    """
    words = rules.wording
    # The data expands every alias: they are always checked here, whatever the rules say.
    has_alias = _check(text, name, rules if rules.check_aliases else replace(rules, check_aliases=True))
    done = 0
    try:
        try:
            for doc in _fast_documents(text):
                yield doc
                done += 1
        except _Unusual:
            # From the first document the lean builder leaves to PyYAML, PyYAML builds them all.
            yield from _constructed_documents(text, name, words, skip=done, unshare=has_alias)
    except yaml.YAMLError as exc:
        raise _syntax_fault(exc, name, text, rules) from None
    except RecursionError:
        raise words.too_deep(name, None, rules.max_depth) from None


def load_all(text: str, name: str, rules: Rules = _DEFAULT_RULES) -> list[Any]:
    """The value of every document of ``text`` (``None`` for empty ones)."""
    with closing(documents(text, name, rules)) as docs:
        return [doc.value for doc in docs]


def _constructed_documents(text: str, name: str, words: Wording, skip: int, unshare: bool) -> Iterator[Doc]:
    """Documents composed and built by PyYAML (SafeLoader, our int and timestamp rules)."""
    loader = _Loader(text)
    try:
        while loader.check_node():
            node = loader.get_node()
            if node is None:
                continue
            if skip:  # already given by the lean builder
                skip -= 1
                continue
            try:
                obj = loader.construct_document(node)
            except (ValueError, LookupError, TypeError) as exc:
                # ``!!int abc``, ``!!bool maybe``, ``!!int ""``: PyYAML's functions fail with
                # Python errors, not YAML ones.
                raise words.bad_value(name, node.start_mark.line + 1, exc) from None
            if unshare:
                # go-yaml decodes every alias into its own value; never share dicts.
                obj = _unshare(obj)
            yield Doc(obj, node.start_mark.line + 1, _item_lines(node))
    finally:
        loader.dispose()


def _item_lines(node: Node) -> list[int] | None:
    """Lines of the items of the first ``items`` key holding a sequence (after merges)."""
    if not isinstance(node, MappingNode):
        return None
    for key, value in node.value:
        if isinstance(key, ScalarNode) and key.value == "items" and isinstance(value, SequenceNode):
            return [child.start_mark.line + 1 for child in value.value]
    return None


# --------------------------------------------------------------------------- the lean builder


class _Unusual(Exception):
    """Something in a document the lean builder leaves to PyYAML's constructor."""


class _Marker:
    """A plain scalar whose meaning depends on where it stands (``<<`` and ``=``)."""

    __slots__ = ()


_MERGE_MARK, _VALUE_MARK = _Marker(), _Marker()


class _MergeKey:
    """Stands for one ``<<`` key of a mapping until the mapping ends and the merge is made."""

    __slots__ = ()


_MISS = object()
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_BOOL_VALUES: dict[str, bool] = _CONSTRUCTOR.bool_values
_IMPLICIT = CLoader.yaml_implicit_resolvers
#: First characters some implicit resolver looks at ("" for the empty scalar, which is null).
_RESOLVED_FIRST = frozenset(_IMPLICIT)
if None in _IMPLICIT or CLoader.yaml_path_resolvers:  # pragma: no cover
    raise ImportError("kschedctl's YAML reader expects PyYAML's SafeLoader resolvers")


def _plain_tag(value: str) -> str:
    """The tag PyYAML's resolver gives a plain scalar (``Resolver.resolve``, no path resolvers)."""
    for tag, regexp in _IMPLICIT.get(value[:1], ()):
        if regexp.match(value):
            return tag
    return _STR


def _plain_value(value: str) -> Any:
    """A plain scalar that may not be a string, as SafeLoader reads it (or a marker)."""
    tag = _plain_tag(value)
    if tag == _STR:
        return value
    if tag == _MERGE:
        return _MERGE_MARK
    if tag == _VALUE:
        return _VALUE_MARK
    return _tagged_value(tag, value)


def _tagged_value(tag: str, value: str) -> Any:
    """A scalar with a core tag, as SafeLoader with our int and timestamp rules reads it."""
    if tag == _STR or tag == _TIMESTAMP:
        return value
    if tag == _NULL:
        return None
    if tag == _BOOL:
        result = _BOOL_VALUES.get(value.lower())
        if result is None:
            raise _Unusual
        return result
    if tag == _INT:
        if len(value) > MAX_NUMBER_CHARS:
            raise _Unusual
        construct = _CONSTRUCTOR.construct_yaml_int
    elif tag == _FLOAT:
        construct = _CONSTRUCTOR.construct_yaml_float
    else:
        raise _Unusual
    try:
        return construct(ScalarNode(tag, value))
    except Exception:
        raise _Unusual from None


def _merge(mapping: dict[Any, Any]) -> None:
    """Apply the ``<<`` keys of ``mapping`` in place, as SafeConstructor's flatten_mapping orders
    them: merged keys first (later sources of a list first, so earlier ones win), own keys last."""
    own: dict[Any, Any] = {}
    sources: list[dict[Any, Any]] = []
    merge_keys = 0
    for key, value in mapping.items():
        if key.__class__ is not _MergeKey:
            own[key] = value
            continue
        merge_keys += 1
        if merge_keys > 1:
            # Which of two ``<<`` keys wins changed in PyYAML 6.0.4 (the first now): the
            # installed PyYAML decides, so the answer is the one it would give.
            raise _Unusual
        if value.__class__ is dict:
            sources.append(value)
        elif value.__class__ is list and all(v.__class__ is dict for v in value):
            sources.extend(reversed(value))
        else:
            raise _Unusual  # PyYAML's "expected a mapping or list of mappings for merging"
    mapping.clear()
    for source in sources:
        mapping.update(source)
    mapping.update(own)


def _fast_documents(text: str) -> Iterator[Doc]:
    """Documents built straight from libyaml's events, with no node tree in between.

    Covers what real files hold: core tags, implicit scalars, anchors and aliases (each alias
    a copy), merge keys. Raises ``_Unusual`` before giving a document that needs PyYAML's
    constructor (other tags, complex keys, duplicate anchors, unreadable values).
    """
    parser = CLoader(text)
    get_event = parser.get_event
    Scalar, Alias = yaml.ScalarEvent, yaml.AliasEvent
    MapStart, SeqStart = yaml.MappingStartEvent, yaml.SequenceStartEvent
    MapEnd, SeqEnd = yaml.MappingEndEvent, yaml.SequenceEndEvent
    DocStart, DocEnd = yaml.DocumentStartEvent, yaml.DocumentEndEvent
    resolved_first = _RESOLVED_FIRST
    plain_values: dict[str, Any] = {}
    tagged_values: dict[tuple[str, str], Any] = {}
    try:
        while True:
            ev = get_event()
            if ev is None:
                return
            if ev.__class__ is not DocStart:
                continue
            anchors: dict[str, tuple[Any, int] | None] = {}
            # Per open collection: (parent container, parent is a mapping, anchor, start line).
            stack: list[tuple[Any, bool, str | None, int]] = []
            merging: list[dict[Any, Any]] = []  # open mappings with a << key, innermost last
            cur: Any = None
            is_map = has_key = False
            key: Any = None
            root: Any = None
            root_line = 0
            items: list[Any] | None = None  # the root's ``items`` sequence, whose item lines we keep
            item_lines: list[int] | None = None
            while True:
                ev = get_event()
                cls = ev.__class__
                opening = False
                if cls is Scalar:
                    value = ev.value
                    tag = ev.tag
                    if tag is None or tag == "!":
                        if ev.implicit[0] and value[:1] in resolved_first:
                            v = plain_values.get(value, _MISS)
                            if v is _MISS:
                                v = plain_values[value] = _plain_value(value)
                            if v.__class__ is _Marker:
                                # ``<<`` or ``=``: only meaningful as a key.
                                if not is_map or has_key or ev.anchor is not None:
                                    raise _Unusual
                                if v is _VALUE_MARK:
                                    v = value
                                elif len(stack) == 1:
                                    raise _Unusual  # merges at the root change which ``items`` counts
                                else:
                                    v = _MergeKey()
                                    if not merging or merging[-1] is not cur:
                                        merging.append(cur)
                        else:
                            v = value
                    else:
                        v = tagged_values.get((tag, value), _MISS)
                        if v is _MISS:
                            v = tagged_values[(tag, value)] = _tagged_value(tag, value)
                    collection = False
                    if ev.anchor is not None:
                        if ev.anchor in anchors:
                            raise _Unusual  # PyYAML's composer refuses a duplicate anchor
                        anchors[ev.anchor] = (v, ev.start_mark.line + 1)
                elif cls is MapStart or cls is SeqStart:
                    opening = collection = True
                    tag = ev.tag
                    if tag is not None and tag != "!" and tag != (_MAP if cls is MapStart else _SEQ):
                        raise _Unusual
                    v = {} if cls is MapStart else []
                    if ev.anchor is not None:
                        if ev.anchor in anchors:
                            raise _Unusual  # PyYAML's composer refuses a duplicate anchor
                        anchors[ev.anchor] = None  # open: known, but not yet an alias target
                elif cls is Alias:
                    target = anchors.get(ev.anchor)
                    if target is None:
                        raise _Unusual  # unknown, or still open (the pre-scan refuses both)
                    v, alias_line = target
                    collection = v.__class__ is dict or v.__class__ is list
                    if collection:
                        v = _unshare(v)
                elif cls is MapEnd or cls is SeqEnd:
                    if merging and merging[-1] is cur:
                        merging.pop()
                        _merge(cur)
                    done = cur
                    cur, is_map, anchor, line = stack.pop()
                    if anchor is not None:
                        anchors[anchor] = (done, line)
                    continue
                elif cls is DocEnd:
                    break
                else:  # pragma: no cover - nothing else stands inside a document
                    continue
                # Place the value where it stands.
                if is_map:
                    if has_key:
                        if key == "items" and len(stack) == 1:
                            if cls is Alias:
                                raise _Unusual  # its item lines would be the anchor's
                            if cls is SeqStart and item_lines is None:
                                items, item_lines = v, []
                        cur[key] = v
                        has_key = False
                    elif collection:
                        raise _Unusual  # a mapping or sequence as a key
                    else:
                        key = v
                        has_key = True
                elif cur is not None:
                    cur.append(v)
                    if cur is items:
                        item_lines.append(alias_line if cls is Alias else ev.start_mark.line + 1)  # type: ignore
                else:
                    root, root_line = v, ev.start_mark.line + 1
                if opening:
                    anchor = ev.anchor
                    stack.append((cur, is_map, anchor, 0 if anchor is None else ev.start_mark.line + 1))
                    cur, is_map = v, cls is MapStart
            yield Doc(root, root_line, item_lines)
    finally:
        parser.dispose()


def _unshare(value: Any) -> Any:
    """A copy in which no dict or list appears twice (deepcopy would keep the sharing).

    Only used for documents with aliases, whose expanded size the pre-scan has bounded.
    """
    if isinstance(value, dict):
        return {k: _unshare(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unshare(v) for v in value]
    return value
