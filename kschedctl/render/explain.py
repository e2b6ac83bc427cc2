"""Tables for ``kschedctl explain``: readable on 5 nodes and on 5,000.

Per pod: the answer first (where the pod goes and what decided it, or what blocks it and the
closest fix: ``ExplainResult.decision``), a loud warning for plugins kschedctl cannot run yet, the
pod-level stages where a plugin did something (every stage with ``wide``), the filter matrix (nodes x filter plugins: a check mark or the reason), the score table
(raw -> normalized x weight = weighted, total, rank; the chosen node highlighted, ties marked;
extenders as ``extender:<urlPrefix>`` columns after the plugins), the extenders' calls and notes,
warnings, and, on large clusters, rejections counted by plugin and reason instead of one row per node.
``wide`` shows every node; ``node`` shows one node in full. Renders result objects only.

Every table is fitted to the console's width before it is printed (``fit``): its cells wrap at
their spaces only, and a word too long for any column it could get ends in "…" instead of being
broken over two lines.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from rich import box
from rich.cells import cell_len
from rich.console import Console, Group
from rich.constrain import Constrain
from rich.measure import Measurement
from rich.padding import Padding
from rich.panel import Panel
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from kschedctl.framework.extender import PLUGIN_PREFIX as EXTENDER_PREFIX
from kschedctl.k8s.quantity import humanize_bytes
from kschedctl.printable import printable
from kschedctl.render.console import printable_text
from kschedctl.render.units import cpu_unit
from kschedctl.scheduler.outcome import Outcome
from kschedctl.scheduler.result import Blocker, ExplainResult, NodeResult, StageResult, name_list

#: Up to this many nodes every node gets a row without --wide.
SMALL_CLUSTER = 20
#: On larger clusters, how many of the best-scored nodes are shown.
TOP_NODES = 10

_OUTCOME_STYLE = {
    Outcome.SCHEDULED: "bold green",
    Outcome.UNSCHEDULABLE: "bold red",
    Outcome.REJECTED: "bold red",
    Outcome.GATED: "bold yellow",
    Outcome.ERROR: "bold magenta",
}
_CODE_STYLE = {
    "Success": "green",
    "Skip": "dim",
    "Wait": "yellow",
    "Unschedulable": "yellow",
    "UnschedulableAndUnresolvable": "red",
    "Pending": "yellow",
    "Error": "magenta",
}
CHECK = "✓"


def render_explain(
    results: Iterable[ExplainResult],
    console: Console,
    wide: bool = False,
    node: str | None = None,
    top: int = TOP_NODES,
) -> None:
    """Print the tables of every result, one pod after another, fitted to the console's width."""
    previous = 0
    for i, result in enumerate(results):
        parts = [fit(part, console) for part in explain_renderables(result, wide=wide, node=node, top=top)]
        widest = max((Measurement.get(console, console.options, part).maximum for part in parts), default=0)
        if i:
            # as wide as the tables it separates, not as the (possibly 4096-column) console
            console.print(Constrain(Rule(), min(console.width, max(previous, widest))))
        previous = widest
        for part in parts:
            console.print(part)


def render_pending_summary(results: list[ExplainResult], console: Console) -> None:
    """``explain --pending``: one line per pod: where it goes (or why not: the plugin that
    rejects the most nodes, or the event message when no filter ran) and the change that would
    make it fit (kschedctl.analyses.remedies). The event messages are in the detail (--wide)."""
    t = Table(title=f"Pending pods: {len(results)}", title_justify="left", box=box.SIMPLE_HEAD)
    # Names and outcomes stay whole; blockers and fixes are prose and wrap at their spaces.
    t.add_column("Pod", no_wrap=True)
    t.add_column("Outcome", no_wrap=True)
    for name in ("Top blocker / message", "What would make it fit"):
        t.add_column(name)
    for r in results:
        decision = r.decision
        outcome = Text(r.outcome, style="green" if r.scheduled else "red")
        if r.selected_node:
            outcome.append(f" → {r.selected_node}")
        elif r.preemption is not None:
            outcome.append(f" → nominated {r.preemption.nominated_node}")
        if r.scheduled:
            why = ""
        elif decision.blockers:
            why = _blocker_text(decision.blockers[0], reasons=2)
        else:
            why = printable(r.message)
        t.add_row(r.pod, outcome, why, printable(decision.fix))
    console.print(t)  # the output console fits it: columns that do not fit continue below, no word cut


