"""``Ids.get_indexer``: Arrow's ``index_in`` for many strings gives the positions of the definition (a dict lookup),
for every form of the values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval.data.encoding import _ARROW_LOOKUP, Ids

ID = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=4)


@settings(max_examples=30, deadline=None)
@given(ids=st.lists(ID, min_size=1, max_size=40, unique=True), values=st.lists(ID, min_size=1, max_size=40))
def test_positions_as_the_definition(ids: list[str], values: list[str]) -> None:
    values = (values * (_ARROW_LOOKUP // len(values) + 1))[:_ARROW_LOOKUP + 3]  # long enough for Arrow
    table = Ids(ids)
    expected = np.array([ids.index(v) if v in ids else -1 for v in values])
    for form in (values, np.array(values, dtype=object), pd.Series(values), pa.array(values),
                 pa.array(values, pa.large_string()), pa.chunked_array([values[:7], values[7:]])):
        found = table.get_indexer(form)
        assert found.dtype == np.intp and found.tolist() == expected.tolist(), type(form)
    assert table.get_indexer(values[:5]).tolist() == expected[:5].tolist()  # few values: the dict


def test_values_that_are_not_strings_are_absent() -> None:
    table = Ids(["1", "2"])
    assert table.get_indexer([1, 2] * _ARROW_LOOKUP).tolist() == [-1] * (2 * _ARROW_LOOKUP)
    assert Ids([1, 2]).get_indexer([2, 3] * _ARROW_LOOKUP)[:2].tolist() == [1, -1]
