"""Charts as inline SVG, drawn here so that a report needs no charting library and no network.

Every chart is a function of plain numbers and names; names are escaped (they come from inputs)
and shortened to fit, the full name kept in a ``<title>`` the browser shows on hover. Colours
come from the page's style sheet (classes), never from inputs.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

from kschedctl.render.report.page import attrs, esc

ROW = 18
BAR = 12
CHAR = 6.6  # average width of an 11px character, enough to size the label column
LABEL_MAX = 34
SERIES_CLASSES = 8


def series_class(index: int) -> str:
    """The colour class of the ``index``-th series (they repeat after eight)."""
    return f"s{index % SERIES_CLASSES}"


def _fit(label: str, limit: int = LABEL_MAX) -> str:
    return label if len(label) <= limit else label[:limit - 1] + "…"


def _label_width(labels: Sequence[str]) -> int:
    longest = max((len(_fit(label)) for label in labels), default=4)
    return int(min(LABEL_MAX, max(4, longest)) * CHAR) + 10


def _num(value: float) -> str:
    """A coordinate: short, and the same on every platform."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round numbers spanning ``low``..``high`` for an axis (1, 2 or 5 times a power of ten apart)."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return [0.0]
    if high <= low:
        high = low + 1
    raw = (high - low) / max(1, count)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    start = math.floor(low / step) * step
    ticks = []
    value = start
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < high:
        ticks.append(round(value, 10))
    return ticks


def _svg(width: float, height: float, label: str, chart: str, body: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" role="img" class="chart"'
            f'{attrs(data_chart=chart, aria_label=label)} width="{_num(width)}" height="{_num(height)}" '
            f'viewBox="0 0 {_num(width)} {_num(height)}"><title>{esc(label)}</title>{body}</svg>')


def _label(x: float, y: float, text: str, anchor: str = "end", cls: str = "label") -> str:
    shown = _fit(text)
    hover = f"<title>{esc(text)}</title>" if shown != text else ""
    return f'<text x="{_num(x)}" y="{_num(y)}" text-anchor="{anchor}" class="{cls}">{hover}{esc(shown)}</text>'


def bar_chart(items: Sequence[tuple[str, float]], *, label: str, chart: str,
              value_text: Callable[[float], str] = lambda v: f"{v:g}", width: int = 360,
              item_attr: str = "data-name") -> str:
    """Horizontal bars, one per (name, value); each bar a ``rect.bar`` carrying the name in
    ``item_attr``."""
    names = [name for name, _ in items]
    left = _label_width(names)
    top = 6
    high = max((v for _, v in items), default=0) or 1
    parts = []
    attr = item_attr.removeprefix("data-").replace("-", "_")
    for i, (name, value) in enumerate(items):
        y = top + i * ROW
        length = max(0.0, value) / high * width
        cls = "bar" if value > 0 else "bar zero"
        parts.append(_label(left - 6, y + BAR - 2, name))
        parts.append(f'<rect class="{cls}" x="{left}" y="{y}" width="{_num(max(length, 1))}" height="{BAR}"'
                     f'{attrs(**{"data_" + attr: name, "data_value": _num(value)})}>'
                     f"<title>{esc(name)}: {esc(value_text(value))}</title></rect>")
        parts.append(f'<text x="{_num(left + max(length, 1) + 4)}" y="{y + BAR - 2}" class="value">'
                     f"{esc(value_text(value))}</text>")
    height = top + len(items) * ROW + 6
    return _svg(left + width + 70, height, label, chart, "".join(parts))


def before_after_chart(items: Sequence[tuple[str, float | None, float | None]], *, label: str, chart: str,
                       width: int = 300) -> str:
    """Per name, a fraction before and after (0.25 = 25%) as two thin bars on a 0-100% axis
    (longer when over 100%); the after bar turns red at 100%."""
    names = [name for name, _, _ in items]
    left = _label_width(names)
    top = 18
    row = 22
    high = max([1.0, *(v for _, a, b in items for v in (a, b) if v is not None)])
    parts = []
    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        x = left + tick / high * width
        parts.append(f'<line class="grid" x1="{_num(x)}" y1="{top - 4}" x2="{_num(x)}" '
                     f'y2="{top + len(items) * row}"/>')
        parts.append(f'<text x="{_num(x)}" y="{top - 7}" text-anchor="middle" class="label">{int(tick * 100)}%</text>')
    for i, (name, before, after) in enumerate(items):
        y = top + i * row
        parts.append(_label(left - 6, y + 13, name))
        for offset, value, cls in ((1, before, "before"), (9, after, "after")):
            if value is None:
                continue
            shown = cls + (" full" if cls == "after" and value >= 1 else "")
            parts.append(f'<rect class="{shown}" x="{left}" y="{y + offset}" width="{_num(max(1, value / high * width))}"'
                         f' height="7"{attrs(data_name=name, data_when=cls)}><title>{esc(name)} {cls}: '
                         f"{100 * value:.1f}%</title></rect>")
        text = " → ".join(f"{100 * v:.0f}%" if v is not None else "-" for v in (before, after))
        parts.append(f'<text x="{_num(left + width + 6)}" y="{y + 13}" class="value">{esc(text)}</text>')
    height = top + len(items) * row + 4
    return _svg(left + width + 90, height, label, chart, "".join(parts))