def explain_renderables(result: ExplainResult, wide: bool = False, node: str | None = None,
                        top: int = TOP_NODES) -> list:
    """The parts of one pod's report, in order (not yet fitted to a width: see ``fit``)."""
    parts: list = [_verdict(result)]
    if result.stages:
        parts.append(_stages(result, wide))
    if result.extenders:
        parts.append(_extenders(result))
    if result.warnings:
        parts.append(_warnings(result))
    if node is not None:
        parts.extend(_one_node(result, node))
        return parts
    small = wide or len(result.nodes) <= SMALL_CLUSTER
    evaluated = [n for n in result.nodes if n.evaluated or n.filters]
    if evaluated:
        if small:
            parts.append(_filter_matrix(result, evaluated))
        else:
            parts.append(_rejections(result))
    scored = [n for n in result.nodes if n.total_score is not None]
    if scored:
        parts.append(_score_table(result, scored, None if small else top))
    if result.scoring_skipped_upstream:
        parts.append(Text("Only one node was feasible: upstream picks it without running PreScore/Score; "
                          "the scores above are shown for information only.", style="dim"))
    devices = _devices(result)
    if devices is not None:
        parts.append(devices)
    if result.preemption is not None:
        parts.append(_preemption(result))
    if result.outcome == Outcome.UNSCHEDULABLE and (result.hints or result.pod_hints):
        parts.append(_to_fit(result, None if wide else top))
    return parts


# -- sections --------------------------------------------------------------------------------


def _verdict(r: ExplainResult) -> Group:
    """The answer first: one line saying where the pod goes, then why (or what blocks it and the
    closest fix), then the message, the node counts and the profile."""
    d = r.decision
    head = Text(r.pod, style="bold")
    if r.selected_node:
        head.append(" → ")
        head.append(r.selected_node, style="bold green")
        if not d.spec_node_name:
            head.append(f" ({r.outcome})")
    else:
        head.append(": ")
        head.append(r.outcome, style=_OUTCOME_STYLE.get(r.outcome, ""))
        p = r.preemption
        if p is not None:
            victims = f"{len(p.victims)} pod" + ("" if len(p.victims) == 1 else "s")
            head.append(f" → nominated {p.nominated_node}, preempting {victims}", style="bold yellow")
            if p.victims:
                head.append(f": {name_list(p.victims)}")
        elif r.provisional_node:
            head.append(f" ({r.provisional_node} was chosen, then the pod was turned away)")
    if d.spec_node_name:
        head.append(" (spec.nodeName is set: kube-scheduler never sees this pod)", style="bold yellow")
    rows = Table(box=None, show_header=False, padding=(0, 1), pad_edge=False)
    rows.add_column(style="bold", no_wrap=True)
    rows.add_column()
    if d.why:
        rows.add_row("Why", d.why)
    if d.note:
        rows.add_row("Note", printable(d.note))
    if not r.selected_node:
        if d.blockers:
            shown = "; ".join(_blocker_text(b) for b in d.blockers[:3])
            if len(d.blockers) > 3:
                shown += f"; and {len(d.blockers) - 3} more plugins"
            rows.add_row("Blockers", shown)
        if d.fix:
            rows.add_row("Closest fix", printable(d.fix))
    if r.message:
        rows.add_row("Message", printable(r.message))
    total = len(r.nodes)
    rows.add_row("Nodes", f"{r.evaluated_nodes} evaluated, {r.feasible_nodes} feasible, {total} in the cluster"
                 + (f" (stops after {r.num_nodes_to_find} feasible)" if r.num_nodes_to_find and
                    r.num_nodes_to_find < total else ""))
    rows.add_row("Profile", r.profile)
    return Group(head, Padding(rows, (0, 0, 0, 2)), Text(""))


