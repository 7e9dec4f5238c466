"""``prefeval.utf8``: ids held as UTF-8 bytes must behave as the Python strings they encode -- the same equality,
Python's string order (code point order), ``pandas.factorize``'s codes -- for ids of any length (the 8-byte integer
keys and the bytes themselves), ASCII or not."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from prefeval import utf8
from prefeval.utf8 import Utf8Column

# ids: no NUL (numpy strips trailing NULs); short and long, shared prefixes, non-ASCII
ALPHABET = st.sampled_from(list("ab\x01~") + ["é", "ß", "中", "😀", "\x7f", " "])
IDS = st.lists(st.text(ALPHABET, min_size=0, max_size=11), min_size=0, max_size=40)


@settings(max_examples=80, deadline=None)
@given(IDS)
def test_factorize_is_pandas_factorize(values: list[str]) -> None:
    codes, uniques = utf8.factorize(Utf8Column.from_strings(values))
    expected_codes, expected_uniques = pd.factorize(np.array(values, dtype=object))
    np.testing.assert_array_equal(codes, expected_codes)
    assert uniques.tolist() == list(expected_uniques)


@settings(max_examples=80, deadline=None)
@given(IDS)
def test_string_ranks_follow_python_string_order(values: list[str]) -> None:
    order = sorted(set(values))
    assert utf8.string_ranks(Utf8Column.from_strings(values)).tolist() == [order.index(v) for v in values]


@settings(max_examples=80, deadline=None)
@given(IDS, IDS)
def test_index_in(values: list[str], known: list[str]) -> None:
    distinct = list(dict.fromkeys(known))
    found = utf8.index_in(Utf8Column.from_strings(values), Utf8Column.from_strings(distinct))
    assert found.tolist() == [distinct.index(v) if v in distinct else -1 for v in values]


@settings(max_examples=100, deadline=None)
@given(IDS)
def test_stretches_and_python_values(values: list[str]) -> None:
    column = Utf8Column.from_strings(values)
    starts, firsts = utf8.stretches(column)
    expected = [i for i in range(len(values)) if i == 0 or values[i] != values[i - 1]]
    assert starts.tolist() == expected
    assert Utf8Column(firsts).tolist() == [values[i] for i in expected]
    assert np.asarray(column).tolist() == values == column.tolist() == list(column)
    assert np.asarray(column).dtype == object
    if values:
        assert column[len(values) - 1] == values[-1]
        assert column[1:].tolist() == values[1:]
        assert column.take(np.array([0, 0])).tolist() == [values[0]] * 2


def test_keys_of_short_ids_sort_as_bytes() -> None:
    """8 bytes or fewer: big-endian integer keys, NUL-padded -- a prefix sorts before its extensions."""
    values = ["", "a", "a\x01", "ab", "b", "\x7f", "é", "abcdefgh", "abcdefg"]
    keys = utf8.sort_keys(Utf8Column.from_strings(values).data)
    assert keys.dtype == np.uint64
    assert [values[i] for i in np.argsort(keys, kind="stable")] == sorted(values)
    long = Utf8Column.from_strings(values + ["abcdefghi"]).data
    assert utf8.sort_keys(long) is long  # longer ids sort as bytes


def test_concat_widens() -> None:
    joined = utf8.concat([Utf8Column.from_strings(["a", "b"]), Utf8Column.from_strings(["longer-id-é"])])
    assert joined.tolist() == ["a", "b", "longer-id-é"]
    assert utf8.concat([]).tolist() == []
