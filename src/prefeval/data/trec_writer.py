"""Writing TREC run and qrels files that :mod:`prefeval.data.trec` (and ``trec_eval``) read back as written.

* :func:`write_run` -- ``query_id Q0 doc_id rank score tag``, per query in trec_eval's ranking order (score
  descending, ties by doc_id descending) with ranks 1..n, scores in full precision;
* :func:`write_qrels` -- ``query_id iteration doc_id relevance`` (``iteration``: the subtopic id of diversity qrels).

A field that is empty or holds whitespace, a score that is not a number and a grade that is not an integer are a
:class:`~prefeval.errors.PrefevalError` naming the value, before anything is written. A name ending in ``.gz`` is
written gzip-compressed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from prefeval.core.lazy import lazy_module
from prefeval.errors import PrefevalError

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")


def _cell(series: pd.Series, row: int) -> Any:
    """A cell as a plain Python value (for messages)."""
    value = series.iloc[row]
    return value.item() if hasattr(value, "item") else value


def _check_columns(df: pd.DataFrame, required: list[str], kind: str) -> None:
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise PrefevalError(f"{kind} DataFrame lacks column(s) {missing}; it has {list(df.columns)}")


def _check_tokens(values: pd.Series, column: str, kind: str) -> None:
    """Fields of a TREC file must be non-empty and free of whitespace."""
    text = values.astype(str)
    bad = text.str.contains(r"\s", regex=True) | (text == "")
    if bad.any():
        value = text[bad].iloc[0]
        raise PrefevalError(f"cannot write {kind}: {column} {value!r} is empty or contains whitespace")


def _write_text(target: str | os.PathLike | IO[str], frame: pd.DataFrame) -> None:
    if hasattr(target, "write"):
        frame.to_csv(target, sep=" ", header=False, index=False, lineterminator="\n")
        return
    path = Path(os.fspath(target))  # type: ignore[arg-type]
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, sep=" ", header=False, index=False, lineterminator="\n",
                 compression="gzip" if path.suffix == ".gz" else None)


def write_run(df: pd.DataFrame, target: str | os.PathLike | IO[str], tag: str = "prefeval") -> None:
    """Write a run as a TREC 6-field file (gzip when the name ends in ``.gz``).

    Rows are written per query (queries in string order) in ranking order -- score descending,
    ties by doc_id descending (trec_eval) -- with ranks 1..n, so the rank column agrees with the
    order any TREC tool derives from the scores. ``tag`` is used unless ``df`` has a ``tag``
    column. Scores are written with full precision (``repr``), so ``read_run`` round-trips them.
    """
    _check_columns(df, ["query_id", "doc_id", "score"], "run")
    scores = pd.to_numeric(df["score"], errors="coerce").astype("float64")
    if scores.isna().any():
        row = int(np.flatnonzero(scores.isna().to_numpy())[0])
        raise PrefevalError(f"cannot write run: score {_cell(df['score'], row)!r} of query "
                            f"{_cell(df['query_id'], row)!r}, doc {_cell(df['doc_id'], row)!r} is not a number")
    frame = pd.DataFrame({"query_id": df["query_id"].astype(str).to_numpy(),
                          "doc_id": df["doc_id"].astype(str).to_numpy(), "score": scores.to_numpy()})
    frame["tag"] = df["tag"].astype(str).to_numpy() if "tag" in df.columns else tag
    for column in ("query_id", "doc_id", "tag"):
        _check_tokens(frame[column], column, "run")
    frame = frame.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False], kind="stable")
    rank = frame.groupby("query_id", sort=False).cumcount() + 1
    out = pd.DataFrame({"query_id": frame["query_id"], "Q0": "Q0", "doc_id": frame["doc_id"], "rank": rank,
                        "score": frame["score"].map(repr), "tag": frame["tag"]})
    _write_text(target, out)


def write_qrels(df: pd.DataFrame, target: str | os.PathLike | IO[str]) -> None:
    """Write qrels as a TREC 4-field file ``query_id iteration doc_id relevance`` (gzip for ``.gz``).

    ``iteration`` (the subtopic id of diversity qrels) is written as given, ``0`` when absent.
    Rows keep their order.
    """
    _check_columns(df, ["query_id", "doc_id", "relevance"], "qrels")
    grades = pd.to_numeric(df["relevance"], errors="coerce")
    bad = grades.isna() | (grades != np.round(grades))
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise PrefevalError(f"cannot write qrels: relevance {_cell(df['relevance'], row)!r} of query "
                            f"{_cell(df['query_id'], row)!r}, doc {_cell(df['doc_id'], row)!r} is not an integer")
    iteration = df["iteration"].astype(str).to_numpy() if "iteration" in df.columns else "0"
    out = pd.DataFrame({"query_id": df["query_id"].astype(str).to_numpy(), "iteration": iteration,
                        "doc_id": df["doc_id"].astype(str).to_numpy(), "relevance": grades.astype("int64").to_numpy()})
    for column in ("query_id", "iteration", "doc_id"):
        _check_tokens(out[column], column, "qrels")
    _write_text(target, out)
