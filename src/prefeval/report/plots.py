"""PNG plots for pipeline reports (matplotlib with the non-interactive Agg backend; the ``plot`` extra).

* :func:`preference_heatmap`: the mean-preference matrix of one method (row run over column run), runs in
  the method's ranking order, a diverging colour scale symmetric around 0.
* :func:`means_with_ci`: per-run means of each measure with 95% confidence intervals (the pipeline's
  :func:`prefeval.pipeline.aggregate_step.means_ci`), one panel per measure, the runs in one order in every panel.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["available", "is_figure", "preference_heatmap", "means_with_ci", "save_figure"]


def available() -> bool:
    """True when matplotlib can be imported."""
    try:
        # deferred: matplotlib is optional (the plot extra)
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def is_figure(value: Any) -> bool:
    """True for a matplotlib figure (checked without importing matplotlib)."""
    return type(value).__name__ == "Figure" and hasattr(value, "savefig")


def _pyplot() -> Any:
    # deferred: matplotlib is optional (the plot extra)
    import matplotlib

    matplotlib.use("Agg", force=True)
    # deferred: matplotlib is optional (the plot extra)
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: Path) -> Path:
    """Save a matplotlib figure as PNG and close it."""
    fig.savefig(path, dpi=110)
    _pyplot().close(fig)
    return path


def preference_heatmap(matrix: pd.DataFrame, order: list[str], method: str, path: Path) -> Path:
    """Heatmap of ``matrix`` (row over column) with rows and columns in ``order``."""
    plt = _pyplot()
    M = matrix.reindex(index=order, columns=order).to_numpy(dtype=float)
    S = len(order)
    vmax = float(np.nanmax(np.abs(M))) if M.size and np.isfinite(M).any() else 1.0
    vmax = vmax if vmax > 0 else 1.0
    size = min(4 + 0.45 * S, 16)
    fig, ax = plt.subplots(figsize=(size + 1.5, size))
    fig.subplots_adjust(left=0.15, bottom=0.15, right=0.98, top=0.94)
    image = ax.imshow(M, cmap="RdBu", vmin=-vmax, vmax=vmax)
    ax.set_xticks(range(S), order, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(S), order, fontsize=8)
    ax.set_xlabel("column run")
    ax.set_ylabel("row run (preferred when positive)")
    ax.set_title(f"{method}: mean preference, row over column")
    if S <= 15:
        for i in range(S):
            for j in range(S):
                if i != j and np.isfinite(M[i, j]):
                    ax.text(j, i, f"{M[i, j]:+.2f}", ha="center", va="center", fontsize=7,
                            color="white" if abs(M[i, j]) > 0.6 * vmax else "black")
    fig.colorbar(image, ax=ax, shrink=0.8, label="mean per-query preference")
    return save_figure(fig, path)


def means_with_ci(means_ci: pd.DataFrame, measures: list[str], runs: list[str], path: Path,
                  baseline: str | None = None, order: list[str] | None = None) -> Path:
    """One panel per measure: each run's mean with its 95% CI (``means_ci``: ``measure, run, mean, half``); the
    runs in ``order`` (best first, drawn at the top; default ``runs``) in every panel, so a run's position can be
    compared across panels. An undefined interval (``half`` NaN: fewer than two queries, or values that do not
    vary) gets no error bar; the report's caption names it."""
    plt = _pyplot()
    order = list(order or runs)
    stats = means_ci.set_index(["measure", "run"])
    n = len(measures)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.8 * cols, 0.3 * len(runs) * rows + 1.5 * rows), squeeze=False)
    y = np.arange(len(order))[::-1]  # the first run at the top
    colours = ["tab:red" if r == baseline else "tab:blue" for r in order]
    for k, measure in enumerate(measures):
        ax = axes[k // cols][k % cols]
        part = stats.loc[measure].reindex(order)
        defined = np.isfinite(part["half"].to_numpy(dtype=float))  # undefined: no bar, never a zero-width one
        if defined.any():
            ax.errorbar(part["mean"][defined], y[defined], xerr=part["half"][defined], fmt="none", ecolor="0.4",
                        capsize=3)
        ax.scatter(part["mean"], y, c=colours, zorder=3)
        ax.set_yticks(y, order, fontsize=8)
        ax.set_title(measure)
        ax.set_xlabel("mean (95% CI)")
        ax.grid(axis="x", alpha=0.3)
    for k in range(n, rows * cols):
        axes[k // cols][k % cols].axis("off")
    title = "Per-run means with 95% confidence intervals" + (f" (baseline {baseline} in red)" if baseline else "")
    fig.suptitle(textwrap.fill(title, width=int(10 * 4.8 * cols)))  # about 10 characters an inch: one panel wraps
    fig.tight_layout()
    return save_figure(fig, path)
