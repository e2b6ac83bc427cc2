"""The HTML page every report shares: escaping, the document around the sections, tables.

Reports are opened by people who did not write their inputs (a pull request's pods, a sweep
file's names), so the rule is simple: every string that comes from an input goes through
:func:`esc` (control characters made visible, then HTML-escaped, quotes included, so it is safe
in text and in attribute values alike), and nothing from an input is ever written into the
``<script>`` or ``<style>`` element. The page carries a Content-Security-Policy that allows only
that one script and that one style sheet (by their hashes) and no network at all, so even a
mistake in escaping could neither run code nor load anything.
"""

from __future__ import annotations

import base64
import hashlib
import html
from typing import Any, Iterable, Sequence

from kschedctl.printable import printable
from kschedctl.scheduler.outcome import Outcome

#: Rows a report lists in one table before it says how many it left out (the file stays small
#: enough for a browser on a 5,000-node cluster or a 10,000-pod batch).
MAX_ROWS = 500


def esc(value: Any) -> str:
    """``value`` as text that is safe anywhere in HTML: in an element or in a quoted attribute."""
    return html.escape(printable("" if value is None else value), quote=True)


def attrs(**values: Any) -> str:
    """`` name="value"`` pairs, every value escaped; ``data_node`` is written ``data-node``;
    None and False leave the attribute out."""
    out = []
    for name, value in values.items():
        if value is None or value is False:
            continue
        name = name.rstrip("_").replace("_", "-")
        out.append(f' {name}="{esc(value)}"' if value is not True else f" {name}")
    return "".join(out)


def cell(text: Any, tag: str = "td", **attributes: Any) -> str:
    """One table cell holding ``text`` (escaped)."""
    return f"<{tag}{attrs(**attributes)}>{esc(text)}</{tag}>"


def raw_cell(markup: str, tag: str = "td", **attributes: Any) -> str:
    """One table cell holding ``markup``, which the caller built from escaped parts."""
    return f"<{tag}{attrs(**attributes)}>{markup}</{tag}>"