def _blocker_text(b: Blocker, reasons: int = 2) -> str:
    nodes = f"{b.nodes} node" + ("" if b.nodes == 1 else "s")
    shown = [printable(x) for x in b.reasons[:reasons]]
    if len(b.reasons) > reasons:
        shown.append(f"+{len(b.reasons) - reasons} more")
    return f"{b.plugin} on {nodes}" + (f" ({', '.join(shown)})" if shown else "")


def _stages(r: ExplainResult, wide: bool = False) -> Group:
    """The pod-level plugin calls; unless ``wide``, only those that did something (a code other
    than Success or Skip, a message, a PreFilterResult narrowing the nodes, a PostFilter that
    ran), the others counted in one line."""
    shown = list(r.stages) if wide else [s for s in r.stages if _did_something(s)]
    folded = len(r.stages) - len(shown)
    if not shown:
        return Group(Text("Pod-level extension points: ", style="table.title").append(
            f"{folded} plugin calls, each Success or Skip (--wide lists them)", style="dim"), Text(""))
    note = Text(f"{folded} more plugin calls returned Success or Skip (--wide lists them)" if folded else "",
                style="dim")
    t = Table(title="Pod-level extension points", title_justify="left", box=box.SIMPLE_HEAD)
    t.add_column("Extension point")
    t.add_column("Plugin")
    t.add_column("Code")
    t.add_column("Reasons / details")
    for s in shown:
        info = printable("; ".join(s.reasons))
        extra = dict(s.extra or {})
        if s.status is not None and s.status.details:
            extra.update(s.status.details)
        if extra.pop("displayOnly", False):
            info = (info + "; " if info else "") + "shown for reference: kube-scheduler skips scoring a single feasible node"
        if s.extension_point == "PostFilter" and r.preemption is not None:
            # the Preemption panel shows these in full
            for key in ("candidates", "victims", "nominatedNode"):
                extra.pop(key, None)
        if extra:
            info = (info + "  " if info else "") + _short(extra)
        t.add_row(s.extension_point, s.plugin, Text(s.code, style=_CODE_STYLE.get(s.code, "")), info)
    return Group(t, note, Text("")) if folded else Group(t)


def _did_something(s: StageResult) -> bool:
    if s.code not in ("Success", "Skip") or s.reasons:
        return True
    if s.extension_point == "PostFilter":
        return s.code != "Skip"  # it ran because no node fitted, and may have nominated one
    return bool(s.extra and "nodes" in s.extra)  # a PreFilterResult: only these nodes


def _filter_matrix(r: ExplainResult, nodes: list[NodeResult]) -> Group:
    """A mark per node and rejecting plugin, then every rejection with its reason and details.

    Plugins that rejected no node get no column (they are named under the table): with the
    fifteen filters of the default profile, a column each would not fit a terminal.
    """
    plugins = r.filter_columns(nodes)
    rejecting = [p for p in plugins if any(f.plugin == p and not _passed(f) for n in nodes for f in n.filters)]
    passing = [p for p in plugins if p not in rejecting]
    t = Table(title="Filter", title_justify="left", box=box.SIMPLE_HEAD,
              caption=("passed on every node they ran on: " + ", ".join(passing)) if passing else None,
              caption_justify="left")
    t.add_column("Node", no_wrap=True)
    for p in rejecting:
        t.add_column(_header(p), justify="center")
    t.add_column("Feasible")
    why = Table(title="Why nodes were rejected", title_justify="left", box=box.SIMPLE_HEAD)
    for col in ("Node", "Plugin", "Reason"):
        why.add_column(col, no_wrap=col == "Node", overflow="fold")
    for n in nodes:
        cells = {f.plugin: f for f in n.filters}
        row: list = [_node_name(r, n)]
        for p in rejecting:
            f = cells.get(p)
            if f is None:
                row.append(Text("·", style="dim"))
            elif _passed(f):
                row.append(Text(CHECK, style="green"))
            else:
                row.append(Text("✗", style=_CODE_STYLE.get(f.code, "")))
                why.add_row(n.name, p, _why(f))
        row.append(Text("yes", style="green") if n.feasible else Text("no", style="red"))
        t.add_row(*row)
    return Group(t, why) if why.row_count else Group(t)


