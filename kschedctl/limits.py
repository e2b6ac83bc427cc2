"""Every limit kschedctl puts on what it reads, in one place.

Inputs are never trusted (scenario files and fixtures arrive in pull requests), so each reader
refuses, with a one-line error naming the file (exit 2), anything past these limits before it
builds anything large. The README's "Limits" section lists them; tests hold each at the limit
and one past it. Limits per item can multiply (pods × nodes × steps × repetitions), so the
commands that run many things (test, sweep, replay, diff, simulate --steps) also count their
whole run's work into one budget (``work_budget``, ``charge``), where the work is done.
"""

from __future__ import annotations

#: Largest cluster, pod or workload file (or standard input) read, in bytes. A 15,000-node
#: snapshot with 150,000 pods is about 300 MiB of YAML; one of 65,000 nodes and 650,000 pods
#: (GKE's largest clusters) about 600 MB of compact JSON and over 1 GiB as ``kschedctl snapshot
#: -o json`` indents it. What the file holds, not its bytes, sets the memory a load takes: the
#: object limit below bounds that.
INPUT_FILE_MAX_BYTES = 2 * 1024 * 1024 * 1024
#: Most objects (documents and List items) one load of cluster or pod files may hold.
INPUT_MAX_OBJECTS = 2_000_000
#: Deepest nesting of a cluster, pod or workload document (maps and lists).
INPUT_MAX_DEPTH = 200
#: Longest integer literal read (Python's int() is quadratic in the number of digits).
MAX_NUMBER_CHARS = 1000
#: Most pods the workloads of one run stand for (replicas and a Job's parallel pods summed over
#: the pod files read together; in simulate, a DaemonSet's pod per node too), refused before any
#: is made: simulate and test make them all. A pod takes a few KiB, so the limit keeps a run to a
#: few GiB; the API's int32 counts would allow 2 billion.
WORKLOAD_MAX_PODS = 1_000_000

#: Most nodes one ``--add-nodes N`` adds (copies of a node, each one a full Node object).
ADD_NODES_MAX = 10_000
#: Most steps of one scenario or ``--steps`` file (each one schedules every pending pod).
STEPS_MAX = 1_000
#: Most virtual time the ``advance`` steps of one scenario or ``--steps`` file add up to, in
#: seconds (a year): tolerationSeconds and backoffs are minutes, a longer span is a typo.
STEPS_VIRTUAL_TIME_MAX_SECONDS = 366 * 24 * 3600

#: Largest scheduler configuration or scenario file, in bytes.
CONFIG_FILE_MAX_BYTES = 8 * 1024 * 1024
#: Most YAML nodes a configuration or scenario may expand to (aliases counted as often as used).
CONFIG_MAX_NODES = 200_000
#: Deepest nesting of a configuration or scenario document.
CONFIG_MAX_DEPTH = 64

#: Largest TLS file (caFile, certFile, keyFile) an extender's tlsConfig names, in bytes; a
#: certificate chain is a few KiB.
TLS_FILE_MAX_BYTES = 1024 * 1024
#: Largest response body read from an extender, in bytes: a filter answer listing 15,000 full
#: Node objects is about 150 MiB.
EXTENDER_RESPONSE_MAX_BYTES = 256 * 1024 * 1024

#: Most copies ``capacity`` places when no ``--max`` is given. Copies are counted per node where
#: the profile allows it; when they are scheduled one at a time and nothing in the profile ever
#: stops them (no NodeResourcesFit), this ends the run, named as its stop reason.
CAPACITY_MAX_COPIES = 10_000_000
#: Most pods in one set of ``capacity --ratio`` (the ratio's parts summed).
CAPACITY_MAX_SET_SIZE = 10_000

#: Largest trace file (``kschedctl replay``, and traces given to diff and sweep), in bytes: the
#: cluster as listed when recording started plus an hour of a busy cluster's events.
TRACE_FILE_MAX_BYTES = 1024 * 1024 * 1024
#: Most events one trace may hold (the cluster's objects at the start not counted).
TRACE_MAX_EVENTS = 2_000_000
#: Longest line of a trace, in bytes: one object (a Node with its images, a Pod) per line. The API
#: server refuses a request body over 3 MiB (and etcd an object over 1.5 MiB), so no object it
#: holds, with the few fields of its event line, is longer.
TRACE_LINE_MAX_BYTES = 3 * 1024 * 1024

#: One run's work budget: ``test``, ``sweep``, ``replay``, ``diff`` and ``simulate --steps`` each
#: count the work their inputs ask for, over the whole run (every scenario, cell, trace and step
#: together), where it is done, and stop with one line (exit 2) as soon as one product passes its
#: limit. Each limit above holds per item; these hold for their product, so no input multiplies
#: its way past them (a trace of 200 pending pods and 2,000 node events, 1,000 steps over 300
#: pending pods, ``addNodes: 10000`` in 20 steps or 1,000 sweep repetitions).
#:
#: Scheduling attempts times the nodes each examines: 5,000 nodes and 200,000 attempts fit (a
#: 5k-node cluster's rollout, every pod tried once), at roughly a million nodes a second.
WORK_MAX_NODE_CHECKS = 1_000_000_000
#: Nodes created by the runs' node what-ifs and steps (``addNodes``), each a full Node object:
#: five times a 5k-node rollout's new nodes.
WORK_MAX_NODES_CREATED = 50_000
#: Trace events applied (over every trace a run replays, each as often as it is replayed).
WORK_MAX_EVENTS = 4_000_000

#: The limits (the README's table lists each); the budget's machinery below is imported by name.
__all__ = ["WORK_MAX_NODE_CHECKS", "WORK_MAX_NODES_CREATED", "WORK_MAX_EVENTS",
           "INPUT_FILE_MAX_BYTES", "INPUT_MAX_OBJECTS", "INPUT_MAX_DEPTH", "MAX_NUMBER_CHARS", "WORKLOAD_MAX_PODS",
           "ADD_NODES_MAX", "STEPS_MAX", "STEPS_VIRTUAL_TIME_MAX_SECONDS",
           "CONFIG_FILE_MAX_BYTES", "CONFIG_MAX_NODES", "CONFIG_MAX_DEPTH", "TLS_FILE_MAX_BYTES",
           "EXTENDER_RESPONSE_MAX_BYTES", "CAPACITY_MAX_COPIES", "CAPACITY_MAX_SET_SIZE",
           "TRACE_FILE_MAX_BYTES", "TRACE_MAX_EVENTS", "TRACE_LINE_MAX_BYTES"]


# -- the work budget of a run ---------------------------------------------------------------------

from contextlib import contextmanager  # noqa: E402 - the budget's machinery follows the constants it enforces
from typing import Any, Iterator  # noqa: E402

from kschedctl.errors import InputError  # noqa: E402

#: The products counted, in the order of the counters: (name in messages, limit's constant name).
PRODUCTS = (("scheduling attempts × nodes examined", "WORK_MAX_NODE_CHECKS"),
            ("nodes created", "WORK_MAX_NODES_CREATED"),
            ("trace events applied", "WORK_MAX_EVENTS"))
NODE_CHECKS, NODES_CREATED, EVENTS = range(3)


class WorkBudgetExceeded(InputError):
    """The run's work passed one of its limits: the whole run stops (exit 2), not one scenario or cell."""


class WorkBudget:
    """The counters of one run, in shared memory so that sweep's worker processes count into the
    same budget (``share``/``adopt``); ``file`` names the input being worked on in the refusal."""

    def __init__(self, file: str | None = None, counters: Any = None) -> None:
        if counters is None:
            import multiprocessing  # only runs that count pay for it

            counters = multiprocessing.Array("q", len(PRODUCTS))
        self.file = file
        self.counters = counters
        self.limits = tuple(globals()[name] for _, name in PRODUCTS)

    def charge(self, product: int, amount: int) -> None:
        counters = self.counters
        with counters.get_lock():
            counters[product] += amount
            total = counters[product]
        if total > self.limits[product]:
            raise self.refusal(product, total)

    def refusal(self, product: int, total: int) -> WorkBudgetExceeded:
        name, constant = PRODUCTS[product]
        return WorkBudgetExceeded(
            f"the run's work passed its budget: {name} reached {total:,}, past the limit of "
            f"{self.limits[product]:,} for one run ({constant}; the inputs together ask for more work "
            f"than a 5k-node rollout)", self.file)

    def check(self) -> None:
        """``WorkBudgetExceeded`` when a product is past its limit (a worker process passed it)."""
        for product, limit in enumerate(self.limits):
            if self.counters[product] > limit:
                raise self.refusal(product, self.counters[product])


_budget: WorkBudget | None = None


@contextmanager
def work_budget(file: str | None = None, budget: WorkBudget | None = None) -> Iterator[WorkBudget]:
    """Within the block, work is counted into one budget (a new one, or ``budget`` handed from the
    parent process); outside any, nothing is counted (``explain``, ``simulate``, the library)."""
    global _budget
    previous = _budget
    _budget = budget if budget is not None else WorkBudget(file)
    try:
        yield _budget
    finally:
        _budget = previous


def adopt(budget: WorkBudget) -> None:
    """For the life of this process (a sweep worker), count into ``budget`` (its parent's counters)."""
    global _budget
    _budget = budget


def working_on(file: str | None) -> None:
    """The input whose work is counted from now on (a scenario file of ``test``), for the refusal."""
    if _budget is not None and file:
        _budget.file = file


def charge(product: int, amount: int = 1) -> None:
    """Count ``amount`` of ``product`` (``NODE_CHECKS``, ``NODES_CREATED``, ``EVENTS``) into the
    run's budget; ``WorkBudgetExceeded`` at once when it passes its limit."""
    if _budget is not None:
        _budget.charge(product, amount)


def current_budget() -> WorkBudget | None:
    """The budget work is counted into now (None: not counted)."""
    return _budget
