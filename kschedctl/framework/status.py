"""Status: the only way a plugin says anything but "yes", with upstream's codes and meanings.

Follows k8s.io/kube-scheduler/framework (interface.go): ``Code``, ``Status``, ``AsStatus``,
``PreFilterResult``. A plugin may return ``None`` for success, as a Go plugin returns nil.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Iterable


class Code(IntEnum):
    """Upstream status codes; ``str(code)`` is upstream's spelling (what the JSON shows)."""

    Success = 0
    Error = 1
    Unschedulable = 2
    UnschedulableAndUnresolvable = 3
    Wait = 4
    Skip = 5
    Pending = 6

    def __str__(self) -> str:
        return self.name


class Status:
    """The result of one plugin call: a code, reasons (upstream's strings), the plugin that set it.

    ``details`` is kschedctl's own addition: facts upstream keeps out of the reason (which taint,
    how much cpu is missing) that reports may show next to the reason. It never changes a verdict.
    """

    __slots__ = ("code", "reasons", "error", "plugin", "details")

    def __init__(
        self,
        code: Code = Code.Success,
        *reasons: str,
        error: BaseException | None = None,
        plugin: str = "",
        details: dict | None = None,
    ) -> None:
        self.code = code
        self.reasons: list[str] = list(reasons)
        self.error = error
        self.plugin = plugin
        self.details = details

    # Upstream predicates, spelled the Python way.
    def is_success(self) -> bool:
        return self.code == Code.Success

    def is_wait(self) -> bool:
        return self.code == Code.Wait

    def is_skip(self) -> bool:
        return self.code == Code.Skip

    def is_rejected(self) -> bool:
        """Unschedulable, UnschedulableAndUnresolvable or Pending: a "no", not a failure."""
        return self.code in _REJECTED

    def message(self) -> str:
        """Upstream's ``Status.Message()``: the reasons joined by ", "."""
        return ", ".join(self.reasons)

    def with_plugin(self, plugin: str) -> "Status":
        self.plugin = plugin
        return self

    def as_error(self) -> BaseException | None:
        if self.is_success() or self.is_wait() or self.is_skip():
            return None
        if self.error is not None:
            return self.error
        return RuntimeError(self.message())

    def __eq__(self, other: object) -> bool:
        if other is None:
            return self.code == Code.Success
        if not isinstance(other, Status):
            return NotImplemented
        return self.code == other.code and self.reasons == other.reasons

    def __hash__(self) -> int:  # statuses are compared by value in tests, never hashed for identity
        return hash((self.code, tuple(self.reasons)))

    def __repr__(self) -> str:
        plugin = f", plugin={self.plugin!r}" if self.plugin else ""
        return f"Status({self.code.name}, {self.reasons!r}{plugin})"


_REJECTED = frozenset({Code.Unschedulable, Code.UnschedulableAndUnresolvable, Code.Pending})


def code_of(status: Status | None) -> Code:
    """The code of a status, ``Success`` for ``None`` (a nil status upstream)."""
    return Code.Success if status is None else status.code


def is_success(status: Status | None) -> bool:
    return status is None or status.code == Code.Success


def as_status(error: BaseException) -> Status:
    """Upstream's ``AsStatus``: an ``Error`` status whose one reason is the error text."""
    return Status(Code.Error, str(error), error=error)


def unschedulable(*reasons: str, details: dict | None = None) -> Status:
    return Status(Code.Unschedulable, *reasons, details=details)


def unresolvable(*reasons: str, details: dict | None = None) -> Status:
    return Status(Code.UnschedulableAndUnresolvable, *reasons, details=details)


class PreFilterResult:
    """The nodes a PreFilter plugin allows; ``node_names is None`` means every node.

    ``merge`` intersects two results as upstream does (``None`` is the neutral element).
    """

    __slots__ = ("node_names",)

    def __init__(self, node_names: Iterable[str] | None = None) -> None:
        self.node_names: set[str] | None = None if node_names is None else set(node_names)

    def all_nodes(self) -> bool:
        return self.node_names is None

    def merge(self, other: "PreFilterResult | None") -> "PreFilterResult":
        if self.all_nodes() and (other is None or other.all_nodes()):
            return PreFilterResult()
        if self.all_nodes():
            return PreFilterResult(other.node_names)  # type: ignore[union-attr]
        if other is None or other.all_nodes():
            return PreFilterResult(self.node_names)
        return PreFilterResult(self.node_names & other.node_names)  # type: ignore[operator]

    def __repr__(self) -> str:
        return f"PreFilterResult({sorted(self.node_names) if self.node_names is not None else None})"


class PostFilterResult:
    """What a PostFilter plugin proposes: a node to nominate (empty when none)."""

    __slots__ = ("nominated_node_name", "victims", "tied")

    def __init__(self, nominated_node_name: str = "", victims: list[str] | None = None,
                 tied: list[str] | None = None) -> None:
        self.nominated_node_name = nominated_node_name
        #: kschedctl addition for reports: the "namespace/name" keys of the pods to evict.
        self.victims: list[str] = list(victims or [])
        #: kschedctl addition: the candidates that tied on every criterion (more than one: the
        #: nominated node was a random pick upstream).
        self.tied: list[str] = list(tied or [])

    def __repr__(self) -> str:
        return f"PostFilterResult({self.nominated_node_name!r}, victims={self.victims!r})"