def _passed(f: Any) -> bool:
    return f.status is None or f.code == "Success"


def _why(f: Any) -> Text:
    """A rejection's reasons, then the facts upstream keeps out of them (e.g. what is short)."""
    if not f.reasons and f.plugin.startswith(EXTENDER_PREFIX):
        return Text("dropped (no reason given)", style=_CODE_STYLE.get(f.code, ""))
    text = Text(printable("; ".join(f.reasons)) or f.code, style=_CODE_STYLE.get(f.code, ""))
    details = f.status.details if f.status is not None else None
    if details:
        text.append("\n" + _details_text(details), style="dim")
    return text


def _devices(r: ExplainResult) -> Table | None:
    """The devices DynamicResources gives the pod's claims on the selected node (or, when no node
    was selected, on the best feasible one)."""
    node = next((n for n in r.nodes if n.name == r.selected_node), None)
    if node is None:
        node = next((n for n in r.nodes if n.feasible and n.allocations()), None)
    allocations = node.allocations() if node is not None else []
    if not allocations:
        return None
    t = Table(title=f"Devices allocated on {node.name}", title_justify="left", box=box.SIMPLE_HEAD)
    for col in ("Claim", "Request", "Driver", "Pool", "Device"):
        t.add_column(col, overflow="fold")
    for claim in allocations:
        for d in claim.get("devices") or ():
            device = d.get("device", "") + (" (admin access)" if d.get("adminAccess") else "")
            t.add_row(claim.get("claim", ""), d.get("request", ""), d.get("driver", ""), d.get("pool", ""), device)
    return t


def _details_text(details: dict) -> str:
    gap = details.get("devices")
    if hasattr(gap, "texts"):  # DynamicResources: per request, the devices of the node that match
        return "\n".join(gap.texts())
    short = details.get("insufficient")
    if isinstance(short, list):  # NodeResourcesFit: what the pod asks for and what the node has
        return "; ".join(
            f"{_amount(i, 'requested')} requested, {_amount(i, 'used')} of {_amount(i, 'capacity')} in use"
            f" ({i.get('resource')})" for i in short if isinstance(i, dict))
    return _short(details)


def _amount(item: dict, key: str) -> str:
    value = item.get(key)
    if item.get("unit") == "m" and isinstance(value, int):
        # one unit for the three amounts of the line (64 requested, 0.7 of 3.92 in use)
        amounts = [v for v in (item.get(k) for k in ("requested", "used", "capacity")) if isinstance(v, int)]
        return cpu_unit(amounts).format(value)
    if item.get("unit") == "bytes" and isinstance(value, int):
        return humanize_bytes(value)
    return str(value)


def _header(plugin: str) -> str:
    """``NodeResourcesFit`` over three lines, so narrow columns still name their plugin."""
    if plugin.startswith(EXTENDER_PREFIX):
        return plugin
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "\n", plugin)


def _rejections(r: ExplainResult) -> Table:
    rows = r.rejections()
    evaluated = sum(1 for n in r.nodes if n.evaluated)
    t = Table(title=f"Filter: {evaluated} nodes evaluated, {r.feasible_nodes} feasible "
                    f"(rejections counted by plugin and reason; --wide for every node)",
              title_justify="left", box=box.SIMPLE_HEAD)
    t.add_column("Plugin")
    t.add_column("Code")
    t.add_column("Reason", overflow="fold")
    t.add_column("Nodes", justify="right")
    for plugin, code, reason, count in rows:
        t.add_row(plugin, Text(code, style=_CODE_STYLE.get(code, "")), printable(reason), str(count))
    if not rows:
        t.add_row("-", "-", "no node was rejected", "0")
    return t