def table(headers: Sequence[str], rows: Iterable[str], *, total: int | None = None, shown: int | None = None,
          sortable: bool = True, header_cells: Sequence[str] | None = None, **attributes: Any) -> str:
    """A table: ``headers`` are text (escaped), or ``header_cells`` ready ``<th>`` markup; ``rows``
    are ``<tr>`` markup. When ``total`` rows exist and only ``shown`` are given, a line under the
    table says so."""
    classes = " ".join(filter(None, [attributes.pop("class_", None), "sortable" if sortable else None]))
    head = "".join(header_cells) if header_cells is not None else "".join(
        f'<th scope="col">{esc(h)}</th>' for h in headers)
    body = "".join(rows)
    note = ""
    if total is not None and shown is not None and shown < total:
        note = f'<p class="note">{shown:,} of {total:,} rows shown.</p>'
    return (f'<div class="scroll"><table{attrs(class_=classes or None, **attributes)}><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>{note}")


def row(cells: Iterable[str], **attributes: Any) -> str:
    return f"<tr{attrs(**attributes)}>{''.join(cells)}</tr>"


def facts(pairs: Iterable[tuple[str, str]]) -> str:
    """A definition list of (label, markup) pairs; labels are escaped, values are markup."""
    items = "".join(f"<dt>{esc(label)}</dt><dd>{value}</dd>" for label, value in pairs)
    return f'<dl class="facts">{items}</dl>'


def badge(outcome: str) -> str:
    """An outcome (Scheduled, Unschedulable, ...) as a coloured label."""
    kind = {Outcome.SCHEDULED: "ok", Outcome.UNSCHEDULABLE: "bad", Outcome.REJECTED: "bad", Outcome.ERROR: "bad",
            Outcome.GATED: "warn", Outcome.PREEMPTED: "warn"}.get(outcome, "info")
    return f'<span class="badge {kind}">{esc(outcome)}</span>'


def cores(millicores: int | float | None) -> str:
    """CPU in cores with up to three decimals (``3920`` -> ``3.92``), as the tables show it."""
    if millicores is None:
        return "-"
    text = f"{millicores / 1000:.3f}".rstrip("0").rstrip(".")
    return text or "0"


def percent(fraction: float | None) -> str:
    return "-" if fraction is None else f"{100 * fraction:.1f}%"


# The page's own style and script: fixed text, never built from inputs. The script only sorts
# tables, shows or hides columns and reads nothing but the page it is in.
STYLE = """
:root{--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--info:#57606a;--line:#d0d7de;--soft:#f6f8fa;--accent:#0969da;
--win:#dafbe1;--before:#8c959f;--after:#0969da}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1f2328;
margin:0 auto;max-width:1400px;padding:16px 24px 48px}
h1{font-size:22px;margin:8px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid var(--line);
padding-bottom:4px}h3{font-size:15px;margin:20px 0 6px}
.sub{color:var(--info);margin:0 0 12px}.note{color:var(--info);font-size:12px;margin:4px 0}
.verdict{font-size:16px;background:var(--soft);border-left:4px solid var(--accent);padding:8px 12px;margin:8px 0}
.verdict.bad{border-left-color:var(--bad)}.verdict.ok{border-left-color:var(--ok)}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:6px 0;font-size:13px}
th,td{border:1px solid var(--line);padding:3px 7px;text-align:left;vertical-align:top}
thead th{background:var(--soft);position:sticky;top:0}
table.sortable thead th{cursor:pointer;user-select:none}
table.sortable thead th[aria-sort=ascending]::after{content:" \\25B2"}
table.sortable thead th[aria-sort=descending]::after{content:" \\25BC"}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.pass{color:var(--ok);text-align:center}td.fail{color:var(--bad);background:#fff5f5}
td.fail.soft{color:var(--warn);background:#fff8e5}td.notrun{color:#8c959f;text-align:center}
td.fail small{display:block;color:#57606a;max-width:260px}
table.matrix thead th.filter{background:#fbefef}table.matrix .score.first{border-left:2px solid #8c959f}
tr.winner>*{background:var(--win);font-weight:600}tr.winner>:first-child::before{content:"\\2605  "}
tr.infeasible>:first-child{color:var(--bad)}
tbody th{text-align:left;white-space:nowrap}td.name{white-space:nowrap}
tr.failed td{color:var(--bad)}
th.rank-by,td.rank-by{background:#ddf4ff}
table.ranked{font-size:12px}table.ranked th,table.ranked td{padding:2px 5px}
table.ranked td:nth-child(2){max-width:16em;overflow-wrap:break-word}
.badge{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;color:#fff}
.badge.ok{background:var(--ok)}.badge.bad{background:var(--bad)}.badge.warn{background:var(--warn)}
.badge.info{background:var(--info)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:6px 0}
dl.facts dt{color:var(--info)}dl.facts dd{margin:0}
nav.toc ul{columns:2;margin:4px 0;padding-left:18px}
.charts{display:flex;flex-wrap:wrap;gap:12px 28px}
figure{margin:8px 0;max-width:100%}figcaption{font-size:12px;color:var(--info)}
svg.chart{max-width:100%;height:auto}dl.facts dd{overflow-wrap:anywhere;min-width:0}
svg text{font:11px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;fill:#1f2328}
svg .axis{stroke:#8c959f;stroke-width:1}svg .grid{stroke:#eaeef2;stroke-width:1}
svg .bar{fill:var(--accent)}svg .bar.zero{fill:#eaeef2}svg .before{fill:var(--before)}
svg .after{fill:var(--after)}svg .full{fill:var(--bad)}
svg .dot{fill:var(--accent);fill-opacity:.6}svg .mean{stroke:var(--bad);stroke-width:2}
svg .range{stroke:#8c959f;stroke-width:1}svg .line{fill:none;stroke-width:2}
svg .label{fill:#57606a}svg .value{fill:#1f2328}
.s0{fill:#0969da;stroke:#0969da}.s1{fill:#bf8700;stroke:#bf8700}.s2{fill:#1a7f37;stroke:#1a7f37}
.s3{fill:#8250df;stroke:#8250df}.s4{fill:#cf222e;stroke:#cf222e}.s5{fill:#1b7c83;stroke:#1b7c83}
.s6{fill:#bc4c00;stroke:#bc4c00}.s7{fill:#6e7781;stroke:#6e7781}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px;margin:2px 0 6px}
.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:-1px}
.legend .s0{background:#0969da}.legend .s1{background:#bf8700}.legend .s2{background:#1a7f37}
.legend .s3{background:#8250df}.legend .s4{background:#cf222e}.legend .s5{background:#1b7c83}
.legend .s6{background:#bc4c00}.legend .s7{background:#6e7781}
.legend .before{background:var(--before)}.legend .after{background:var(--after)}
table.hide-allpass .allpass{display:none}
label.toggle{font-size:12px;color:var(--info)}
details{margin:6px 0}summary{cursor:pointer;color:var(--accent)}
footer{margin-top:36px;color:var(--info);font-size:12px}
@media (max-width:600px){body{padding:8px 10px 32px}nav.toc ul{columns:1}.charts{gap:8px}
.verdict{font-size:15px}}
@media print{thead th{position:static}.scroll{overflow:visible}}
""".strip()

SCRIPT = """
"use strict";
(function () {
  function key(cell) {
    var v = cell ? cell.getAttribute("data-sort") : "";
    if (v === null) { v = cell.textContent.trim(); }
    var n = parseFloat(v);
    return v === "" || v === "-" ? {e: true} : (!isNaN(n) && isFinite(v)) ? {n: n} : {s: v.toLowerCase()};
  }
  function compare(a, b) {
    if ("n" in a && "n" in b) { return a.n - b.n; }
    if ("n" in a) { return -1; }
    if ("n" in b) { return 1; }
    return a.s < b.s ? -1 : a.s > b.s ? 1 : 0;
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(heads, function (th, index) {
      th.addEventListener("click", function () {
        var down = th.getAttribute("aria-sort") === "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", down ? "descending" : "ascending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (r1, r2) {
          var k1 = key(r1.cells[index]), k2 = key(r2.cells[index]);
          if (k1.e || k2.e) { return (k1.e ? 1 : 0) - (k2.e ? 1 : 0); }  // empty cells last, either way
          var c = compare(k1, k2);
          return down ? -c : c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  document.querySelectorAll("input[data-toggles]").forEach(function (box) {
    var table = document.getElementById(box.getAttribute("data-toggles"));
    if (!table) { return; }
    box.addEventListener("change", function () { table.classList.toggle("hide-allpass", !box.checked); });
  });
  // A link to a folded section (a placement's cycle) unfolds it.
  function unfold() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id ? document.getElementById(id) : null;
    if (target && target.tagName === "DETAILS") { target.open = true; target.scrollIntoView(); }
  }
  window.addEventListener("hashchange", unfold);
  unfold();
  document.body.setAttribute("data-ready", "yes");
})();
""".strip()


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


#: No network, no plugin, no frame, no form; only this page's own script and style.
CONTENT_SECURITY_POLICY = (f"default-src 'none'; script-src '{_sha256(SCRIPT)}'; style-src '{_sha256(STYLE)}'; "
                           "img-src data:; base-uri 'none'; form-action 'none'")


def document(kind: str, title: str, body: str, subtitle: str = "") -> str:
    """The whole page: ``title`` and ``subtitle`` are text (escaped), ``body`` is markup."""
    from kschedctl import UPSTREAM_VERSION, __version__

    sub = f'<p class="sub">{esc(subtitle)}</p>' if subtitle else ""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="kschedctl">\n'
        '<link rel="icon" href="data:,">\n'
        f"<title>{esc(title)}</title>\n<style>{STYLE}</style>\n</head>\n"
        f'<body data-report="{esc(kind)}">\n<header><h1>{esc(title)}</h1>{sub}</header>\n'
        f"<main>\n{body}\n</main>\n"
        f"<footer>Written by kschedctl {esc(__version__)} (kube-scheduler {esc(UPSTREAM_VERSION)}), offline: this "
        "file loads nothing from the network.</footer>\n"
        f"<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )
