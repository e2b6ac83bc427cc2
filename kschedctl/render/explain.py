"""Tables for ``kschedctl explain``: readable on 5 nodes and on 5,000.

Per pod: a summary, a loud warning for plugins kschedctl cannot run yet, the pod-level stages,
the filter matrix (nodes x filter plugins: a check mark or the reason), the score table
(raw -> normalized x weight = weighted, total, rank; the chosen node highlighted, ties marked;
extenders as ``extender:<urlPrefix>`` columns after the plugins), the extenders' calls and notes,
warnings, and, on large clusters, rejections counted by plugin and reason instead of one row per node.
``wide`` shows every node; ``node`` shows one node in full. Renders result objects only.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from rich import box
from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from kschedctl.k8s.quantity import format_milli_cpu, humanize_bytes
from kschedctl.printable import printable
from kschedctl.scheduler.diagnosis import rejections_by_plugin
from kschedctl.scheduler.result import ExplainResult, NodeResult

#: Up to this many nodes every node gets a row without --wide.
SMALL_CLUSTER = 20
#: On larger clusters, how many of the best-scored nodes are shown.
TOP_NODES = 10

_OUTCOME_STYLE = {
    "Scheduled": "bold green",
    "Unschedulable": "bold red",
    "Rejected": "bold red",
    "Gated": "bold yellow",
    "Error": "bold magenta",
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
#: How extenders are named next to plugins (kschedctl.framework.extender.PLUGIN_PREFIX).
EXTENDER_PREFIX = "extender:"


def render_explain(
    results: Iterable[ExplainResult],
    console: Console,
    wide: bool = False,
    node: str | None = None,
    top: int = TOP_NODES,
) -> None:
    """Print the tables of every result, one pod after another."""
    first = True
    for result in results:
        if not first:
            console.rule()
        first = False
        for part in explain_renderables(result, wide=wide, node=node, top=top):
            console.print(part)


def render_pending_summary(results: list[ExplainResult], console: Console) -> None:
    """``explain --pending``: one line per pod: outcome, the event message, what blocks it most,
    and the change that would make it fit (kschedctl.scheduler.hints)."""
    t = Table(title=f"Pending pods: {len(results)}", title_justify="left", box=box.SIMPLE_HEAD)
    # Names and outcomes stay whole; the message, blockers and fix are prose and wrap at their
    # spaces (the console keeps every column at least as wide as its longest word).
    t.add_column("Pod", no_wrap=True)
    t.add_column("Outcome", no_wrap=True)
    for name in ("Node / message", "Top blocker", "What would make it fit"):
        t.add_column(name)
    for r in results:
        first = r.hints[0] if r.hints else None
        if r.scheduled:
            where, blocker, fix = r.selected_node or "", "", ""
        else:
            where = printable(r.message)
            blocker = ", ".join(first.blocking_plugins) if first else _first_reason(r)
            fix = (first.text if first.node in first.text else f"{first.node}: {first.text}") if first else (
                   "; ".join(h.text for h in r.pod_hints[:1]) or "")
        t.add_row(r.pod, Text(r.outcome, style="green" if r.scheduled else "red"), where, blocker, fix)
    console.print(t)


def _first_reason(r: ExplainResult) -> str:
    for stage in r.stages:
        if stage.code not in ("Success", "Skip") and stage.reasons:
            return f"{stage.plugin} ({stage.extension_point})"
    return ""


def explain_renderables(result: ExplainResult, wide: bool = False, node: str | None = None,
                        top: int = TOP_NODES) -> list:
    parts: list = [_summary(result)]
    if result.not_implemented:
        parts.append(_not_implemented(result))
    if result.stages:
        parts.append(_stages(result))
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
    if result.outcome == "Unschedulable" and (result.hints or result.pod_hints):
        parts.append(_to_fit(result, None if wide else top))
    return parts


# -- sections --------------------------------------------------------------------------------


def _summary(r: ExplainResult) -> Table:
    t = Table(box=box.SIMPLE_HEAD, show_header=False, title=f"Pod {r.pod}", title_justify="left",
              title_style="bold")
    t.add_column(style="bold")
    t.add_column()
    t.add_row("Profile", r.profile)
    t.add_row("Outcome", Text(r.outcome, style=_OUTCOME_STYLE.get(r.outcome, "")))
    chosen = r.selected_node or "-"
    if r.provisional_node and not r.selected_node:
        if r.not_implemented:
            chosen = f"- (without the missing plugins: {r.provisional_node})"
        else:
            chosen = f"- ({r.provisional_node} was chosen, then the pod was turned away)"
    t.add_row("Selected node", Text(chosen, style="bold green" if r.selected_node else ""))
    if len(r.tied_nodes) > 1:
        seed = f"seed {r.seed}" if r.seed is not None else "no --seed: may differ between runs"
        t.add_row("Tie", f"{len(r.tied_nodes)} nodes share the top score ({seed}): {_names(r.tied_nodes)}")
    total = len(r.nodes)
    t.add_row("Nodes", f"{r.evaluated_nodes} evaluated, {r.feasible_nodes} feasible, {total} in the cluster"
              + (f" (stops after {r.num_nodes_to_find} feasible)" if r.num_nodes_to_find and
                 r.num_nodes_to_find < total else ""))
    if r.message:
        t.add_row("Message", printable(r.message))
    return t


def _not_implemented(r: ExplainResult) -> Panel:
    lines = [f"{name}: {', '.join(points)}" for name, points in r.not_implemented.items()]
    body = Text("kschedctl cannot run these plugins yet, so this answer may differ from kube-scheduler's:\n",
                style="bold")
    body.append("\n".join(lines), style="")
    return Panel(body, title="WARNING: plugins not implemented", border_style="bold red", expand=False)


def _stages(r: ExplainResult) -> Table:
    t = Table(title="Pod-level extension points", title_justify="left", box=box.SIMPLE_HEAD)
    t.add_column("Extension point")
    t.add_column("Plugin")
    t.add_column("Code")
    t.add_column("Reasons / details", overflow="fold")
    for s in r.stages:
        info = printable("; ".join(s.reasons))
        extra = dict(s.extra or {})
        if s.status is not None and s.status.details:
            extra.update(s.status.details)
        extra.pop("notImplemented", None)
        if extra.pop("displayOnly", False):
            info = (info + "; " if info else "") + "shown for reference: kube-scheduler skips scoring a single feasible node"
        if s.extension_point == "PostFilter" and r.preemption is not None:
            # the Preemption panel shows these in full
            for key in ("candidates", "victims", "nominatedNode"):
                extra.pop(key, None)
        if extra:
            info = (info + "  " if info else "") + _short(extra)
        t.add_row(s.extension_point, s.plugin, Text(s.code, style=_CODE_STYLE.get(s.code, "")), info)
    return t


def _filter_matrix(r: ExplainResult, nodes: list[NodeResult]) -> Group:
    """A mark per node and rejecting plugin, then every rejection with its reason and details.

    Plugins that rejected no node get no column (they are named under the table): with the
    fifteen filters of the default profile, a column each would not fit a terminal.
    """
    plugins = list(r.filter_plugins)
    extenders: list[str] = []
    for n in nodes:
        for f in n.filters:
            if f.plugin.startswith(EXTENDER_PREFIX):
                if f.plugin not in extenders:
                    extenders.append(f.plugin)  # extenders filter after the plugins
            elif f.plugin not in plugins:
                plugins.insert(0, f.plugin)  # a PreFilter exclusion column comes first
    plugins += extenders
    rejecting = [p for p in plugins if any(f.plugin == p and not _passed(f) for n in nodes for f in n.filters)]
    passing = [p for p in plugins if p not in rejecting and any(f.plugin == p for n in nodes for f in n.filters)]
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
    if _is_missing(f.reasons):
        return Text("not implemented by kschedctl yet", style="bold magenta")
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
        return format_milli_cpu(value)
    if item.get("unit") == "bytes" and isinstance(value, int):
        return humanize_bytes(value)
    return str(value)


def _header(plugin: str) -> str:
    """``NodeResourcesFit`` over three lines, so narrow columns still name their plugin."""
    if plugin.startswith(EXTENDER_PREFIX):
        return plugin
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "\n", plugin)


def _rejections(r: ExplainResult) -> Table:
    entries = []
    for n in r.nodes:
        v = n.verdict()
        if v is not None:
            for reason in v.reasons or [v.code]:
                entries.append((v.plugin, v.code, reason))
    rows = rejections_by_plugin(entries)
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
    plugins = [p for p in r.score_plugins if any(s.plugin == p for n in nodes for s in n.scores)]
    for n in nodes:
        for sc in n.scores:
            if sc.plugin.startswith(EXTENDER_PREFIX) and sc.plugin not in plugins:
                plugins.append(sc.plugin)  # extender scores come after the plugins' (already ×10)
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


def _names(names: list[str], limit: int = 8) -> str:
    if len(names) <= limit:
        return ", ".join(names)
    return ", ".join(names[:limit]) + f", … (+{len(names) - limit})"


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
            meta, target = v.get("metadata") or {}, v.get("target") or {}
            parts.append(f"Binding {meta.get('namespace')}/{meta.get('name')} → {target.get('kind')} {target.get('name')}")
        else:
            parts.append(f"{k}={v}")
    return ", ".join(parts)


def _is_missing(reasons: list[str]) -> bool:
    return len(reasons) == 1 and reasons[0].endswith("is not implemented by kschedctl yet")