def stacked_bar_chart(items: Sequence[tuple[str, Sequence[float]]], series: Sequence[str], *, label: str,
                      chart: str, width: int = 420, highlight: str | None = None) -> str:
    """Horizontal bars made of one segment per series (the same order for every bar), the total
    at the end; the ``highlight`` bar's name in bold."""
    names = [name for name, _ in items]
    left = _label_width(names)
    top = 6
    high = max((sum(max(0.0, v) for v in values) for _, values in items), default=0) or 1
    parts = []
    for i, (name, values) in enumerate(items):
        y = top + i * ROW
        parts.append(_label(left - 6, y + BAR - 2, name, cls="value" if name == highlight else "label"))
        x = float(left)
        for j, value in enumerate(values):
            if value <= 0:
                continue
            length = value / high * width
            plugin = series[j] if j < len(series) else str(j)
            parts.append(f'<rect class="{series_class(j)}" x="{_num(x)}" y="{y}" width="{_num(length)}" '
                         f'height="{BAR}"{attrs(data_name=name, data_series=plugin)}><title>{esc(name)}: '
                         f"{esc(plugin)} {esc(_short(value))}</title></rect>")
            x += length
        total = sum(values)
        parts.append(f'<text x="{_num(x + 4)}" y="{y + BAR - 2}" class="value">{esc(_short(total))}</text>')
    height = top + len(items) * ROW + 6
    return _svg(left + width + 60, height, label, chart, "".join(parts))


def grouped_bar_chart(items: Sequence[tuple[str, Sequence[float]]], series: Sequence[str], *, label: str,
                      chart: str, width: int = 300, value_text: Callable[[float], str] = lambda v: f"{v:g}") -> str:
    """Per name, one thin bar per series (the same order and colours for every name)."""
    names = [name for name, _ in items]
    left = _label_width(names)
    top = 6
    thin = 7
    row = max(ROW, thin * len(series) + 6)
    high = max((v for _, values in items for v in values), default=0) or 1
    parts = []
    for i, (name, values) in enumerate(items):
        y = top + i * row
        parts.append(_label(left - 6, y + row / 2 + 2, name))
        for j, value in enumerate(values):
            length = max(1.0, max(0.0, value) / high * width)
            name_j = series[j] if j < len(series) else str(j)
            parts.append(f'<rect class="{series_class(j)}" x="{left}" y="{_num(y + j * thin)}" width="{_num(length)}"'
                         f' height="{thin - 1}"{attrs(data_name=name, data_series=name_j)}><title>{esc(name)} '
                         f"{esc(name_j)}: {esc(value_text(value))}</title></rect>")
        text = " / ".join(value_text(v) for v in values)
        parts.append(f'<text x="{left + width + 6}" y="{_num(y + row / 2 + 2)}" class="value">{esc(text)}</text>')
    height = top + len(items) * row + 6
    return _svg(left + width + 90, height, label, chart, "".join(parts))


def legend(series: Sequence[str]) -> str:
    """The colour of each series, as the charts draw them."""
    return '<div class="legend">' + "".join(
        f'<span><i class="{series_class(i)}"></i>{esc(name)}</span>' for i, name in enumerate(series)) + "</div>"