def _score_table(r: ExplainResult, nodes: list[NodeResult], top: int | None) -> Table:
    ranked = sorted(nodes, key=lambda n: (n.rank or 0, n.name if n.rank else ""))
    shown = ranked if top is None else ranked[:top]
    if r.selected_node and all(n.name != r.selected_node for n in shown):
        shown += [n for n in ranked if n.name == r.selected_node]
    title = "Score (raw → normalized × weight = weighted)"
    if top is not None and len(ranked) > len(shown):
        title += f": top {len(shown)} of {len(ranked)} scored nodes (--wide for all)"
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    t.add_column("#", justify="right")
    t.add_column("Node", no_wrap=True)
    # Every plugin with a score on some node, in order of first appearance (one pass: a plugin
    # that skipped every node would otherwise be looked for on each of thousands).
    scored = dict.fromkeys(s.plugin for n in nodes for s in n.scores)
    plugins = [p for p in r.score_plugins if p in scored]
    # extender scores come after the plugins' (already ×10)
    plugins += [p for p in scored if p.startswith(EXTENDER_PREFIX) and p not in plugins]
    for p in plugins:
        t.add_column(_header(p), justify="right")
    t.add_column("Total", justify="right", style="bold")
    for n in shown:
        by = {s.plugin: s for s in n.scores}
        row: list = [str(n.rank or ""), _node_name(r, n)]
        for p in plugins:
            s = by.get(p)
            if s is None:
                row.append(Text("skip", style="dim"))
            elif s.raw == s.normalized:
                row.append(f"{s.normalized}×{s.weight} = {s.weighted}")
            else:
                row.append(f"{s.raw}→{s.normalized}×{s.weight} = {s.weighted}")
        total = Text(str(n.total_score))
        if n.tied:
            total.append(" (tie)", style="yellow")
        row.append(total)
        style = "bold green" if n.name in (r.selected_node, r.provisional_node) else ""
        t.add_row(*row, style=style)
    return t


def _one_node(r: ExplainResult, name: str) -> list:
    n = r.node(name)
    if n is None:
        return [Text(f"node {name} is not in the cluster", style="bold red")]
    t = Table(title=f"Node {name}: " + ("feasible" if n.feasible else "not feasible")
              + ("" if n.evaluated else " (not evaluated)"), title_justify="left", box=box.SIMPLE_HEAD)
    t.add_column("Filter plugin")
    t.add_column("Code")
    t.add_column("Reasons")
    t.add_column("Details", overflow="fold")
    for f in n.filters:
        details = _short(f.status.details) if f.status is not None and f.status.details else ""
        t.add_row(f.plugin, Text(f.code, style=_CODE_STYLE.get(f.code, "")), printable("; ".join(f.reasons)), details)
    parts: list = [t]
    if n.scores:
        s = Table(title=f"Scores of {name} (rank {n.rank}, total {n.total_score})", title_justify="left",
                  box=box.SIMPLE_HEAD)
        for col in ("Plugin", "Raw", "Normalized", "Weight", "Weighted"):
            s.add_column(col, justify="left" if col == "Plugin" else "right")
        for sc in n.scores:
            s.add_row(sc.plugin, str(sc.raw), str(sc.normalized), str(sc.weight), str(sc.weighted))
        parts.append(s)
    if not n.feasible:
        hints = r.hints_for(name)
        if hints:
            parts.append(_node_hints(name, hints))
    return parts


def _to_fit(r: ExplainResult, top: int | None) -> Table:
    """The "To fit" section: the nodes closest to fitting first, one line each (what each would need)."""
    shown = r.hints if top is None else r.hints[:top]
    title = "To fit (what would flip each blocking filter; nodes closest to fitting first"
    if len(shown) < len(r.hints):
        title += f"; top {len(shown)} of {len(r.hints)} nodes, --wide for all"
    title += "; --node NAME for the changes)"
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    t.add_column("#", justify="right")
    t.add_column("Node", no_wrap=True)
    t.add_column("Blocking")
    t.add_column("Needs", overflow="fold")
    t.add_column("Fits after")
    for h in r.pod_hints:
        t.add_row("", Text("(every node)", style="dim"), h.plugin, h.text, Text("?", style="yellow"))
    for s in shown:
        needs = s.text[len(s.node) + 1:] if s.text.startswith(s.node + " ") else s.text
        t.add_row(str(s.rank), s.node, ", ".join(s.blocking_plugins), needs,
                  Text("yes", style="green") if s.fits_after else Text("?", style="yellow"))
    return t


