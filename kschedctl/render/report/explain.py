"""The explain report: per pod, the answer first (winner and margin, or blockers and the nearest
fix), then the node x plugin matrix of filter verdicts and weighted scores, the score breakdown
as a chart, the rejections counted by plugin and reason, preemption and hints."""

from __future__ import annotations

from typing import Any, Sequence

from kschedctl.render.report.page import (
    MAX_ROWS,
    attrs,
    badge,
    cell,
    document,
    esc,
    facts,
    raw_cell,
    row,
    table,
)
from kschedctl.render.report.svg import legend, stacked_bar_chart
from kschedctl.scheduler.result import ExplainResult, NodeResult

#: Nodes the score chart draws (the best-ranked ones, the chosen node always among them).
CHART_NODES = 20


def explain_report(results: Sequence[ExplainResult]) -> str:
    """The report of one or several explained pods: one section per pod."""
    body = []
    if len(results) > 1:
        items = "".join(f'<li><a href="#pod-{i}">{esc(r.pod)}</a> {badge(r.outcome)} {esc(r.selected_node or "")}</li>'
                        for i, r in enumerate(results))
        body.append(f'<nav class="toc"><h2>Pods</h2><ul>{items}</ul></nav>')
    body.extend(pod_section(i, r) for i, r in enumerate(results))
    title = f"kschedctl explain: {results[0].pod}" if len(results) == 1 else f"kschedctl explain: {len(results)} pods"
    scheduled = sum(1 for r in results if r.scheduled)
    return document("explain", title, "\n".join(body), subtitle=f"{scheduled} of {len(results)} pod(s) scheduled")


def pod_section(index: int, r: ExplainResult) -> str:
    """One pod's section: the verdict, facts, the filter × score matrix, charts, hints."""
    parts = [f"<h2>{esc(r.pod)} {badge(r.outcome)}</h2>", _verdict(r)]
    nodes_total = len(r.nodes)
    parts.append(facts([
        ("Profile", esc(r.profile)),
        ("Selected node", esc(r.selected_node or "none")),
        ("Nodes", esc(f"{r.evaluated_nodes} evaluated, {r.feasible_nodes} feasible, {nodes_total} in the cluster")),
        *([("Message", esc(r.message))] if r.message and not r.scheduled else []),
        *([("Seed", esc(r.seed))] if r.seed is not None else []),
    ]))
    for warning in r.warnings:
        parts.append(f'<p class="verdict bad">warning: {esc(warning)}</p>')
    parts.append(_matrix(index, r))
    chart = _score_chart(r)
    if chart:
        parts.append(chart)
    blockers = _blockers(r)
    if blockers:
        parts.append(blockers)
    if r.preemption is not None:
        parts.append(_preemption(r))
    if r.hints or r.pod_hints:
        parts.append(_to_fit(r))
    stages = _stages(r)
    if stages:
        parts.append(stages)
    return f'<section class="pod"{attrs(id=f"pod-{index}", data_pod=r.pod, data_outcome=r.outcome)}>' + \
        "\n".join(parts) + "</section>"


# -- the answer first ---------------------------------------------------------------------------


def _verdict(r: ExplainResult) -> str:
    """The answer first, in the words of ``r.decision`` (the terminal's too)."""
    d = r.decision
    # spec.nodeName: kube-scheduler never sees the pod; what follows is its plugins' view
    note = f'<br><span class="note">Note: {esc(d.note)}</span>' if d.note else ""
    if r.scheduled and r.selected_node:
        text = f"{esc(r.outcome)} on <b>{esc(r.selected_node)}</b>"
        if d.why:
            text += f'. Why: <span class="why">{esc(d.why)}</span>'
        return f'<p class="verdict ok" data-verdict="scheduled">{text}{note}</p>'
    if r.preemption is not None:
        victims = r.preemption.victims
        text = (f"{esc(r.outcome)} → nominated <b>{esc(r.preemption.nominated_node)}</b>, preempting "
                f"{len(victims)} pod{'s' if len(victims) != 1 else ''}"
                + (f": {esc(', '.join(victims[:5]))}" + (" …" if len(victims) > 5 else "") if victims else ""))
        return f'<p class="verdict bad" data-verdict="preemption">{text}{note}</p>'
    text = esc(r.outcome)
    if d.blockers:
        text += ": blocked by " + ", ".join(f"<b>{esc(b.plugin)}</b> ({b.nodes} node{'s' if b.nodes != 1 else ''})"
                                            for b in d.blockers[:3])
    elif r.message:
        text += f": {esc(r.message)}"
    if d.fix:
        text += f"<br>{'To fit' if r.pod_hints else 'Closest to fitting'}: {esc(d.fix)}"
    return f'<p class="verdict bad" data-verdict="unschedulable">{text}{note}</p>'


