"""The capacity report: how many copies (or sets) fit, the copies per node as bars and a table,
and the message of the copy that did not fit. It formats the ``CapacityResult`` (or
``MixCapacityResult``) JSON form."""

from __future__ import annotations

from typing import Any

from kschedctl.render.report.page import MAX_ROWS, badge, cell, document, esc, facts, row, table
from kschedctl.render.report.svg import bar_chart

#: Nodes the chart draws (those with the most copies).
CHART_NODES = 60


def capacity_report(result: Any) -> str:
    data = result.to_dict()
    count, limit = data["count"], data.get("max")
    mix = data.get("mix")
    unit = "set(s)" if mix else "copies"
    summary = [("Pod" if not mix else "Pods", esc(data["pod"])), ("Fit", esc(f"{count:,} {unit}")),
               ("Profile", esc(data.get("profile") or "-")), ("Method", esc(data.get("method", "")))]
    if mix:
        summary.append(("Set", esc(", ".join(f"{n} × {pod}" for pod, n in mix["ratio"].items()))))
    if data.get("seed") is not None:
        summary.append(("Seed", esc(data["seed"])))
    body = ["<h2>Summary</h2>", facts(summary)]
    if data.get("limitReached"):
        verdict, good = f"At least {count:,} {unit} fit: --max {limit} reached.", True
    elif count:
        verdict, good = f"{count:,} more {unit} fit; the next one does not.", True
    else:
        verdict, good = f"Not one more {'set' if mix else 'copy'} fits.", False
    body.append(f'<p class="verdict {"ok" if good else "bad"}" data-count="{esc(count)}">{esc(verdict)}</p>')
    body.extend(f'<p class="verdict bad">warning: {esc(w)}</p>' for w in getattr(result, "warnings", ()))
    if data.get("stopReason"):
        body.append("<h2>What stops the next one</h2>"
                    f"<p>{badge(data.get('stopOutcome') or 'Unschedulable')} {esc(data['stopReason'])}</p>")
    per_node = sorted(data["perNode"].items(), key=lambda kv: (-kv[1], kv[0]))
    if per_node:
        shown = per_node[:CHART_NODES]
        note = (f'<p class="note">The {len(shown)} nodes with the most of {len(per_node)}.</p>'
                if len(shown) < len(per_node) else "")
        body.append("<h2>Per node</h2><figure>"
                    + bar_chart(shown, label="Copies per node", chart="copies-per-node", item_attr="data-node")
                    + f"<figcaption>{esc('Pods of whole sets' if mix else 'Copies')} placed per node</figcaption>"
                    "</figure>" + note)
        rows = [row([cell(node), cell(n, class_="num")], data_node=node) for node, n in per_node[:MAX_ROWS]]
        body.append(table(["Node", "Pods" if mix else "Copies"], rows, total=len(per_node), shown=len(rows),
                          class_="per-node"))
    if data.get("preemptionPossible"):
        possible = data["preemptionPossible"]
        body.append("<h2>Preemption</h2>" + facts((str(k), esc(v)) for k, v in possible.items()))
    return document("capacity", "kschedctl capacity", "\n".join(body),
                    subtitle=f"{count:,} {unit} of {data['pod']} fit")