def _node_hints(name: str, hints: list) -> Table:
    t = Table(title=f"To fit on {name}", title_justify="left", box=box.SIMPLE_HEAD)
    t.add_column("Plugin")
    t.add_column("Needs", overflow="fold")
    t.add_column("Changes", overflow="fold")
    t.add_column("Checked")
    for h in hints:
        changes = "\n".join(_change_text(c) for c in h.changes) or "-"
        for alt in h.alternatives:
            changes += f"\nor: {alt.get('text')}"
        t.add_row(h.plugin, h.text, changes, Text("yes", style="green") if h.verified else Text("no", style="yellow"))
    return t


def _change_text(c: dict) -> str:
    kind = c.get("kind")
    if kind == "addToleration":
        tol = c.get("toleration") or {}
        return "pod: add toleration {" + ", ".join(f"{k}: {v}" for k, v in tol.items()) + "}"
    if kind == "raiseAllocatable":
        return f"node: allocatable {c.get('resource')} +{c.get('by')} (to {c.get('to')})"
    if kind == "setNodeLabel":
        return f"node: label {c.get('key')}={c.get('value')}"
    if kind == "removeNodeLabel":
        return f"node: remove label {c.get('key')}"
    if kind == "removePods":
        return "remove pods: " + ", ".join(c.get("pods") or ())
    if kind == "addPod":
        labels = ",".join(f"{k}={v}" for k, v in (c.get("labels") or {}).items())
        return f"add a pod labelled {labels} in namespace {c.get('namespace')} on the node"
    return _short({k: v for k, v in c.items() if k != "node"}) if isinstance(c, dict) else str(c)


def _extenders(r: ExplainResult) -> Table:
    t = Table(title="Extenders (called over HTTP(S) in this order; raw extender scores are scaled ×10)",
              title_justify="left", box=box.SIMPLE_HEAD)
    t.add_column("Extender", overflow="fold")
    t.add_column("Verbs")
    t.add_column("Calls", overflow="fold")
    t.add_column("Notes", overflow="fold")
    for e in r.extenders:
        verbs = [f"filter={e['filterVerb']}" if e.get("filterVerb") else "",
                 f"prioritize={e['prioritizeVerb']}×{e.get('weight')}" if e.get("prioritizeVerb") else ""]
        flags = [f for f, on in (("nodeCacheCapable", e.get("nodeCacheCapable")), ("ignorable", e.get("ignorable")))
                 if on]
        calls = []
        for c in e.get("calls") or ():
            line = f"{c['verb']}: {c['code']}"
            if "passed" in c:
                line += f" ({c['passed']}/{c['nodes']} nodes passed)"
            if c.get("message"):
                line += f" - {printable(c['message'])}" + (" (ignored)" if c.get("ignored") else "")
            calls.append(Text(line, style=_CODE_STYLE.get(c["code"], "")))
        if not e.get("interested", True):
            calls.append(Text("not interested in this pod (managedResources)", style="dim"))
        notes = list(e.get("notes") or ())
        t.add_row(e["name"] + (f" [{', '.join(flags)}]" if flags else ""), " ".join(v for v in verbs if v) or "-",
                  Text("\n").join(calls) if calls else Text("-", style="dim"), "\n".join(notes) or "")
    return t


def _warnings(r: ExplainResult) -> Panel:
    return Panel(Text("\n".join(r.warnings)), title="Warnings", border_style="yellow", expand=False)


def _preemption(r: ExplainResult) -> Panel:
    p = r.preemption
    assert p is not None
    body = Text(f"nominated node: {p.nominated_node}\nvictims: {', '.join(p.victims) or '-'}")
    if not p.candidates:
        return Panel(Group(body), title="Preemption", border_style="yellow", expand=False)
    t = Table(title="candidates (why the others were not chosen)", title_justify="left", box=box.SIMPLE_HEAD)
    for col in ("node", "victims", "PDB violations", "highest victim priority", "decision"):
        t.add_column(col)
    for c in p.candidates:
        decision = f"chosen ({c['decidedBy']})" if c.get("chosen") else f"lost on {c.get('lostOn', '-')}"
        t.add_row(c.get("node", ""), ", ".join(c.get("victims") or ()) or "-", str(c.get("numPDBViolations", 0)),
                  str(c.get("highestVictimPriority", "-")), decision)
    return Panel(Group(body, t), title="Preemption", border_style="yellow", expand=False)


