"""Every limit kschedctl puts on what it reads, in one place.

Inputs are never trusted (scenario files and fixtures arrive in pull requests), so each reader
refuses, with a one-line error naming the file (exit 2), anything past these limits before it
builds anything large. The README's "Limits" section lists them; tests hold each at the limit
and one past it.
"""

from __future__ import annotations

#: Largest cluster, pod or workload file (or standard input) read, in bytes. A 15,000-node
#: snapshot with 150,000 pods is about 300 MiB of YAML.
INPUT_FILE_MAX_BYTES = 512 * 1024 * 1024
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

__all__ = ["INPUT_FILE_MAX_BYTES", "INPUT_MAX_OBJECTS", "INPUT_MAX_DEPTH", "MAX_NUMBER_CHARS", "WORKLOAD_MAX_PODS",
           "ADD_NODES_MAX", "STEPS_MAX", "STEPS_VIRTUAL_TIME_MAX_SECONDS",
           "CONFIG_FILE_MAX_BYTES", "CONFIG_MAX_NODES", "CONFIG_MAX_DEPTH", "TLS_FILE_MAX_BYTES",
           "EXTENDER_RESPONSE_MAX_BYTES", "CAPACITY_MAX_COPIES", "CAPACITY_MAX_SET_SIZE",
           "TRACE_FILE_MAX_BYTES", "TRACE_MAX_EVENTS", "TRACE_LINE_MAX_BYTES"]
