"""The replay report: the trace's pods replayed through a profile, the pods placed differently
than in the trace (what happened, what the replay did), then the replay as a simulation (pods
per node and zone, usage at the end). It formats the ``ReplayResult``."""

from __future__ import annotations

from typing import Any

from kschedctl.render.report.page import MAX_ROWS, badge, cell, document, esc, facts, raw_cell, row, table
from kschedctl.render.report.simulate import simulation_sections


def replay_report(result: Any) -> str:
    data = result.to_dict()
    summary = data["summary"]
    pairs = [("Trace", esc(data["trace"])), ("Started", esc(data["started"])),
             ("Duration", esc(f"{data['durationSeconds']:g}s")), ("Configuration", esc(data["config"] or "built-in default")),
             ("Pods", esc(summary["pods"])), ("Placed differently", esc(summary["differences"])),
             ("Preemptions (trace / replay)", esc(f"{summary['actualPreemptions']} / {summary['replayPreemptions']}"))]
    body = ["<h2>Summary</h2>", facts(pairs)]
    same = not summary["differences"]
    verdict = ("Every pod lands where it did." if same
               else f"{summary['differences']} of {summary['pods']} pod(s) placed differently.")
    body.append(f'<p class="verdict {"ok" if same else "bad"}" data-verdict="{"same" if same else "moved"}">'
                f"{esc(verdict)}</p>")
    body.extend(f'<p class="verdict bad">warning: {esc(w)}</p>' for w in data["warnings"])
    changes = [(name, n) for name, n in summary.items() if name in _CHANGE_NAMES and n]
    body.append(facts((_CHANGE_NAMES[name], esc(n)) for name, n in changes))
    moved = [p for p in data["pods"] if p["change"] not in ("same", "bothPending")]
    if moved:
        rows = [row([cell(p["pod"]), cell(_CHANGE_NAMES.get(p["change"], p["change"])),
                     cell(p["actual"]["node"] or "pending"),
                     raw_cell(badge(p["replay"]["outcome"]) + " " + esc(p["replay"]["node"] or "")),
                     cell(p["replay"].get("message", ""))], data_pod=p["pod"]) for p in moved[:MAX_ROWS]]
        body.append("<h2>Placed differently</h2>" + table(
            ["Pod", "Change", "In the trace", "In the replay", "Message"], rows, total=len(moved), shown=len(rows),
            class_="replay-moves"))
    body.append(simulation_sections(result.simulation))
    return document("replay", "kschedctl replay", "\n".join(b for b in body if b), subtitle=verdict)


_CHANGE_NAMES = {"same": "same node", "differentNode": "another node", "wouldStayPending": "would stay pending",
                 "wouldSchedule": "would be scheduled", "wouldBePreempted": "would be preempted",
                 "bothPending": "pending in both"}
