"""The figures of report.html as plain SVG text: the mean-preference heatmap, the means with confidence intervals
and the histogram of one pair's per-query values.

Written by prefeval rather than a plotting library (see :mod:`prefeval.report.html` for the reasons): each
figure is a few rectangles, lines and labels, so the SVG is small (a 12-run heatmap is about 60 KB with a
tooltip per cell), needs no dependency, and its elements carry ``data-*`` attributes for the page's scripts and
``<title>`` tooltips that work without them. Every figure has a ``<title>`` and a ``<desc>`` (text alternatives).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import TYPE_CHECKING

import numpy as np

from prefeval.core.lazy import lazy_module
from prefeval.report.text import interval_text, plural

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")  # the report's figures take frames; a notebook view of a comparison does not

__all__ = ["heatmap", "means_with_ci", "histogram", "diverging_colour", "HISTOGRAM_BINS", "TIE_TOL"]

#: Bins of the per-query histogram (odd, so one bin is centred on 0); the page's script uses the same number.
HISTOGRAM_BINS = 21
#: Heatmap cells carry a ``<title>`` tooltip up to this many runs (beyond, the page would grow by about 150 bytes
#: per cell; the script's tooltip shows the same numbers).
TITLED_RUNS = 25
#: |value| at or below which a per-query preference or difference is a tie (as in the comparison's summary).
TIE_TOL = 1e-12

_RED, _WHITE, _BLUE = (178, 24, 43), (247, 247, 247), (33, 102, 172)
_BASELINE, _RUN = "#c0392b", "#1f5fa8"


def _attr(value: object) -> str:
    return escape(str(value), quote=True)


def diverging_colour(t: float) -> str:
    """The colour of ``t`` in [-1, 1]: red (-1) through near-white (0) to blue (+1); grey for NaN."""
    if not math.isfinite(t):
        return "#dddddd"
    t = max(-1.0, min(1.0, t))
    end = _BLUE if t > 0 else _RED
    mix = [round(w + (e - w) * abs(t)) for w, e in zip(_WHITE, end)]
    return "#{:02x}{:02x}{:02x}".format(*mix)


def _text_width(text: str, size: float = 11.0) -> float:
    """Rough width of ``text`` in pixels in a sans-serif font of ``size`` (for margins)."""
    return 0.6 * size * len(text)


def _num(value: float, digits: int = 4) -> str:
    return "nan" if not math.isfinite(value) else f"{value:.{digits}f}"


def _p(value: float) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def heatmap(method: str, order: Sequence[str], cells: Mapping[tuple[str, str], Mapping[str, float]],
            ident: str = "heatmap", label_runs: bool = True, family: str = "") -> str:
    """The mean-preference matrix of ``method`` (row run over column run), runs in ``order``.

    ``cells[(a, b)]``: ``mean`` (preference of a over b), ``wins``, ``ties``, ``losses`` (queries on which a is
    preferred, tied, b preferred) and ``p`` (adjusted p-value), for every ordered pair. Each cell is a ``rect``
    with those values as ``data-*`` attributes and, up to :data:`TITLED_RUNS` runs, a ``<title>`` tooltip (the
    page's script shows the same on hover); ``ident`` makes the figure's element ids unique in the page.
    ``family``: the test, correction and family the adjusted p-values come from, named beside each of them."""
    S = len(order)
    size = max(12.0, min(44.0, 560.0 / max(S, 1)))
    label = max((_text_width(r) for r in order), default=0) + 12
    left, top = label, label * 0.75 + 24
    width, height = left + S * size + 90, top + S * size + 36
    means = [cells[(a, b)]["mean"] for a in order for b in order if a != b and (a, b) in cells]
    finite = [abs(m) for m in means if math.isfinite(m)]
    vmax = max(finite) if finite and max(finite) > 0 else 1.0
    desc = (f"Mean preference of each row run over each column run under {method}, {S} runs in the order of the "
            f"method's ranking; blue: the row run is preferred, red: the column run; colour scale ±{vmax:.3f}.")
    out = [f'<svg class="heatmap" role="img" viewBox="0 0 {width:.0f} '
           f'{height:.0f}" width="{width:.0f}" height="{height:.0f}" data-method="{_attr(method)}" '
           f'data-family="{_attr(family)}" aria-labelledby="t-{ident} d-{ident}">',
           f'<title id="t-{ident}">{escape(method)}: mean-preference matrix</title>',
           f'<desc id="d-{ident}">{escape(desc)}</desc>']
    for i, a in enumerate(order):
        y = top + i * size
        out.append(f'<text x="{left - 6:.1f}" y="{y + size / 2 + 4:.1f}" text-anchor="end" class="lab">'
                   f'{escape(a)}</text>')
        x = left + i * size + size / 2
        out.append(f'<text transform="translate({x + 4:.1f},{top - 6:.1f}) rotate(-45)" class="lab">{escape(a)}</text>')
    show = label_runs and S <= 15
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            x, y = left + j * size, top + i * size
            if a == b or (a, b) not in cells:
                out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{size:.1f}" height="{size:.1f}" fill="#eeeeee"/>')
                continue
            c = cells[(a, b)]
            m = float(c["mean"])
            tip = (f"{a} over {b}: mean preference {m:+.4f}; {a} preferred on {int(c['wins'])}, tied on "
                   f"{int(c['ties'])}, {b} preferred on {int(c['losses'])} queries; adjusted p {_p(c['p'])}"
                   + (f" ({family})" if family else ""))
            out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{size:.1f}" height="{size:.1f}" '
                       f'fill="{diverging_colour(m / vmax)}" data-a="{_attr(a)}" data-b="{_attr(b)}" '
                       f'data-mean="{m!r}" data-wins="{int(c["wins"])}" data-ties="{int(c["ties"])}" '
                       f'data-losses="{int(c["losses"])}" data-p="{float(c["p"])!r}">'
                       + (f"<title>{escape(tip)}</title></rect>" if S <= TITLED_RUNS else "</rect>"))
            if show:
                colour = "#ffffff" if abs(m) > 0.6 * vmax else "#222222"
                out.append(f'<text x="{x + size / 2:.1f}" y="{y + size / 2 + 3.5:.1f}" text-anchor="middle" '
                           f'class="cell" fill="{colour}">{m:+.2f}</text>')
    # colour bar
    bx, by, bh = left + S * size + 24, top, S * size
    steps = 20
    for k in range(steps):
        t = 1 - 2 * (k + 0.5) / steps
        out.append(f'<rect x="{bx:.1f}" y="{by + k * bh / steps:.1f}" width="14" height="{bh / steps + 0.5:.1f}" '
                   f'fill="{diverging_colour(t)}"/>')
    for t, y in ((vmax, by + 8), (0.0, by + bh / 2 + 4), (-vmax, by + bh)):
        out.append(f'<text x="{bx + 18:.1f}" y="{y:.1f}" class="lab">{t:+.2f}</text>')
    out.append(f'<text x="{left:.1f}" y="{height - 10:.1f}" class="lab">row run over column run '
               f'(blue: row preferred)</text>')
    out.append("</svg>")
    return "\n".join(out)


def _ticks(lo: float, hi: float, n: int = 4) -> list[float]:
    """About ``n`` round tick values between ``lo`` and ``hi``."""
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo] if math.isfinite(lo) else []
    raw = (hi - lo) / n
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(s * magnitude for s in (1, 2, 2.5, 5, 10) if s * magnitude >= raw)
    start = math.ceil(lo / step) * step
    return [round(start + k * step, 12) for k in range(int((hi - start) / step + 1e-9) + 1)]


def means_with_ci(stats: pd.DataFrame, measures: Sequence[str], order: Sequence[str],
                  baseline: str | None = None, caption: str = "") -> str:
    """One panel per measure (three per row): each run's mean and 95% confidence interval, the runs in ``order``
    (top to bottom) in every panel. ``stats``: ``measure, run, mean, half, queries``
    (:func:`prefeval.pipeline.aggregate_step.means_ci`). An undefined interval (``half`` NaN) gets no bar, and its
    tooltip says why (:func:`prefeval.report.text.interval_text`)."""
    stats = stats.set_index(["measure", "run"])
    cols = max(1, min(len(measures), 3))
    rows = math.ceil(len(measures) / cols) if measures else 0
    label = max((_text_width(r) for r in order), default=0) + 10
    pw, row_h = 300.0, 18.0
    ph = 46 + row_h * len(order)
    width, height = cols * pw + 10, rows * ph + 10
    out = [f'<svg class="means" role="img" viewBox="0 0 {width:.0f} {height:.0f}" '
           f'width="{width:.0f}" height="{height:.0f}" aria-labelledby="means-t means-d">',
           '<title id="means-t">Per-run means with 95% confidence intervals</title>',
           f'<desc id="means-d">{escape(caption)}</desc>']
    for k, measure in enumerate(measures):
        ox, oy = (k % cols) * pw + 5, (k // cols) * ph + 5
        part = stats.loc[measure].reindex(list(order)) if measure in stats.index.get_level_values(0) else None
        if part is None:
            continue
        means = part["mean"].to_numpy(dtype=float)
        ends = np.concatenate([means, (part["mean"] - part["half"]).to_numpy(dtype=float),
                               (part["mean"] + part["half"]).to_numpy(dtype=float)])
        finite = ends[np.isfinite(ends)]  # the means too: a mean without an interval is still drawn
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        if hi - lo < 1e-12:
            lo, hi = lo - 0.5, hi + 0.5
        pad = 0.05 * (hi - lo)
        lo, hi = lo - pad, hi + pad
        x0, x1 = ox + label, ox + pw - 12

        def sx(v: float, x0: float = x0, x1: float = x1, lo: float = lo, hi: float = hi) -> float:
            return x0 + (v - lo) / (hi - lo) * (x1 - x0)

        out.append(f'<text x="{(x0 + x1) / 2:.1f}" y="{oy + 14:.1f}" text-anchor="middle" class="ttl">'
                   f'{escape(measure)}</text>')
        base = oy + 26 + row_h * len(order)
        for t in _ticks(lo, hi):
            out.append(f'<line x1="{sx(t):.1f}" x2="{sx(t):.1f}" y1="{oy + 22:.1f}" y2="{base:.1f}" class="grid"/>')
            out.append(f'<text x="{sx(t):.1f}" y="{base + 13:.1f}" text-anchor="middle" class="lab">{t:g}</text>')
        for i, run in enumerate(order):
            y = oy + 26 + row_h * (i + 0.5)
            mean, half, n = part.loc[run, "mean"], part.loc[run, "half"], part.loc[run, "queries"]
            if k % cols == 0:
                out.append(f'<text x="{x0 - 6:.1f}" y="{y + 4:.1f}" text-anchor="end" class="lab">{escape(run)}</text>')
            if not math.isfinite(mean):
                continue
            colour = _BASELINE if run == baseline else _RUN
            tip = (f"{run}, {measure}: mean {_num(mean)}, {interval_text(mean - half, mean + half, int(n))} "
                   f"({plural(int(n), 'query', 'queries')})")
            bar = (f'<line x1="{sx(mean - half):.1f}" x2="{sx(mean + half):.1f}" y1="{y:.1f}" y2="{y:.1f}" '
                   'class="ci"/>' if math.isfinite(half) else "")  # undefined: no bar, never a zero-width one
            out.append(f'<g data-run="{_attr(run)}" data-measure="{_attr(measure)}" data-mean="{float(mean)!r}">'
                       f'<title>{escape(tip)}</title>{bar}'
                       f'<circle cx="{sx(mean):.1f}" cy="{y:.1f}" r="4" fill="{colour}"/></g>')
    out.append("</svg>")
    return "\n".join(out)


def histogram(values: np.ndarray, title: str, bound: float | None = None) -> str:
    """Histogram of per-query values in :data:`HISTOGRAM_BINS` bins over ``[-bound, bound]`` (default: the
    largest |value|), the middle bin centred on 0; positive bars blue, negative red, the middle bin grey. The
    page's script draws the same histogram for another choice (``drawHistogram`` in report.html)."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    m = bound if bound else (float(np.abs(values).max()) if values.size else 1.0)
    m = m if m > 0 else 1.0
    width = 2 * m / HISTOGRAM_BINS
    index = np.clip(np.floor((values + m) / width), 0, HISTOGRAM_BINS - 1).astype(int)
    counts = np.bincount(index, minlength=HISTOGRAM_BINS)
    W, H, left, bottom, top = 560.0, 220.0, 44.0, 30.0, 12.0
    top_count = max(int(counts.max()) if counts.size else 1, 1)
    bw = (W - left - 10) / HISTOGRAM_BINS
    out = [f'<svg class="hist" role="img" viewBox="0 0 {W:.0f} {H:.0f}" '
           f'width="{W:.0f}" height="{H:.0f}"><title>{escape(title)}</title>']
    for k, count in enumerate(counts):
        h = (H - bottom - top) * count / top_count
        mid = k - HISTOGRAM_BINS // 2
        colour = "#999999" if mid == 0 else (_RUN if mid > 0 else _BASELINE)
        lo = -m + k * width
        out.append(f'<rect x="{left + k * bw + 1:.1f}" y="{H - bottom - h:.1f}" width="{bw - 2:.1f}" height="{h:.1f}" '
                   f'fill="{colour}"><title>{int(count)} queries in [{lo:.3g}, {lo + width:.3g}'
                   f'{"]" if k == HISTOGRAM_BINS - 1 else ")"}</title></rect>')  # the last bin holds its upper end
    out.append(f'<line x1="{left:.1f}" x2="{W - 10:.1f}" y1="{H - bottom:.1f}" y2="{H - bottom:.1f}" class="axis"/>')
    for v, anchor in ((-m, "start"), (0.0, "middle"), (m, "end")):
        x = left + (v + m) / (2 * m) * (W - left - 10)
        out.append(f'<text x="{x:.1f}" y="{H - bottom + 14:.1f}" text-anchor="{anchor}" class="lab">'
                   f'{"0" if v == 0 else format(v, "+.3g")}</text>')
    out.append(f'<text x="{left - 6:.1f}" y="{top + 8:.1f}" text-anchor="end" class="lab">{top_count}</text>')
    out.append(f'<text x="{left - 6:.1f}" y="{H - bottom:.1f}" text-anchor="end" class="lab">0</text>')
    out.append("</svg>")
    return "\n".join(out)
