import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from prefeval.core.arrays import sorted_unique


@given(hnp.arrays(np.int64, st.integers(0, 40), elements=st.integers(-5, 5)))
def test_sorted_unique_is_np_unique_on_integers(values):
    got = sorted_unique(values)
    assert got.dtype == values.dtype
    np.testing.assert_array_equal(got, np.unique(values))


@given(st.lists(st.text(alphabet="ab1", max_size=3), max_size=30))
def test_sorted_unique_is_np_unique_on_strings(values):
    array = np.array(values, dtype=str)
    np.testing.assert_array_equal(sorted_unique(array), np.unique(array))


def test_sorted_unique_accepts_lists_and_floats():
    np.testing.assert_array_equal(sorted_unique([3.0, -0.0, 0.0, 1.5, 3.0]), [-0.0, 1.5, 3.0])


def test_stretch_starts_are_where_values_change():
    from prefeval.core.arrays import stretch_starts

    rng = np.random.default_rng(0)
    for values in (np.zeros(0, dtype=np.int64), np.array([5]), rng.integers(0, 3, 200), np.array(["a", "a", "b", "a"])):
        expected = [i for i in range(len(values)) if i == 0 or values[i] != values[i - 1]]
        assert stretch_starts(values).tolist() == expected


@given(hnp.arrays(st.sampled_from([np.int32, np.int64]), st.integers(0, 60), elements=st.integers(0, 6)),
       st.integers(0, 9))
def test_stretch_counts_are_bincount(codes, size):
    from prefeval.core.arrays import stretch_counts

    grouped = np.sort(codes)  # (the case it is for) and the codes in any order: the same counts
    for values in (codes, grouped):
        got = stretch_counts(values, size)
        assert got.dtype == np.intp
        np.testing.assert_array_equal(got, np.bincount(values, minlength=size))