# -- the matrix ---------------------------------------------------------------------------------


def _score_columns(r: ExplainResult, nodes: Sequence[NodeResult]) -> list[str]:
    scored = {s.plugin for n in nodes for s in n.scores}
    columns = [p for p in r.score_plugins if p in scored]
    for n in nodes:
        for s in n.scores:
            if s.plugin not in columns:
                columns.append(s.plugin)
    return columns


def _ordered_nodes(r: ExplainResult) -> list[NodeResult]:
    """The chosen node, the others by rank, then the feasible unscored, then the rejected."""
    def key(n: NodeResult) -> tuple:
        return (n.name != r.selected_node, n.total_score is None, n.rank or 0, not n.feasible)

    return sorted(r.nodes, key=key)


def _passed(f: Any) -> bool:
    return f.status is None or f.code == "Success"


def _matrix(index: int, r: ExplainResult) -> str:
    nodes = _ordered_nodes(r)
    shown = nodes[:MAX_ROWS]
    filters = r.filter_columns(list(nodes))
    scores = _score_columns(r, nodes)
    rejecting = {f.plugin for n in nodes for f in n.filters if not _passed(f)}
    table_id = f"matrix-{index}"
    heads = ['<th scope="col">Node</th>']
    for p in filters:
        cls = "filter" if p in rejecting else "filter allpass"
        heads.append(f'<th scope="col"{attrs(class_=cls, title=f"Filter {p}")}>{_wrap_name(p)}</th>')
    heads.append('<th scope="col">Feasible</th>')
    for i, p in enumerate(scores):
        cls = "num score first" if i == 0 else "num score"
        heads.append(f'<th scope="col"{attrs(class_=cls, title=f"Score {p}: weighted")}>{_wrap_name(p)}</th>')
    if scores:
        heads += ['<th scope="col" class="num">Total</th>', '<th scope="col" class="num">Rank</th>']
    rows = []
    for n in shown:
        by_filter = {f.plugin: f for f in n.filters}
        by_score = {s.plugin: s for s in n.scores}
        cells = [cell(n.name, scope="row", tag="th", data_node=n.name)]
        for p in filters:
            cells.append(_verdict_cell(by_filter.get(p), p in rejecting))
        cells.append(cell("yes" if n.feasible else ("no" if n.evaluated or n.filters else "not evaluated"),
                          class_="pass" if n.feasible else "notrun"))
        for i, p in enumerate(scores):
            s = by_score.get(p)
            first = " first" if i == 0 else ""
            if s is None:
                cells.append(cell("", class_=f"num score notrun{first}"))
            else:
                detail = f"{p}: raw {s.raw} → normalized {s.normalized} × weight {s.weight} = {s.weighted}"
                cells.append(cell(s.weighted, class_=f"num score{first}", title=detail, data_sort=s.weighted))
        if scores:
            total = "" if n.total_score is None else str(n.total_score) + (" (tie)" if n.tied else "")
            cells.append(cell(total, class_="num", data_sort=n.total_score if n.total_score is not None else ""))
            cells.append(cell(n.rank or "", class_="num"))
        classes = " ".join(filter(None, ["winner" if n.name == r.selected_node else None,
                                         "nominated" if r.preemption and n.name == r.preemption.nominated_node
                                         else None, None if n.feasible else "infeasible"]))
        rows.append(row(cells, class_=classes or None, data_node=n.name))
    allpass = sum(1 for p in filters if p not in rejecting)
    toggle = ""
    if allpass:
        toggle = (f'<label class="toggle"><input type="checkbox"{attrs(data_toggles=table_id)}> show the {allpass} '
                  f"filter plugin(s) that passed every node they ran on</label>")
    title = ("<h3>Filter verdicts and weighted scores, per node</h3>"
             '<p class="note">Filter plugins first (shaded), then score plugins. ✓ passed, ✗ rejected (the reason under it), · not run on that node (an earlier '
             "filter rejected it). Scores are weighted (normalized × weight); hover a cell for raw and "
             "normalized. Click a column to sort.</p>")
    return title + toggle + table([], rows, header_cells=heads, total=len(nodes), shown=len(shown),
                                  id=table_id, class_="matrix hide-allpass" if allpass else "matrix")


def _wrap_name(plugin: str) -> str:
    """A plugin name that may break before its capitals (``Node<wbr>Resources<wbr>Fit``)."""
    out = []
    for i, ch in enumerate(plugin):
        if i and ch.isupper() and plugin[i - 1].islower():
            out.append("<wbr>")
        out.append(esc(ch))
    return "".join(out)


