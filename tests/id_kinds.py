"""Runs and qrels with their ids held as :class:`prefeval.utf8.Utf8Column` (as the TREC reader gives them without
pyarrow), for tests that check each kind of id column ranks alike."""

from __future__ import annotations

import pandas as pd

from prefeval.io import Columns
from prefeval.utf8 import Utf8Column

ID_COLUMNS = ("query_id", "doc_id", "iteration")


def utf8_columns(frame: pd.DataFrame) -> Columns:
    """The frame's columns, string id columns as :class:`~prefeval.utf8.Utf8Column`, the others as numpy arrays."""
    return Columns({name: Utf8Column.from_strings([str(v) for v in frame[name]]) if name in ID_COLUMNS
                    else frame[name].to_numpy() for name in frame.columns})
