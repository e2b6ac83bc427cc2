"""The ``capacity --removable`` report: which nodes can go and where their pods go, why each
other node stays, and the nodes left per zone."""

from __future__ import annotations

from collections import Counter

from kschedctl.render.report.page import MAX_ROWS, cell, document, esc, facts, percent, row, table
from kschedctl.render.report.svg import bar_chart
from kschedctl.analyses.removable import RemovableResult


def removable_report(result: RemovableResult, title: str = "kschedctl capacity --removable") -> str:
    """The whole page for one answer."""
    removed = result.removable
    kept = Counter(v.reason for v in result.nodes if not v.removed)
    summary = [("Profile", esc(result.profile)),
               ("Candidates", esc(f"{len(result.nodes)} node(s)" + (f" matching {result.selector}"
                                                                    if result.selector else ""))),
               ("Utilization below", esc(f"{result.rules.utilization_below:g}")),
               ("Removable", f'<span class="badge {"ok" if removed else "bad"}">{len(removed)}</span> '
                             + esc(", ".join(removed))),
               ("Self-check", esc(("passed (simulate --drain of the set)" if result.verified else "not run")
                                  + (f"; given back: {', '.join(result.given_back)}" if result.given_back else "")))]
    if kept:
        summary.append(("Kept", esc(", ".join(f"{n} {reason}" for reason, n in kept.most_common()))))
    body = ["<h2>Summary</h2>", facts(summary)]
    body.extend(f'<p class="verdict bad">warning: {esc(w)}</p>' for w in result.warnings)
    if result.zones:
        items = [(zone or "(no zone)", counts["left"]) for zone, counts in result.zones.items()]
        body.append("<h2>Per zone</h2>")
        chart = bar_chart(items, label="Nodes left per zone", chart="left-per-zone", item_attr="data-zone")
        body.append(f'<div class="charts"><figure>{chart}'
                    "<figcaption>Nodes left per zone once the removable ones are gone</figcaption></figure></div>")
        body.append(table(["Zone", "Nodes", "Candidates", "Removable", "Left"],
                          (row([cell(zone or "(no zone)"), *(cell(counts[k]) for k in
                                                              ("nodes", "candidates", "removable", "left"))])
                           for zone, counts in result.zones.items())))
    ordered = sorted(result.nodes, key=lambda v: not v.removed)
    shown = ordered[:MAX_ROWS]
    body.append("<h2>Nodes</h2>")
    body.append(table(["Node", "Zone", "Utilization", "Verdict", "Why / where its pods go"],
                      (row([cell(v.name), cell(v.zone or "-"), cell(percent(v.utilization)),
                            cell("removed" if v.removed else v.reason), cell(v.line())],
                           **{"data-node": v.name, "data-removed": "true" if v.removed else "false"})
                       for v in shown), total=len(ordered), shown=len(shown)))
    return document("removable", title, "\n".join(body),
                    subtitle=f"{len(removed)} of {len(result.nodes)} candidate node(s) can go")