def _verdict_cell(f: Any, rejecting: bool) -> str:
    cls = None if rejecting else "allpass"
    if f is None:
        return cell("·", class_=" ".join(filter(None, ["notrun", cls])), title="not run on this node")
    if _passed(f):
        return cell("✓", class_=" ".join(filter(None, ["pass", cls])), title=f"{f.plugin}: {f.code}")
    reason = "; ".join(f.reasons) or f.code
    soft = " soft" if f.code == "Unschedulable" else ""
    return raw_cell(f"✗<small>{esc(reason)}</small>", class_=f"fail{soft}", title=f"{f.plugin}: {f.code}: {reason}",
                    data_plugin=f.plugin)


# -- the other sections ------------------------------------------------------------------------


def _score_chart(r: ExplainResult) -> str:
    scored = sorted((n for n in r.nodes if n.total_score is not None), key=lambda n: (n.rank or 0, n.name))
    if not scored:
        return ""
    shown = scored[:CHART_NODES]
    if r.selected_node and all(n.name != r.selected_node for n in shown):
        shown += [n for n in scored if n.name == r.selected_node]
    plugins = _score_columns(r, scored)
    items = [(n.name, [next((s.weighted for s in n.scores if s.plugin == p), 0) for p in plugins]) for n in shown]
    note = f" (the best {len(shown)} of {len(scored)})" if len(shown) < len(scored) else ""
    chart = stacked_bar_chart(items, plugins, label=f"Weighted scores of {r.pod} per node", chart="scores",
                              highlight=r.selected_node)
    return f"<h3>Score breakdown{esc(note)}</h3>{legend(plugins)}<figure>{chart}</figure>"


def _blockers(r: ExplainResult) -> str:
    rejections = r.rejections()
    if not rejections:
        return ""
    rows = [row([cell(plugin), cell(code), cell(reason), cell(count, class_="num")], data_plugin=plugin)
            for plugin, code, reason, count in rejections]
    return "<h3>Blockers: rejections by plugin and reason</h3>" + table(
        ["Plugin", "Code", "Reason", "Nodes"], rows[:MAX_ROWS], total=len(rows), shown=min(len(rows), MAX_ROWS),
        class_="blockers")


def _preemption(r: ExplainResult) -> str:
    p = r.preemption
    assert p is not None
    out = ["<h3>Preemption</h3>", facts([("Nominated node", esc(p.nominated_node)),
                                         ("Victims", esc(", ".join(p.victims) or "-"))])]
    if p.candidates:
        rows = []
        for c in p.candidates:
            decision = f"chosen ({c.get('decidedBy', '')})" if c.get("chosen") else f"lost on {c.get('lostOn', '-')}"
            rows.append(row([cell(c.get("node", "")), cell(", ".join(c.get("victims") or ()) or "-"),
                             cell(c.get("numPDBViolations", 0), class_="num"),
                             cell(c.get("highestVictimPriority", "-"), class_="num"), cell(decision)]))
        out.append(table(["Candidate", "Victims", "PDB violations", "Highest victim priority", "Decision"], rows,
                         class_="candidates"))
    return "".join(out)


def _to_fit(r: ExplainResult) -> str:
    rows = [row([cell(""), cell("(every node)"), cell(h.plugin), cell(h.text), cell("?")]) for h in r.pod_hints]
    for h in r.hints[:MAX_ROWS]:
        needs = h.text[len(h.node) + 1:] if h.text.startswith(h.node + " ") else h.text
        rows.append(row([cell(h.rank, class_="num"), cell(h.node), cell(", ".join(h.blocking_plugins)), cell(needs),
                         cell("yes" if h.fits_after else "?")]))
    return "<h3>To fit: the nodes closest to fitting first</h3>" + table(
        ["#", "Node", "Blocking", "Needs", "Fits after"], rows, total=len(r.hints) + len(r.pod_hints),
        shown=len(rows), class_="hints")


def _stages(r: ExplainResult) -> str:
    """Pod-level extension points, folded: only those that did something are listed open."""
    busy = [s for s in r.stages if s.code not in ("Success", "Skip") or s.reasons]
    rows = [row([cell(s.extension_point), cell(s.plugin), cell(s.code), cell("; ".join(s.reasons))]) for s in r.stages]
    if not rows:
        return ""
    summary = f"Pod-level extension points ({len(r.stages)} calls, {len(busy)} with something to say)"
    return (f"<details{attrs(open=bool(busy))}><summary>{esc(summary)}</summary>"
            + table(["Extension point", "Plugin", "Code", "Reasons"], rows, class_="stages") + "</details>")