# -- helpers ---------------------------------------------------------------------------------


def _node_name(r: ExplainResult, n: NodeResult) -> Text:
    if n.name == r.selected_node:
        return Text(f"★ {n.name}", style="bold green")
    if n.name == r.provisional_node:
        return Text(f"☆ {n.name}", style="green")
    return Text(n.name)


def _short(d: dict) -> str:
    parts = []
    for k, v in d.items():
        if k == "allocations" and isinstance(v, list):
            parts.extend(f"{a.get('claim')}: " + ", ".join(
                f"{dev.get('request')} → {dev.get('driver')}/{dev.get('pool')}/{dev.get('device')}"
                for dev in a.get("devices") or ()) for a in v if isinstance(a, dict))
        elif isinstance(v, list) and all(isinstance(x, str) for x in v):
            parts.append(f"{k}: {', '.join(v)}")
        elif k == "binding" and isinstance(v, dict):
            target = v.get("target") or {}
            parts.append(f"Binding → {target.get('kind')} {target.get('name')}")  # of the pod itself
        else:
            parts.append(f"{k}={v}")
    return ", ".join(parts)


# -- fitting a width -------------------------------------------------------------------------

#: Shortest a word is cut to (with its "…") when a table cannot otherwise fit.
_SHORTEST_WORD = 4


def fit(renderable: Any, console: Console) -> Any:
    """``renderable`` laid out for ``console``'s width: tables get column widths under which every
    cell wraps at its spaces only (``_fit_table``), and their titles and captions become lines of
    their own, wrapped at the console's width rather than the table's."""
    return _fit(renderable, console, console.width)


def _fit(renderable: Any, console: Console, width: int) -> Any:
    if isinstance(renderable, Table):
        _fit_table(renderable, console, width)
        title, caption = renderable.title, renderable.caption
        if title is None and caption is None:
            return renderable
        renderable.title = renderable.caption = None
        parts: list = []
        if title is not None:
            parts.append(_line(title, renderable.title_style or "table.title"))
            if renderable.box is not None and not renderable.show_edge:
                parts.append(Text(""))  # the blank line the table's top edge would have drawn
        parts.append(renderable)
        if caption is not None:
            parts.append(_line(caption, renderable.caption_style or "table.caption"))
        return Group(*parts)
    if isinstance(renderable, Group):
        renderable.renderables[:] = [_fit(item, console, width) for item in renderable.renderables]
        return renderable
    if isinstance(renderable, Panel):
        _, right, _, left = Padding.unpack(renderable.padding)
        renderable.renderable = _fit(renderable.renderable, console, width - 2 - left - right)
        return renderable
    if isinstance(renderable, Padding):
        renderable.renderable = _fit(renderable.renderable, console, width - renderable.left - renderable.right)
        return renderable
    if isinstance(renderable, Text):
        renderable.overflow = "ellipsis"  # a word longer than the console ends in "…", unbroken
    return renderable


def _line(text: Any, style: Any) -> Text:
    line = text.copy() if isinstance(text, Text) else Text(printable(text, "\n"), style=style)
    line.overflow = "ellipsis"
    return line


