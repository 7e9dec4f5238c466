"""Coerce what users pass as qrels or runs into prefeval's canonical DataFrames.

Qrels: an ir_datasets id (also ``irds:ID``), a TREC qrels path (plain or ``.gz``), a DataFrame,
a dict of dicts ``{query_id: {doc_id: grade}}``, a ranx ``Qrels``, or an iterable of ir-measures ``Qrel`` /
ir_datasets qrels records (``TrecSubQrel.subtopic_id`` becomes ``iteration``).
Runs: a TREC run path, a DataFrame, a dict of dicts ``{query_id: {doc_id: score}}``, a ranx ``Run`` or an
iterable of ``ScoredDoc``-like records.

DataFrame columns may follow ir-measures (``query_id, doc_id, relevance / score``), PyTerrier
(``qid, docno, label / score``) or ranx (``q_id, doc_id, score``); where a frame has both a canonical column
and an alias (a PyTerrier result that passes ``query_id`` through), the canonical column is used.

Canonical columns: qrels ``query_id, doc_id, relevance, iteration``; runs ``query_id, doc_id, score``
(ids as ``str``, relevance ``int``, score ``float``). Ids and grades follow the rules of :mod:`prefeval.data.trec` whatever
the form they come in (non-empty ids without control characters or whitespace; integer grades from -1000 to 1000),
checked here before any measure or provider sees them: a bad one is an error naming the run or qrels, the id and its
query. Conflicting qrels lines (one query, document and
subtopic judged twice with different grades) are resolved once, for every measure: the last line wins, as in
the dictionaries that trec_eval's Python binding and ir-measures build (one warning names the first conflict).
The semantics of rankings built from runs (ties, repeated documents) are in :mod:`prefeval.data.ranking`.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Mapping
from itertools import chain, compress, groupby
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from prefeval.core.lazy import is_pandas, lazy_module
from prefeval.data.encoding import Ids, factorize, id_array, string_dtype
from prefeval.data.ranking import EncodedRun, pair_codes
from prefeval.data.trec import (
    MAX_GRADE,
    MIN_GRADE,
    Columns,
    _to_pandas,
    check_ids,
    first_bad_id,
    grade_value,
    read_qrels,
    read_qrels_columns,
    read_run,
    read_run_columns,
)
from prefeval.errors import PrefevalError

if TYPE_CHECKING:
    import pandas as pd
else:
    pd = lazy_module("pandas")
_datasets = lazy_module("prefeval.data.datasets")  # ir_datasets' benchmarks: loads (with ir_datasets) on the first id

QRELS_COLUMNS = ["query_id", "doc_id", "relevance", "iteration"]
RUN_COLUMNS = ["query_id", "doc_id", "score"]
#: Suffixes of run files (before an optional ``.gz``): the files a folder of runs contributes.
RUN_FILE_SUFFIXES = (".run", ".runs", ".trec", ".res", ".txt")
#: Suffixes stripped from a run file's name to name the run (:func:`run_name`): the above and ``.tsv``.
_RUN_NAME_SUFFIXES = re.compile("(" + "|".join(re.escape(s) for s in (*RUN_FILE_SUFFIXES, ".tsv")) + ")+$",
                                re.IGNORECASE)


def _is_pathlike(obj: Any) -> bool:
    return isinstance(obj, (str, os.PathLike))


def qrels_frame(qrels: Any) -> pd.DataFrame:
    """Return ``qrels`` as a canonical DataFrame (see module docstring), conflicting lines resolved (a dict of
    dicts has none: one grade per query and document)."""
    frame = _qrels_frame(qrels)
    return frame if isinstance(qrels, Mapping) else resolve_conflicts(frame)


def qrels_table(qrels: Any) -> pd.DataFrame | Columns:
    """:func:`qrels_frame`, except that a TREC file is read into :class:`~prefeval.data.trec.Columns`
    (:func:`~prefeval.data.trec.read_qrels_columns`: no pandas) and columns are taken as they are."""
    return resolve_conflicts(_qrels_frame(qrels, columns=True))


def path_exists(path: str, what: str) -> bool:
    """Whether ``path`` exists; a path that cannot be looked at (a folder on it without search permission) is a
    :class:`PrefevalError` saying so, not "no such file" (then the text would be taken for a dataset id)."""
    try:
        os.stat(path)
        return True
    except PermissionError:
        folder = next((str(f) for f in reversed(Path(path).absolute().parents)
                       if os.path.isdir(f) and not os.access(f, os.X_OK)), None)
        where = f": folder {folder!r} cannot be opened" if folder else ""
        raise PrefevalError(f"cannot read {what} {path!r}: permission denied{where}") from None
    except (OSError, ValueError):  # no such file, a name too long for a path, a NUL byte: not a file
        return False


def _qrels_frame(qrels: Any, columns: bool = False) -> pd.DataFrame | Columns:
    if is_pandas(qrels, "DataFrame"):
        return canonical_qrels(qrels, "qrels DataFrame")
    if isinstance(qrels, Columns):
        return qrels if columns else qrels.frame()
    if _is_pathlike(qrels):
        text = str(qrels)
        if not text.startswith("irds:") and path_exists(text, "qrels"):
            return read_qrels_columns(text) if columns else read_qrels(text)
        return _datasets.load(text).qrels
    if _is_ranx(qrels):
        qrels = qrels.to_dict()
    if isinstance(qrels, Mapping):
        return canonical_qrels(_nested_frame(qrels, "relevance", "qrels dict"), "qrels dict")
    if isinstance(qrels, Iterable):
        return canonical_qrels(_records_frame(qrels, "qrels"), "qrels records")
    raise PrefevalError(f"cannot use {type(qrels).__name__} as qrels: give a path, an ir_datasets id, "
                        "a DataFrame, a dict of dicts, a ranx Qrels or Qrel records")


def resolve_conflicts(qrels: pd.DataFrame | Columns) -> pd.DataFrame | Columns:
    """``qrels`` with one line per (query, document, subtopic): where lines repeat, the last one wins (as in the
    dictionaries pytrec_eval and ir-measures build), with one warning naming the first conflicting judgment and
    the number of repeated lines. :class:`~prefeval.data.trec.Columns` without repeated lines are returned as they are
    (checked on integer codes, without pandas); with some, as a resolved DataFrame."""
    if not _has_repeats(qrels):
        return qrels
    if isinstance(qrels, Columns):
        qrels = qrels.frame()
    key = ["query_id", "doc_id", "iteration"]
    repeated = qrels.duplicated(key, keep="last")
    if not repeated.any():
        return qrels
    first = qrels[repeated].iloc[0]
    same = (qrels["query_id"] == first["query_id"]) & (qrels["doc_id"] == first["doc_id"]) & \
        (qrels["iteration"] == first["iteration"])
    grades = qrels.loc[same, "relevance"].tolist()
    subtopic = "" if first["iteration"] in ("0", "Q0", "") else f", subtopic {first['iteration']}"
    conflicting = int(repeated.sum())
    warnings.warn(f"qrels: {conflicting} repeated judgment(s) of the same query, document and subtopic; the last "
                  f"line wins (e.g. query {first['query_id']}, document {first['doc_id']}{subtopic}: grades "
                  f"{' then '.join(map(str, grades))}, kept {grades[-1]})", stacklevel=3)
    return qrels[~repeated].reset_index(drop=True)


def _has_repeats(qrels: pd.DataFrame | Columns) -> bool:
    """Whether some (query, document, subtopic) occurs on more than one line of the qrels: none when no (query,
    document) repeats (:func:`~prefeval.data.ranking.pair_codes` knows it of qrels grouped by query), else one sort of
    integer keys from the codes of the three columns, on the lines whose document code occurs more than once."""
    query, doc, distinct = pair_codes(qrels["query_id"], qrels["doc_id"])
    if distinct:
        return False
    rows = np.flatnonzero(np.bincount(doc + 1)[doc + 1] > 1) if len(doc) else np.zeros(0, dtype=np.intp)
    if not len(rows):
        return False
    key = np.zeros(len(rows), dtype=np.int64)
    for codes in (query[rows], doc[rows], factorize(qrels["iteration"])[0][rows]):
        key = key * (int(codes.max()) + 2) + (codes + 1)
    key.sort()
    return bool(np.any(key[1:] == key[:-1]))


def _is_ranx(obj: Any) -> bool:
    """A ranx ``Qrels`` or ``Run`` (converted through its ``to_dict()``)."""
    return type(obj).__module__.split(".", 1)[0] == "ranx" and hasattr(obj, "to_dict")


def run_frame(run: Any, name: str | None = None, columns: bool = False) -> pd.DataFrame | Columns:
    """Return ``run`` as a canonical DataFrame; NaN or non-numeric scores are an error naming the query. With
    ``columns``, a TREC file is read into :class:`~prefeval.data.trec.Columns` (:func:`~prefeval.data.trec.read_run_columns`: no
    pandas), and columns are taken as they are, as is a run encoded as codes already
    (:class:`~prefeval.data.ranking.EncodedRun`, e.g. ranked once for several readings by :mod:`prefeval.engine.holes`)."""
    label = name or "run"
    if columns and isinstance(run, EncodedRun):
        return run
    if isinstance(run, Columns):
        return run if columns else run.frame()
    if is_pandas(run, "DataFrame"):
        run = _standard_columns(run, RUN_COLUMNS, f"run {label!r} (DataFrame)")
        canonical = _canonical_columns(run)
        if canonical is not None:  # with ``columns``: the frame's columns (no frame built, no column looked up again)
            check_run_ids(canonical["query_id"], canonical["doc_id"], f"run {label!r} (DataFrame)")
            return Columns(canonical) if columns else run if list(run.columns) == RUN_COLUMNS else run[RUN_COLUMNS]
        return _canonical_run(run, f"{label} (DataFrame)")
    if _is_pathlike(run):
        return read_run_columns(run) if columns else read_run(run)
    if _is_ranx(run):
        run = run.to_dict()
    if isinstance(run, Iterable):  # a dict of dicts or records
        dict_of_dicts = isinstance(run, Mapping)
        frame = _nested_frame(run, "score", f"run {label!r} (dict)") if dict_of_dicts else _records_frame(run, label)
        if _is_canonical_run(frame):  # string ids and float scores already: no second conversion
            check_run_ids(frame["query_id"], frame["doc_id"], f"run {label!r} ({'dict' if dict_of_dicts else 'records'})")
            return frame if list(frame.columns) == RUN_COLUMNS else frame[RUN_COLUMNS]
        return _canonical_run(frame, f"{label} ({'dict' if dict_of_dicts else 'records'})")
    raise PrefevalError(f"cannot use {type(run).__name__} as a run: give a path, a DataFrame, "
                        "a dict of dicts, a ranx Run or ScoredDoc records")


def encoded_run(run: Any) -> EncodedRun | None:
    """A run given as a dict of dicts (``{query_id: {doc_id: score}}``, or a ranx ``Run``) as an
    :class:`~prefeval.data.ranking.EncodedRun` on the queries it ranks documents for, in the dict's order: the codes of
    :func:`nested_codes`, without a frame and without hashing the document ids. :func:`~prefeval.data.ranking.rank_run`
    ranks it as it ranks ``run_frame(run)``. None where this reading could differ from :func:`run_frame`'s (other
    inputs, ids that are not all ``str`` or break the rules, scores that are not numbers): :func:`run_frame` then reads
    the run, or reports its error."""
    if _is_ranx(run):
        run = run.to_dict()
    if not isinstance(run, Mapping) or not all(type(inner) in _PLAIN_DICTS for inner in run.values()):
        return None
    queries = Ids([str(query) for query, inner in run.items() if inner])  # (nested_codes refuses a missing key)
    codes = nested_codes(run, queries)
    if codes is None:
        return None
    query_codes, doc_codes, doc_names, scores = codes
    return EncodedRun(queries, query_codes, doc_names, doc_codes, scores)


def run_name(path: str | os.PathLike) -> str:
    """Name of a run file: its file name without ``.gz`` and run suffixes (``bm25.run.gz`` -> ``bm25``)."""
    name = Path(path).name
    if name.endswith(".gz"):
        name = name[:-3]
    return _RUN_NAME_SUFFIXES.sub("", name) or name


def list_run_name(run: Any) -> str:
    """The name of a run given in a list: a file's name (:func:`run_name`), or the ``name`` a ranx ``Run``
    carries; other data has no name (a dict name -> run gives one)."""
    if _is_pathlike(run):
        return run_name(run)
    if _is_ranx(run):
        name = getattr(run, "name", None)
        if not isinstance(name, str) or not name:
            raise PrefevalError("a ranx Run in a list of runs needs its name (ranx.Run(..., name='bm25')); or pass a "
                                "dict name -> run")
        return name
    raise PrefevalError("a list of runs must hold file paths or named ranx Runs; use a dict name -> run for data")


def runs_dict(runs: Any, columns: bool = False, encoded: bool = False) -> dict[str, Any]:
    """Coerce ``runs`` (a mapping name -> run, or a list of run paths or named ranx Runs) to ``{name: canonical
    run}``. With
    ``columns``, run files are not read yet: their paths are kept, for :func:`run_frame` (``columns=True``) to read
    each into :class:`~prefeval.data.trec.Columns` when it is needed (one run in memory at a time). ``encoded`` (for
    callers that only rank the runs, with ``columns``): a dict of dicts becomes the
    :class:`~prefeval.data.ranking.EncodedRun` of :func:`encoded_run` where that gives one (no frame built)."""
    if isinstance(runs, Mapping):
        items = [(str(name), run) for name, run in runs.items()]
    elif _is_pathlike(runs):
        items = [(run_name(runs), runs)]
    elif isinstance(runs, Iterable):
        items = [(list_run_name(run), run) for run in runs]
    else:
        raise PrefevalError(f"cannot use {type(runs).__name__} as runs: give a dict name -> run or a list of paths")
    names = [name for name, _ in items]
    duplicated = sorted(n for n, count in Counter(names).items() if count > 1)
    if duplicated:
        raise PrefevalError(f"several runs are named {', '.join(duplicated)}; pass a dict with distinct names")
    converted: dict[int, Any] = {}  # one conversion per object given under several names
    for name, run in items:
        if id(run) not in converted:
            coded = encoded_run(run) if columns and encoded else None
            converted[id(run)] = run if columns and _is_pathlike(run) else coded if coded is not None else \
                run_frame(run, name, columns)
    return {name: converted[id(run)] for name, run in items}


def _encodable(ids: list, what: str) -> None:
    """Raise the error of :func:`prefeval.data.trec.check_ids` for a ``str`` id that is not UTF-8 (a lone surrogate, which
    no column of strings can hold)."""
    try:
        joined = "".join(ids)  # in C; ids that are not all str are rare (converted by str() later)
    except TypeError:
        joined = "".join(v for v in ids if isinstance(v, str))
    if joined.isascii():
        return
    strings = [v for v in ids if isinstance(v, str)]
    try:
        joined.encode("utf-8")
    except UnicodeEncodeError:
        check_ids(strings, what)


def _records_frame(records: Iterable, label: str) -> pd.DataFrame:
    """The records (namedtuples or mappings) as a frame, one column per field, each field's values typed as pandas
    infers them from the records (all ``str``: the string dtype of canonical frames). One pass over the records
    (a generator is read once); namedtuples of one type are read by position into one list per field."""
    rows = records if isinstance(records, list) else list(records)
    if not rows:
        return pd.DataFrame()
    for field in ("query_id", "doc_id"):
        _encodable([getattr(r, field, None) if not isinstance(r, Mapping) else r.get(field) for r in rows],
                   f"{label}: {field}")
    first = rows[0]
    if hasattr(first, "_asdict"):
        kind = type(first)
        if len(set(map(type, rows))) == 1:  # one namedtuple type: its fields are the columns (no dicts)
            return pd.DataFrame({field: _column(list(map(itemgetter(i), rows)))
                                 for i, field in enumerate(kind._fields)})
        return pd.DataFrame([r._asdict() for r in rows])
    if isinstance(first, Mapping):
        return pd.DataFrame(rows)
    raise PrefevalError(f"{label}: records must be namedtuples (e.g. ir_measures.Qrel) or mappings, "
                        f"got {type(first).__name__}")


def _nested_frame(nested: Mapping, value: str, what: str = "dict") -> pd.DataFrame:
    """A dict of dicts ``{query_id: {doc_id: value}}`` as a frame ``query_id, doc_id, value``, ids as ``str(id)``
    (in the dicts' order); ``what`` names the dict in the error for an id that is not UTF-8."""
    docs: list = []
    values: list = []
    for inner in nested.values():
        docs.extend(inner.keys())
        values.extend(inner.values())
    lengths = np.fromiter(map(len, nested.values()), dtype=np.intp, count=len(nested))
    _no_missing_key(list(nested.keys()), f"{what}: query_id")
    _no_missing_key(docs, f"{what}: doc_id")
    keys = list(nested.keys()) if docs else []
    _encodable(keys, f"{what}: query_id")
    _encodable(docs, f"{what}: doc_id")
    queries = _text_column(keys).array.take(np.repeat(np.arange(len(keys)), lengths[:len(keys)]))
    return pd.DataFrame({"query_id": queries, "doc_id": _text_column(docs), value: _column(values)})


def _no_missing_key(ids: list, what: str) -> None:
    """Refuse a missing id among a dict's keys (``None``, NaN, ``pd.NA``) as a frame's missing id is refused: ``str()``
    would make it the id ``'None'`` or ``'nan'``."""
    if _all_str(ids):
        return
    pandas = sys.modules.get("pandas")  # pd.NA exists only once pandas is imported
    na = pandas.NA if pandas is not None else None
    for value in ids:
        if value is None or value is na or (isinstance(value, float) and value != value):
            raise PrefevalError(f"{what}: a key is {value!r} (a missing id); ids are non-empty strings")


#: Inner dicts :func:`nested_codes` reads (their keys and values as ``dict`` stores them); other mappings take the frame.
_PLAIN_DICTS = (dict, OrderedDict, defaultdict)


def nested_codes(nested: Any, queries: Ids,
                 depth: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """A run given as a dict of dicts ``{query_id: {doc_id: score}}`` in the integer form
    :func:`prefeval.data.ranking.rank_codes` ranks -- (each row's query code in ``queries``, -1 where absent; each row's
    document code; the document ids; the scores as float64), rows grouped in the order of ``queries`` (then the
    queries not there), in the dicts' order within each query -- read straight from the dicts:
    the values :func:`run_frame` and :func:`prefeval.data.ranking.rank_run` give, without a frame and without hashing the
    document ids (distinct within each query already: each row is its own code).

    ``depth``: keep only the rows of each query whose score is at least its ``depth``-th highest (ties at the cut
    kept): every document ranked above a kept one is kept, so the ranks ``<= depth`` are those of the whole run.

    None where this direct reading could differ from :func:`run_frame`'s (which then reads the run, or reports its
    error): not a dict of dicts (inner mappings other than ``dict``, ``OrderedDict`` and ``defaultdict``), document
    ids that are not all ``str`` (``str()`` could make two ids of one query equal), query keys with equal ``str()``,
    scores that are not all numbers (``str``, ``None``) or NaN, ids that break the rules of :mod:`prefeval.data.trec`."""
    if not isinstance(nested, Mapping):
        return None
    inners = list(nested.values())
    if not all(type(inner) in _PLAIN_DICTS for inner in inners):
        return None
    if not _all_str(list(nested)) and any(query is None or query != query for query in nested):
        return None  # a missing query id: run_frame reports it
    names = [str(query) for query in nested]
    if len(set(names)) < len(names):
        return None
    codes = queries.get_indexer(names).tolist()
    # rows grouped in the order of ``queries`` (as rank_codes groups them), the queries not there last
    order = sorted(range(len(names)), key=lambda i: (codes[i] < 0, codes[i]))
    inners, codes = [inners[i] for i in order], [codes[i] for i in order]
    docs = list(chain.from_iterable([inner.keys() for inner in inners]))  # keys and values in one order (an
    values = list(chain.from_iterable([inner.values() for inner in inners]))  # OrderedDict's, not its dict's)
    scores = _number_scores(values)
    if scores is None or not _all_str(docs) or first_bad_id(names) is not None or first_bad_id(docs) is not None:
        return None  # run_frame reports the error
    lengths = np.fromiter(map(len, inners), dtype=np.intp, count=len(inners))
    query_codes = np.repeat(np.asarray(codes, dtype=np.intp), lengths)
    keep = None if depth is None else _top_scores(scores, lengths, depth)
    if keep is None:
        return query_codes, np.arange(len(docs)), id_array(docs), scores
    kept = list(compress(docs, keep))
    return query_codes[keep], np.arange(len(kept)), id_array(kept), scores[keep]


def _all_str(ids: list) -> bool:
    """Whether every id is a ``str`` (joined in C: a TypeError otherwise)."""
    try:
        "".join(ids)
    except TypeError:
        return False
    return True


def _number_scores(values: list) -> np.ndarray | None:
    """The scores as float64 when every value is a number (``sum`` raises for str, None and other non-numbers) and
    none is NaN; else None."""
    try:
        sum(values)
        scores = np.fromiter(values, dtype=np.float64, count=len(values))
    except (TypeError, ValueError, OverflowError):
        return None
    return None if np.isnan(scores).any() else scores


def records_codes(records: Any, queries: Ids,
                  depth: int | None = None) -> tuple[np.ndarray, np.ndarray, Any, np.ndarray] | None:
    """A run given as a list of ``ScoredDoc``-like namedtuples in the integer form of :func:`nested_codes` (rows in
    the given order): the values :func:`run_frame` and :func:`prefeval.data.ranking.rank_run` give, without a frame --
    each field read with one ``itemgetter`` pass, the query id of each stretch of rows of one query looked up once,
    the document ids factorised once (:func:`prefeval.data.encoding.factorize`).

    ``depth``: as in :func:`nested_codes`, when each query's rows are contiguous and no document repeats among the
    rows kept in a query (then every row cut has a lower score than ``depth`` distinct documents of its query, and
    the ranks ``<= depth`` are those of the whole run); else every row is kept.

    None where this could differ from :func:`run_frame`'s reading (which then reads the run, or reports its error):
    not a non-empty list of namedtuples of one type with fields ``query_id``, ``doc_id`` and ``score``, ids that are
    not all ``str``, scores that are not all numbers, or NaN."""
    if not isinstance(records, list) or not records:
        return None
    fields = getattr(type(records[0]), "_fields", ())
    if not isinstance(fields, tuple) or not {"query_id", "doc_id", "score"} <= set(fields) \
            or len(set(map(type, records))) > 1:
        return None
    query_ids, doc_ids, values = (list(map(itemgetter(fields.index(f)), records))
                                  for f in ("query_id", "doc_id", "score"))
    scores = _number_scores(values)
    if scores is None or not _all_str(query_ids) or not _all_str(doc_ids) or first_bad_id(query_ids) is not None \
            or first_bad_id(doc_ids) is not None:
        return None  # run_frame reports the error
    stretches = [(query, len(list(rows))) for query, rows in groupby(query_ids)]
    names, lengths = zip(*stretches)
    query_codes = np.repeat(queries.get_indexer(names), lengths)
    if depth is not None and len(set(names)) == len(names):  # each query's rows contiguous
        keep = _top_scores(scores, np.asarray(lengths, dtype=np.intp), depth)
        if keep is not None:
            kept = list(compress(doc_ids, keep))
            doc_codes, doc_names = factorize(np.fromiter(kept, dtype=object, count=len(kept)))
            pairs = query_codes[keep] * len(doc_names) + doc_codes
            if np.unique(pairs).size == len(pairs):  # no document repeats among a query's kept rows
                return query_codes[keep], doc_codes, doc_names, scores[keep]
    doc_codes, doc_names = factorize(np.fromiter(doc_ids, dtype=object, count=len(doc_ids)))
    return query_codes, doc_codes, doc_names, scores


def _top_scores(scores: np.ndarray, lengths: np.ndarray, depth: int) -> np.ndarray | None:
    """Per row of consecutive groups of ``lengths`` rows: whether its score is at least the ``depth``-th highest of
    its group; None when every group has at most ``depth`` rows (every row kept)."""
    long = np.flatnonzero(lengths > depth)
    if not len(long):
        return None
    ends = np.cumsum(lengths)
    least = np.full(len(lengths), -np.inf)
    for group in long.tolist():
        block = scores[ends[group] - lengths[group]:ends[group]]
        least[group] = np.partition(block, len(block) - depth)[len(block) - depth]
    return scores >= np.repeat(least, lengths)


def _column(values: list) -> Any:
    """``values`` as one column: the canonical string column when every value is a ``str`` (:func:`_strings`), the
    numpy array when numpy infers a number dtype (as pandas does: all ints, all floats, ints and floats), else the
    list (pandas infers its dtype)."""
    if values and isinstance(values[0], str):
        strings = _strings(values)
        return values if strings is None else strings
    if values and isinstance(values[0], (int, float)) and not isinstance(values[0], bool):
        array = np.array(values)
        if array.dtype.kind in "if" and array.ndim == 1:
            return array
    return values


def _text_column(values: list) -> pd.Series:
    """``[str(v) for v in values]`` as a column of the string dtype of canonical frames."""
    if not values:
        return pd.Series([], dtype=object)  # as the frames built from no rows before
    strings = _strings(values)
    return _strings([str(v) for v in values]) if strings is None else strings  # type: ignore[return-value]


def _strings(values: list) -> pd.Series | None:
    """``values`` as a column of the string dtype of canonical frames (:func:`prefeval.data.trec.read_run`'s) when every
    value is a ``str`` (None otherwise); built by Arrow directly when that dtype is Arrow-backed."""
    string = string_dtype()
    if isinstance(string, pd.StringDtype) and string.storage == "pyarrow":
        import pyarrow as pa  # deferred: installed, as pandas' string dtype is Arrow-backed

        try:  # Arrow infers ``string`` only when every value is a str (bytes give ``binary``, None a null)
            array = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return None
        except UnicodeEncodeError:  # a lone surrogate: not UTF-8, reported by the check of the ids
            return pd.Series(np.fromiter(values, dtype=object, count=len(values)), dtype=object)
        return _to_pandas(array, string) if array.type == pa.string() and not array.null_count else None
    array = np.fromiter(values, dtype=object, count=len(values))
    if pd.api.types.infer_dtype(array, skipna=False) != "string":
        return None
    return pd.Series(array, dtype=string)


#: Column names other tools use for the canonical columns: PyTerrier (qid, docno, label), ranx (q_id).
_ALIASES = {"query_id": ("qid", "q_id"), "doc_id": ("docno",), "relevance": ("label",)}


def _standard_columns(frame: pd.DataFrame, columns: list[str], label: str = "DataFrame") -> pd.DataFrame:
    """``frame`` with the first alias of each missing canonical column renamed to it (no copy when none is); a
    column name given twice is an error naming it (which of the two would be read?)."""
    if not frame.columns.is_unique:
        twice = list(dict.fromkeys(frame.columns[frame.columns.duplicated()].tolist()))
        raise PrefevalError(f"{label} has more than one column named {', '.join(map(repr, twice))}; keep one")
    renames = {}
    present = set(frame.columns)
    for column in columns:
        if column not in present:
            alias = next((a for a in _ALIASES.get(column, ()) if a in present), None)
            if alias is not None:
                renames[alias] = column
    if "relevance" in columns and "relevance" not in present and "relevance" not in renames.values() \
            and "q_id" in present and "score" in present:  # a ranx qrels frame: score = grade
        renames["score"] = "relevance"
    return frame.rename(columns=renames) if renames else frame


def _require(frame: pd.DataFrame, columns: list[str], label: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        hint = "".join(f" or {'/'.join(_ALIASES[c])}" if c in _ALIASES else "" for c in missing[:1])
        raise PrefevalError(f"{label} lacks column(s) {missing}{hint} (has {list(frame.columns)})")


def canonical_qrels(frame: pd.DataFrame, label: str) -> pd.DataFrame:
    """``frame`` as canonical qrels (module docstring); ``label`` names the source in error messages."""
    if frame.empty and not len(frame.columns):
        return pd.DataFrame({c: pd.Series(dtype=object if c != "relevance" else "int64") for c in QRELS_COLUMNS})
    frame = _standard_columns(frame, QRELS_COLUMNS, label)
    _require(frame, QRELS_COLUMNS[:3], label)
    if "iteration" in frame.columns or "subtopic_id" in frame.columns:
        iteration = _as_text(frame["iteration" if "iteration" in frame.columns else "subtopic_id"],
                             f"{label}: iteration (subtopic)")
    elif len(frame):
        iteration = _text_column(["0"]).array.take(np.zeros(len(frame), dtype=np.intp))
    else:
        iteration = np.zeros(0, dtype=object)
    relevance = _grades(frame, label)
    out = pd.DataFrame({
        "query_id": _as_text(frame["query_id"], f"{label}: query_id"),
        "doc_id": _as_text(frame["doc_id"], f"{label}: doc_id"),
        "relevance": relevance,
        "iteration": iteration,
    })
    check_ids(out["query_id"], f"{label}: query_id")
    check_ids(out["doc_id"], f"{label}: doc_id", lambda row: f"query {out['query_id'].iloc[row]}")
    check_ids(out["iteration"], f"{label}: iteration (subtopic)", lambda row: f"query {out['query_id'].iloc[row]}")
    return out


def _grades(frame: pd.DataFrame, label: str) -> np.ndarray:
    """The ``relevance`` column of a qrels frame as int64 grades, each checked by the rule of files
    (:func:`prefeval.data.trec.grade_value`: an integer from -1000 to 1000; a string of ASCII digits; an integral float);
    the first bad one is an error naming its query and document."""
    relevance = frame["relevance"]
    missing = relevance.isna().to_numpy()  # NA of a nullable Int64 column, None, NaN
    _reject_first(frame, pd.Series(missing, index=frame.index), lambda row, count: (
        f"{label}: relevance must be an integer grade from {MIN_GRADE} to {MAX_GRADE}, got a missing value (NA) for "
        f"query {row['query_id']}, document {row['doc_id']} ({count} such rows)"))
    values = relevance.to_numpy()
    if values.dtype.kind in "iu":
        bad = (values < MIN_GRADE) | (values > MAX_GRADE)
        out = values.astype(np.int64)
    else:
        distinct = list(dict.fromkeys(values.tolist()))
        grade_of = {value: grade_value(value) for value in distinct}
        grades = [grade_of[value] for value in values.tolist()]
        bad = np.fromiter((g is None for g in grades), dtype=bool, count=len(grades))
        out = np.fromiter((0 if g is None else g for g in grades), dtype=np.int64, count=len(grades))
    _reject_first(frame, pd.Series(bad, index=frame.index), lambda row, _: (
        f"{label}: relevance must be an integer grade from {MIN_GRADE} to {MAX_GRADE}, got "
        f"{getattr(row['relevance'], 'item', lambda: row['relevance'])()!r} for query {row['query_id']}, document "
        f"{row['doc_id']}"))
    return out


def _reject_first(frame: pd.DataFrame, bad: pd.Series, message: Callable[[pd.Series, int], str]) -> None:
    """Raise :class:`PrefevalError` with ``message(first bad row, number of bad rows)`` when any row is ``bad``."""
    if bad.any():
        raise PrefevalError(message(frame[bad].iloc[0], int(bad.sum())))


def _as_text(column: pd.Series, what: str = "id") -> Any:
    """The values of ``column.astype(str)`` for a canonical frame: the column's own array when it already has the
    string dtype of canonical frames (no conversion through Python objects). ``what`` names the column in the error
    for an id that is not UTF-8 (a lone surrogate)."""
    if isinstance(column.dtype, pd.StringDtype) and column.dtype == string_dtype():
        return column.array
    try:
        return column.astype(str).array  # Arrow-backed strings stay so (no Python string per row)
    except UnicodeEncodeError:
        check_ids([str(v) for v in column.tolist()], what)
        raise


def _is_canonical_run(frame: pd.DataFrame) -> bool:
    """Whether ``frame`` already has canonical run columns (string ids, float64 scores without NaN), e.g. from
    :func:`prefeval.data.trec.read_run`: then :func:`run_frame` returns it without copying (missing ids, which the
    conversion would keep as NaN too, are reported by :func:`prefeval.data.ranking.rank_run`)."""
    return _canonical_columns(frame) is not None


def _canonical_columns(frame: pd.DataFrame) -> dict[str, pd.Series] | None:
    """The columns ``query_id, doc_id, score`` of ``frame`` when they are canonical (:func:`_is_canonical_run`),
    else None."""
    if not set(RUN_COLUMNS) <= set(frame.columns) or not frame.columns.is_unique:
        return None
    columns = {c: frame[c] for c in RUN_COLUMNS}
    if not (_is_string_column(columns["query_id"]) and _is_string_column(columns["doc_id"])):
        return None
    score = columns["score"]
    return columns if score.dtype == np.float64 and not np.isnan(score.to_numpy()).any() else None


def _is_string_column(column: pd.Series) -> bool:
    """String dtype (pandas 3's default), or an object column holding only ``str`` (pandas 2's)."""
    if isinstance(column.dtype, pd.StringDtype):
        return True
    return column.dtype == object and pd.api.types.infer_dtype(column, skipna=False) == "string"


def _canonical_run(frame: pd.DataFrame, label: str) -> pd.DataFrame:
    if frame.empty and not len(frame.columns):
        return pd.DataFrame({"query_id": pd.Series(dtype=object), "doc_id": pd.Series(dtype=object),
                             "score": pd.Series(dtype="float64")})
    frame = _standard_columns(frame, RUN_COLUMNS, label)
    _require(frame, RUN_COLUMNS, label)
    score = pd.to_numeric(frame["score"], errors="coerce")
    _reject_first(frame, score.isna(), lambda row, count: (
        f"{label}: score {row['score']!r} of document {row['doc_id']} in query {row['query_id']} is not a number "
        f"({count} such rows)"))
    out = pd.DataFrame({
        "query_id": _as_text(frame["query_id"], f"run {label!r}: query_id"),
        "doc_id": _as_text(frame["doc_id"], f"run {label!r}: doc_id"),
        "score": score.astype("float64").to_numpy(),
    })
    check_run_ids(out["query_id"], out["doc_id"], f"run {label!r}" if " (" not in label else
                  f"run {label.split(' (')[0]!r} ({label.split(' (', 1)[1]}")
    return out


def check_run_ids(query_ids: Any, doc_ids: Any, what: str) -> None:
    """:func:`prefeval.data.trec.check_ids` of a run's query and document ids; ``what`` names the run (a document's
    query is named too)."""
    check_ids(query_ids, f"{what}: query_id")
    check_ids(doc_ids, f"{what}: doc_id", lambda row: f"query {_at(query_ids, row)}")


def _at(values: Any, row: int) -> Any:
    """``values[row]`` of a pandas Series, pyarrow array or sequence, as a Python value."""
    if hasattr(values, "iloc"):
        return values.iloc[row]
    value = values[row]
    return value.as_py() if hasattr(value, "as_py") else value
