"""The "What if" section every report opens with when the run changed the cluster first
(``--drain``, ``--cordon``, ``--without-node(s)``, ``--add-nodes``): each edit and its nodes, and
for a drain whether it completes, each eviction with its replacement and where that went, each
refusal with the budget's message. It only formats the ``WhatIfReport``'s records."""

from __future__ import annotations

from typing import Any

from kschedctl.render.report.page import MAX_ROWS, cell, esc, raw_cell, row, table


def what_if_section(report: Any) -> str:
    """The section's markup ("" without edits)."""
    if not report:
        return ""
    parts = ['<section id="what-if"><h2>What if</h2>',
             '<p class="note">The answer below is for the cluster as changed here (its "before" '
             "columns, where it has them, are the cluster as it is).</p>"]
    rows = [row([cell(r.action), cell(r.target), cell(r.summary())], data_action=r.action, data_nodes=",".join(r.nodes))
            for r in report.records]
    parts.append(table(["Change", "Target", "What changed (nodes, pods)"], rows, sortable=False, class_="what-if"))
    for record in report.records:
        if record.action == "drain" or record.evicted:
            parts.append(_drain(record))
    parts.append("</section>")
    return "".join(parts)


def _drain(record: Any) -> str:
    shortfall = record.shortfall()
    if record.action == "drain":
        verdict = ("The drain completes: every evictable pod evicted, every replacement placed." if not shortfall
                   else "The drain does not complete: " + "; ".join(shortfall) + ".")
    else:
        verdict = ("Every pod its controller makes again finds a node." if not shortfall
                   else "Not every pod comes back: " + "; ".join(shortfall) + ".")
    parts = [f'<p class="verdict {"bad" if shortfall else "ok"}" data-drain="{"incomplete" if shortfall else "complete"}">'
             f"{esc(verdict)}</p>"]
    moves = record.moves()
    if moves:
        rows = [row([cell(m["pod"]), cell(m["node"]), cell(m.get("controller", "")), cell(m.get("replacement", "")),
                     raw_cell(esc(m["to"]) if m["to"] else f'<span class="badge bad">pending</span> {esc(m["message"])}')],
                    data_pod=m["pod"]) for m in moves[:MAX_ROWS]]
        parts.append("<h3>Evictions and where the replacements went</h3>" if record.action == "drain" else
                     "<h3>Pods gone with the nodes and where their replacements went</h3>")
        parts.append(table(["Evicted pod" if record.action == "drain" else "Pod", "From", "Controller", "Replacement", "Placed on"], rows,
                           total=len(moves), shown=len(rows), class_="evictions"))
    if record.blocked:
        rows = [row([cell(pod), cell(message)], data_pod=pod) for pod, message in list(record.blocked.items())[:MAX_ROWS]]
        parts.append("<h3>Evictions a PodDisruptionBudget refuses</h3>")
        parts.append(table(["Pod", "The eviction API's answer"], rows, total=len(record.blocked), shown=len(rows),
                           class_="refusals"))
    if record.refused:
        rows = [row([cell(pod), cell(record.refused_nodes.get(pod, "")), cell(reason)], data_pod=pod)
                for pod, reason in list(record.refused.items())[:MAX_ROWS]]
        parts.append("<h3>Pods that stop their node's drain</h3>")
        parts.append(table(["Pod", "Node", "Why"], rows, total=len(record.refused), shown=len(rows),
                           class_="not-evictable"))
    left = [(pod, why) for pod, why in record.kept.items()] + [(pod, "deleted") for pod in record.deleted]
    if left:
        rows = [row([cell(pod), cell(why)]) for pod, why in left[:MAX_ROWS]]
        parts.append("<details><summary>Pods kept or deleted, not replaced</summary>"
                     + table(["Pod", "Why"], rows, total=len(left), shown=len(rows), class_="kept") + "</details>")
    return "".join(parts)
