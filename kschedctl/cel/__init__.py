"""A CEL (Common Expression Language) evaluator for DRA device selectors, written for kschedctl.

What it implements
------------------
The ``CELDeviceSelector.expression`` language of Kubernetes v1.34's scheduler: the environment that
``k8s.io/dynamic-resource-allocation/cel`` (``compile.go``, release-1.34) builds on
``environment.StoredExpressions`` (every library, feature gates ignored), evaluated against one
variable, ``device`` (``driver``, ``attributes`` and ``capacity`` by domain and id, names without a
domain under the driver's, and ``allowMultipleAllocations``, always false: the v1.34 allocators do
not pass it). The value is built once per device (``Device.cel_value``); expressions are compiled
once per run (``CelCache``):

* a lexer and recursive-descent parser for the CEL grammar (cel-go v0.26.0 ``CEL.g4``): int / uint /
  double / string / bytes literals (raw, triple-quoted, every escape), ``null``, bools, lists, maps,
  ``! - * / % + - < <= > >= == != in && || ?:``, ``.field`` (reserved words such as ``if`` and
  identifiers such as ``bool`` or ``int`` are plain field names after ``.``; the tokens ``in true
  false null`` are not, as in CEL.g4), ``[index]``, global and
  member calls, and the macros ``has all exists exists_one map (2 and 3 args) filter``, ``cel.bind``,
  the two-variable comprehensions (``all exists existsOne exists_one`` with 3 args, ``transformList``,
  ``transformMap``, ``transformMapEntry``) and ``sortBy``;
* a type checker that follows cel-go's ``checker`` (overload resolution with type parameters,
  ``dyn``/``any`` handling, the output-type rule of ``compile.go``) so that compile errors read as
  upstream's, e.g. ``compilation failed: ERROR: <input>:1:1: undeclared reference to 'noSuchVar'
  (in container '')\\n | noSuchVar\\n | ^``, plus the validators k8s enables (homogeneous aggregate
  literals, regex literals);
* an evaluator that turns the checked tree into nested Python closures once per expression, with
  cel-go's runtime semantics: error-absorbing, commutative ``&&``/``||`` and comprehensions, int64 /
  uint64 overflow errors, heterogeneous ``==`` (false, not an error), cross-type numeric ordering,
  ``no such key``, ``no such overload``, and the DRA map wrapper that turns an unknown domain of
  ``device.attributes`` / ``device.capacity`` into an empty map;
* libraries: the CEL standard functions (``size contains startsWith endsWith matches``, the
  conversions ``int uint double string bool bytes dyn type``), ext strings v2 (``charAt indexOf
  lastIndexOf lowerAscii upperAscii replace split substring trim join strings.quote``), ext sets,
  ext lists v3 (``slice flatten sort sortBy lists.range reverse distinct``), and the Kubernetes
  libraries of ``k8s.io/apiserver/pkg/cel/library`` (release-1.34): quantity, semver (v1, with the
  normalizing overloads), regex (``find findAll``) and lists (``isSorted sum min max indexOf
  lastIndexOf``);
* a runtime cost counter modelled on cel-go's ``interpreter/runtimecost.go`` and the k8s
  ``library.CostEstimator.CallCost``: 1 per identifier, field select, index and most calls, string
  traversal factor 0.1, regex factor 0.25, 10 per non-constant list literal, 30 per map literal, the
  per-iteration costs of the macro expansions, constant folding of literals and conversions as
  ``cel.OptOptimize`` does. Above 1,000,000 evaluation stops with ``operation cancelled: actual cost
  limit exceeded`` (the counter is checked on every comprehension iteration and at the end).

Layout
------
One module per component; each imports only the ones listed before it (no circle):

* ``errors`` (CelError, the limits), ``values`` (uint, type values, Quantity, Semver), ``gofmt``
  (Go's %g / %v);
* ``quantity`` (the Quantity arithmetic and conversions), ``semver`` (blang/semver), ``regex`` (Go's
  regexp on RE2);
* ``source`` (positions and error texts), ``lexer``, ``syntax`` (the tree), ``parser``;
* ``decls`` (types and the environment's declarations), ``checker``;
* ``operations`` (runtime semantics), the libraries ``lib_strings`` (standard, regex and ext strings),
  ``lib_k8s`` (k8s lists, quantity, semver), ``lib_ext`` (ext sets and lists), and ``library`` (the
  dispatch table);
* ``cost`` (the runtime cost counter), ``evaluator`` (the tree compiled to closures) and ``program``
  (the ``device`` variable, ``compile_expression``, ``CelCache``).

Quantities are parsed by ``kschedctl.k8s.quantity.parse_exact`` (the representation upstream picks)
and numbers by ``kschedctl.k8s.strconv`` (Go's ParseInt, ParseUint, ParseFloat and Quote), the same
parsers the rest of kschedctl uses. The modules share their underscore names among themselves; what
callers outside the package use is exported here.

Upstream sources followed: k8s.io/dynamic-resource-allocation ``cel/compile.go`` (release-1.34),
github.com/google/cel-go v0.26.0 (parser, checker, interpreter, common/types, ext), k8s.io/apiserver
``pkg/cel`` and ``pkg/cel/library`` (release-1.34), k8s.io/apimachinery ``pkg/api/resource``
(ParseQuantity, int64Amount) and github.com/blang/semver v4.0.0 (``Parse``).

Known differences from upstream
-------------------------------
* Not implemented, and rejected at compile time with an ``undeclared reference ... kschedctl does not
  implement`` or ``unsupported syntax`` error: optional types (``.?f``, ``[?k]``, ``optional.*``,
  ``orValue`` ...), timestamps and durations, the strings ``format`` function, the URL, IP/CIDR,
  format and authz libraries, message construction (``T{...}``).
* Estimated (static) costs, which only API validation uses, are not computed (upstream's tests
  check them; ours check that the actual cost stays within them). The runtime cost follows cel-go's
  tracker rules, but on error paths it can differ slightly (cel-go keeps evaluating sibling
  arguments after an error value, this evaluator stops at the first unabsorbed error), so the point
  where a long evaluation stops may differ a little, and when an evaluation both fails and exceeds
  the limit, which of the two errors is reported may differ.
* Syntax errors carry ``Syntax error: ...`` at the right line and column in cel-go's format, but the
  wording only approximates ANTLR's, and only the first syntax error is reported.
* Runtime type errors read ``no such overload`` or ``no such overload: f(types)``; the exact variant
  cel-go picks depends on its dispatch path and is not always reproduced.
* ``matches``/``find``/``findAll`` run on RE2 (google-re2), whose syntax and matching Go's regexp
  reimplements. Go's own limits are applied where they differ: ``\\C`` is refused, a parse tree
  higher than 1000 is "expression nests too deeply" (the height is computed as Go's parser builds
  the tree, except that Go's factoring of common prefixes out of alternatives is not modelled).
  RE2's memory budget (its default 8 MiB, kept so that no pattern costs more than about 0.1 s to
  refuse) is smaller than Go's program size limit, and RE2 expands a Unicode class into UTF-8 byte
  ranges where Go keeps one instruction: a pattern such as ``\\pL{1000}`` is "expression too
  large" here and accepted upstream. ``.{1000}``, ``[a-z]{1000}`` and ``\\p{Greek}{1000}`` compile.
* Quantities are immutable here. Upstream's apimachinery code mutates a ``Quantity`` in a few
  places (``compareTo`` promotes the receiver to its decimal form, ``add``/``sub`` on a decimal
  quantity write through a shared pointer), which can change later ``isInteger()`` /
  ``asApproximateFloat()`` results within one evaluation; kschedctl does not reproduce that.
* A quantity of more than 100,000 digits (only a string built at run time can hold one, or an
  exponent such as ``12345678901234567890e2000000000`` that upstream would expand to two billion
  digits) is an error here; upstream computes it, or takes minutes trying.
* ``sort``/``sortBy`` are stable here; Go's sort.Slice may order equal keys differently.
* No interrupt/deadline checks (kschedctl has no contexts); Go map iteration order is random
  upstream, here maps iterate in insertion order.
"""

from kschedctl.cel.errors import COST_LIMIT, CelError
from kschedctl.cel.program import CelCache, CompilationResult, compile_expression
from kschedctl.cel.values import Quantity, Semver

__all__ = ["CelError", "CompilationResult", "CelCache", "COST_LIMIT", "Quantity", "Semver", "compile_expression"]