def step_chart(series: Sequence[tuple[str, Sequence[tuple[float, float]]]], *, label: str, chart: str,
               x_label: str, y_label: str, width: int = 520, height: int = 220) -> str:
    """Lines that step up at each (x, y) point, one per named series (counts over the run)."""
    left, bottom, top, right = 44, 30, 10, 24
    xs = [x for _, points in series for x, _ in points]
    ys = [y for _, points in series for _, y in points]
    x_high = max(xs, default=1) or 1
    y_ticks = nice_ticks(0, max(ys, default=1) or 1, 4)
    y_high = y_ticks[-1] or 1
    plot_w, plot_h = width - left - right, height - top - bottom

    def px(x: float) -> float:
        return left + x / x_high * plot_w

    def py(y: float) -> float:
        return top + plot_h - y / y_high * plot_h

    parts = []
    for tick in y_ticks:
        parts.append(f'<line class="grid" x1="{left}" y1="{_num(py(tick))}" x2="{left + plot_w}" '
                     f'y2="{_num(py(tick))}"/>')
        parts.append(f'<text x="{left - 4}" y="{_num(py(tick) + 4)}" text-anchor="end" class="label">'
                     f"{esc(_short(tick))}</text>")
    for tick in nice_ticks(0, x_high, 5):
        if tick <= x_high:
            parts.append(f'<text x="{_num(px(tick))}" y="{top + plot_h + 14}" text-anchor="middle" class="label">'
                         f"{esc(_short(tick))}</text>")
    parts.append(f'<line class="axis" x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}"/>')
    parts.append(f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}"/>')
    parts.append(f'<text x="{left + plot_w / 2}" y="{height - 3}" text-anchor="middle" class="label">'
                 f"{esc(x_label)}</text>")
    parts.append(f'<text x="12" y="{top + plot_h / 2}" text-anchor="middle" class="label" '
                 f'transform="rotate(-90 12 {_num(top + plot_h / 2)})">{esc(y_label)}</text>')
    for i, (name, points) in enumerate(series):
        path = [f"M{_num(px(0))},{_num(py(0))}"]
        last_y = 0.0
        for x, y in points:
            path.append(f"L{_num(px(x))},{_num(py(last_y))}L{_num(px(x))},{_num(py(y))}")
            last_y = y
        path.append(f"L{_num(px(x_high))},{_num(py(last_y))}")
        parts.append(f'<path class="line {series_class(i)}" fill="none" d="{"".join(path)}"'
                     f'{attrs(data_name=name)}><title>{esc(name)}: {esc(_short(last_y))}</title></path>')
    return _svg(width, height, label, chart, "".join(parts))


def strip_chart(items: Sequence[tuple[str, Sequence[float]]], *, label: str, chart: str,
                value_text: Callable[[float], str] = lambda v: f"{v:g}", width: int = 360) -> str:
    """Per name (a configuration), every value as a dot on a shared axis and the mean as a tick."""
    names = [name for name, _ in items]
    left = _label_width(names)
    top = 20
    row = 20
    values = [v for _, vs in items for v in vs]
    ticks = nice_ticks(min(values, default=0), max(values, default=1), 4) if values else [0.0, 1.0]
    low, high = ticks[0], ticks[-1]
    span = (high - low) or 1

    def px(v: float) -> float:
        return left + (v - low) / span * width

    parts = []
    for tick in ticks:
        parts.append(f'<line class="grid" x1="{_num(px(tick))}" y1="{top - 4}" x2="{_num(px(tick))}" '
                     f'y2="{top + len(items) * row}"/>')
        parts.append(f'<text x="{_num(px(tick))}" y="{top - 8}" text-anchor="middle" class="label">'
                     f"{esc(value_text(tick))}</text>")
    for i, (name, vs) in enumerate(items):
        y = top + i * row + row / 2
        parts.append(_label(left - 8, y + 4, name))
        if not vs:
            parts.append(f'<text x="{left}" y="{_num(y + 4)}" class="label">no value</text>')
            continue
        parts.append(f'<line class="range" x1="{_num(px(min(vs)))}" y1="{_num(y)}" x2="{_num(px(max(vs)))}" '
                     f'y2="{_num(y)}"/>')
        for v in vs:
            parts.append(f'<circle class="dot" cx="{_num(px(v))}" cy="{_num(y)}" r="4"{attrs(data_name=name)}>'
                         f"<title>{esc(name)}: {esc(value_text(v))}</title></circle>")
        mean = sum(vs) / len(vs)
        parts.append(f'<line class="mean" x1="{_num(px(mean))}" y1="{_num(y - 7)}" x2="{_num(px(mean))}" '
                     f'y2="{_num(y + 7)}"><title>{esc(name)}: mean {esc(value_text(mean))}</title></line>')
    height = top + len(items) * row + 6
    return _svg(left + width + 30, height, label, chart, "".join(parts))


def _short(value: float) -> str:
    return f"{value:g}" if abs(value) < 1e6 else f"{value:.3g}"