def _fit_table(table: Table, console: Console, width: int) -> None:
    """Set ``table``'s column widths so that it fits ``width`` with no word broken.

    rich, given too little room, narrows the widest columns below their longest word and folds
    it (``defau/lt``). Here each column gets at least its longest word; when even that does not
    fit, the longest words are cut to a common length and end in "…" (columns marked no_wrap,
    such as node names, last); the room left goes to the columns that would wrap, the least
    needy first (max-min fairness), so short columns stay on one line.
    """
    columns = table.columns
    if not columns:
        return
    for column in columns:
        column.header = _escaped(column.header)
        column._cells[:] = [_escaped(cell) for cell in column._cells]
    room = width - _overhead(table, console)
    natural = [_widest(column, table.show_header, _line_len) for column in columns]
    if sum(natural) <= room:
        for column in columns:
            column.width = None
        return
    longest = [_widest(column, table.show_header, _longest_word) for column in columns]
    if sum(longest) > room and table.box is not None:
        # tighter before shorter: one space of padding between columns, no indent
        top, right, bottom, _ = Padding.unpack(table.padding)
        table.padding = (top, right, bottom, 0)
        table.show_edge = False
        room = width - _overhead(table, console)
        if sum(natural) <= room:
            for column in columns:
                column.width = None
            return
    if sum(longest) > room:
        kept = [column.no_wrap for column in columns]
        limit = _word_limit([w for w, k in zip(longest, kept) if not k],
                            room - sum(w for w, k in zip(longest, kept) if k))
        if limit is None:  # even cut short, the others do not fit: cut every column's words
            limit = _word_limit(longest, room)
            kept = [False] * len(columns)
        if limit is None:
            return  # narrower than any sensible table: leave it to rich
        for i, column in enumerate(columns):
            if not kept[i] and longest[i] > limit:
                column.header = _cut_words(column.header, limit)
                column._cells[:] = [_cut_words(cell, limit) for cell in column._cells]
                longest[i] = limit
                natural[i] = _widest(column, table.show_header, _line_len)
    widths = list(longest)
    spare = room - sum(widths)
    for left, i in enumerate(sorted(range(len(columns)), key=lambda j: natural[j] - longest[j])):
        give = min(natural[i] - widths[i], spare // (len(columns) - left))
        widths[i] += give
        spare -= give
    for column, w in zip(columns, widths):
        column.width = max(w, 1)


def _overhead(table: Table, console: Console) -> int:
    """Columns of ``table`` that are not cell content: edges, separators, padding."""
    saved = [column.width for column in table.columns]
    for column in table.columns:
        column.width = 1
    try:
        measured = Measurement.get(console, console.options.update_width(1 << 16), table).maximum
    finally:
        for column, w in zip(table.columns, saved):
            column.width = w
    return measured - len(table.columns)


def _word_limit(longest: list[int], room: int) -> int | None:
    """The largest word length L such that columns whose longest words are cut to L fit ``room``."""
    if not longest:
        return None if room < 0 else _SHORTEST_WORD
    for limit in range(max(longest), _SHORTEST_WORD - 1, -1):
        if sum(min(w, limit) for w in longest) <= room:
            return limit
    return None


def _plain(cell: Any) -> str:
    return cell.plain if isinstance(cell, Text) else cell if isinstance(cell, str) else ""


def _line_len(text: str) -> int:
    return max((cell_len(line) for line in text.split("\n")), default=0)


def _longest_word(text: str) -> int:
    return max((cell_len(word) for word in text.split()), default=0)


def _widest(column: Any, with_header: bool, measure: Any) -> int:
    cells = [*column._cells, column.header] if with_header else column._cells
    return max((measure(_plain(cell)) for cell in cells), default=0)


def _escaped(cell: Any) -> Any:
    if isinstance(cell, str):
        return printable(cell, "\n")
    if isinstance(cell, Text):
        return printable_text(cell)
    return cell


def _cut_words(cell: Any, limit: int) -> Any:
    """``cell`` with every word longer than ``limit`` cut to ``limit`` columns, ending in "…"."""
    plain = _plain(cell)
    if not isinstance(cell, (str, Text)) or _longest_word(plain) <= limit:
        return cell
    text = cell if isinstance(cell, Text) else Text(cell)
    out = text.blank_copy()
    position = 0
    for match in re.finditer(r"\S+", plain):
        start, end = match.span()
        out.append_text(text[position:start])
        if cell_len(match.group()) > limit:
            kept, used = start, 0
            while kept < end and used + cell_len(plain[kept]) <= limit - 1:
                used += cell_len(plain[kept])
                kept += 1
            out.append_text(text[start:kept])
            out.append("…")
        else:
            out.append_text(text[start:end])
        position = end
    out.append_text(text[position:])
    return out if isinstance(cell, Text) else out.plain
