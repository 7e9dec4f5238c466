"""Source steps: qrels/topics (``Qrels``), the simulator (``Simulate``), run files (``Runs``) and
retrieval callables (``Retrieve``)."""

from __future__ import annotations

import fnmatch
import glob
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from prefeval.data.datasets import load
from prefeval.data.inputs import RUN_FILE_SUFFIXES, path_exists, qrels_frame, run_frame, run_name
from prefeval.data.simulate import DEFAULTS, RECSYS_DEFAULTS, check_params, collection, recsys, run_names
from prefeval.data.trec import run_file_problem
from prefeval.errors import DatasetUnavailable, PrefevalError
from prefeval.methods.registry import rel_problem
from prefeval.pipeline.base import Origin, Plan, Step, import_callable
from prefeval.pipeline.context import PipelineContext
from prefeval.pipeline.progress import Progress
from prefeval.pipeline.schema import Key, Table

__all__ = ["Qrels", "Simulate", "Recsys", "Runs", "Retrieve"]

_GLOB_CHARS = set("*?[")


def check_dataset_id(dataset_id: str, origin: Origin, key: str, need: str = "qrels") -> None:
    """Fail unless ``dataset_id`` is a registered ir_datasets id providing ``need`` (qrels or queries).

    Only the registry is consulted: no file is read or downloaded.
    """

    try:
        dataset = load(dataset_id).irds
    except PrefevalError as exc:
        raise origin.error(key, f"{exc} (files are resolved relative to {origin.base_dir})") from None
    has = getattr(dataset, f"has_{need}", None)
    if has is not None and not has():
        raise origin.error(key, f"ir_datasets id {dataset_id!r} provides no {need}")


def read_topics_file(path: str) -> pd.DataFrame:
    """Topics from a ``query_id<TAB>text`` file (CRLF tolerated; a line without a tab has empty text)."""
    rows = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            line = line.rstrip("\r\n")
            if not line.strip() or line.startswith("#"):
                continue
            qid, _, text = line.partition("\t")
            rows.append((qid.strip(), text.strip()))
    return pd.DataFrame(rows, columns=["query_id", "text"])


def _topics_frame(topics: pd.DataFrame) -> pd.DataFrame:
    """Topics with ``query_id, text``, from ir_datasets-style frames (``query_id`` + text fields)."""
    frame = topics.copy()
    if "query_id" not in frame.columns and "qid" in frame.columns:
        frame = frame.rename(columns={"qid": "query_id"})
    if "text" not in frame.columns:
        for alt in ("query", "title"):
            if alt in frame.columns:
                frame["text"] = frame[alt]
                break
        else:
            fields = [c for c in frame.columns if c != "query_id" and frame[c].dtype != "int64"]
            frame["text"] = frame[fields[0]] if fields else ""
    frame["query_id"] = frame["query_id"].astype(str)
    return frame


class Qrels(Step):
    """Relevance judgments (and topics): an ir_datasets id, a TREC qrels file, or a DataFrame/dict.

    ``rel`` is the minimum relevant grade used by every later step unless overridden; ``queries``
    restricts evaluation to a subset (a list of ids or a file of ids, one per line).
    """

    kind = "qrels"
    TABLE = Table(doc="relevance judgments and topics", primary="source", conflicts=("simulate",), keys={
        "source": Key("str", None, "ir_datasets id (`irds:` prefix allowed) or a TREC qrels file", path=True),
        "topics": Key("str", None, "topics: an ir_datasets id or a file (`query_id<TAB>text` per line); "
                      "default: the dataset's topics when `source` is an id. Only read when a retrieve step needs it",
                      path=True),
        "rel": Key("int", 1, "minimum grade that counts as relevant (e.g. 2 for TREC DL binary measures)"),
        "queries": Key("file|list[str]", None, "evaluate only these query ids: a list, or a file with one id per "
                       "line (first whitespace-separated field)", path=True),
    })
    NEEDS = frozenset()
    PROVIDES = frozenset({"qrels", "topics"})

    def __init__(self, source: Any, topics: Any = None, rel: int = 1, queries: Any = None,
                 origin: Origin | None = None) -> None:
        super().__init__(origin)
        self.source, self.topics, self.rel, self.queries = source, topics, rel, queries

    def options(self) -> dict[str, Any]:
        def show(value: Any) -> Any:
            return value if value is None or isinstance(value, (str, int, list)) else f"<{type(value).__name__}>"
        return {"source": show(self.source), "topics": show(self.topics), "rel": self.rel,
                "queries": show(self.queries)}

    def _local(self, value: Any) -> str | None:
        if isinstance(value, (str, os.PathLike)):
            path = self.origin.resolve(value)
            if not str(value).startswith("irds:") and path_exists(path, "file"):
                return path
        return None

    def validate(self, plan: Plan) -> None:
        if self.source is None:
            raise self.error("source", "missing: give an ir_datasets id or a qrels file")
        if rel_problem(self.rel):
            raise self.error("rel", f"{rel_problem(self.rel)}; got {self.rel!r}")
        if isinstance(self.source, (str, os.PathLike)) and self._local(self.source) is None:
            check_dataset_id(str(self.source), self.origin, "source")
        if isinstance(self.topics, (str, os.PathLike)) and self._local(self.topics) is None:
            check_dataset_id(str(self.topics), self.origin, "topics", need="queries")
        if isinstance(self.queries, str) and self._local(self.queries) is None:
            raise self.error("queries", f"query-id file not found: {self.queries!r} "
                             f"(relative to {self.origin.base_dir})")
        if isinstance(self.queries, (list, tuple)) and not self.queries:
            raise self.error("queries", "an empty list selects no query; leave the key out to keep every query")
        if isinstance(self.queries, str):
            if not self._query_subset():
                raise self.error("queries", f"the query-id file {self.queries!r} lists no query id")
        plan.rel = self.rel
        plan.topics_available = self.topics is not None or (
            isinstance(self.source, str) and self._local(self.source) is None)

    def _query_subset(self) -> list[str] | None:
        if self.queries is None:
            return None
        if isinstance(self.queries, str):
            with open(self._local(self.queries) or self.queries, encoding="utf-8") as handle:
                return [line.split()[0] for line in handle if line.strip() and not line.startswith("#")]
        return [str(q) for q in self.queries]

    def run(self, context: PipelineContext, progress: Progress) -> None:
        source = self._local(self.source) or self.source
        with progress.stage("loading"):
            qrels = qrels_frame(source)
        subset = self._query_subset()
        if subset is not None:
            known = set(qrels["query_id"])
            missing = [q for q in subset if q not in known]
            if missing:
                raise self.error("queries", f"{len(missing)} query id(s) not in the qrels, e.g. {missing[:3]}")
            qrels = qrels[qrels["query_id"].isin(set(subset))].reset_index(drop=True)
        context.qrels = qrels
        context.rel = self.rel
        context.qrels_label = str(self.source) if isinstance(self.source, (str, os.PathLike)) else \
            f"<{type(self.source).__name__}>"
        context.topics_loader = lambda: self._load_topics(subset)

    def _load_topics(self, subset: list[str] | None) -> pd.DataFrame:
        value = self.topics if self.topics is not None else self.source
        if isinstance(value, pd.DataFrame):
            topics = _topics_frame(value)
        else:
            local = self._local(value)
            if local is not None:
                if self.topics is None:
                    raise PrefevalError(f"{self.origin.file or 'Pipeline'}: qrels.topics: the qrels come from a "
                                        "file, so give the topics too (a file or an ir_datasets id)")
                topics = read_topics_file(local)
            else:
                try:
                    topics = _topics_frame(load(str(value)).topics)  # load() strips irds:
                except DatasetUnavailable as exc:  # offline: a topics file is the other way
                    raise DatasetUnavailable(f"{str(exc).rstrip('.')}; or give the topics as a file (query_id<TAB>text per line) with "
                                             f"qrels.topics = \"topics.tsv\" in {self.origin.file or 'the pipeline'}, "
                                             "or --set qrels.topics=topics.tsv") from None
        if subset is not None:
            topics = topics[topics["query_id"].isin(set(subset))].reset_index(drop=True)
        return topics


class Simulate(Step):
    """The built-in simulated collection (:func:`prefeval.data.simulate.collection`): qrels, topics and runs.

    Reports built from it say that the data are simulated and show each run's true quality.
    """

    kind = "simulate"
    TABLE = Table(doc="the built-in simulated collection (prefeval.data.simulate): qrels, topics and runs",
                      conflicts=("qrels",), keys={
        "n_queries": Key("int", 300, "number of queries", minimum=1),
        "n_runs": Key("int", 12, "number of runs of known quality", minimum=1),
        "depth": Key("int", 100, "documents returned per query", minimum=1),
        "n_docs": Key("int", 200, "candidate documents per query", minimum=1),
        "max_grade": Key("int", 3, "highest relevance grade", minimum=1),
        "relevant_beta": Key("list[float]", [1.0, 12.0], "Beta(a, b) of a query's share of relevant candidates"),
        "quality_range": Key("list[float]", [0.2, 1.2], "lowest and highest run quality"),
        "query_variation": Key("float", 0.5, "s.d. of a run's per-query quality around its quality", minimum=0),
        "noise": Key("float", 1.0, "standard deviation of the score noise", minimum=0),
        "label_noise": Key("float", 0.0, "probability that a judged label is redrawn at random", minimum=0),
        "judged_depth": Key("int|null", None, "pool depth (judge only the runs' top k); absent: judge everything",
                            minimum=1),
        "score_decimals": Key("int|null", None, "round scores to this many decimals (creates ties)", minimum=0),
        "seed": Key("int", 0, "random seed"),
        "runs": Key("bool", True, "use the simulated runs (false: only qrels and topics)"),
    })
    NEEDS = frozenset()
    PROVIDES = frozenset({"qrels", "topics", "runs"})

    def __init__(self, runs: bool = True, origin: Origin | None = None, **params: Any) -> None:
        super().__init__(origin)
        self.use_runs = runs
        self.params = params

    def options(self) -> dict[str, Any]:
        return {**DEFAULTS, **self.params, "runs": self.use_runs}

    def _params(self) -> dict[str, Any]:
        params = dict(self.params)
        for key in ("relevant_beta", "quality_range"):
            if key in params:
                params[key] = tuple(params[key])
        return params

    def validate(self, plan: Plan) -> None:
        try:
            check_params(**self._params())
        except PrefevalError as exc:
            bad = next((k for k in DEFAULTS if str(exc).startswith(f"simulate: {k} ")), None)
            raise self.error(bad, str(exc).removeprefix("simulate: ")) from None
        plan.topics_available = plan.simulated = True
        plan.rel = 1
        if self.use_runs:
            for name in run_names(self.options()["n_runs"]):
                plan.add_run(name, self.origin, None)

    def run(self, context: PipelineContext, progress: Progress) -> None:
        with progress.stage("loading"):
            sim = collection(**self._params())
        context.simulation = sim
        context.qrels, context.topics, context.rel = sim.qrels, sim.topics, 1
        context.qrels_label = sim.describe()
        if self.use_runs:
            for name, run in sim.runs.items():
                context.runs[name] = run
                context.run_sources[name] = "prefeval.data.simulate"


class Recsys(Step):
    """A simulated recommendation collection (:func:`prefeval.data.simulate.recsys`), generated partition by partition.

    It is never materialised here: ``engine = "dask"`` steps generate each partition inside their tasks; an
    in-process step materialises it (small sizes only). Reports say that the data are simulated.
    """

    kind = "recsys"
    TABLE = Table(doc="a simulated recommendation collection generated partition by partition (prefeval.data.simulate."
                      "recsys): users are queries, models are runs", conflicts=("qrels", "simulate"), keys={
        "n_users": Key("int", RECSYS_DEFAULTS["n_users"], "number of users (queries)", minimum=1),
        "n_models": Key("int", RECSYS_DEFAULTS["n_models"], "number of models (runs) of known quality", minimum=1),
        "items_per_list": Key("int", RECSYS_DEFAULTS["items_per_list"], "items each model recommends per user",
                              minimum=1),
        "n_candidates": Key("int", RECSYS_DEFAULTS["n_candidates"], "candidate items per user", minimum=1),
        "n_items": Key("int", RECSYS_DEFAULTS["n_items"], "items in the catalogue", minimum=1),
        "max_grade": Key("int", RECSYS_DEFAULTS["max_grade"], "highest relevance grade", minimum=1),
        "users_per_partition": Key("int", RECSYS_DEFAULTS["users_per_partition"], "users generated per partition "
                                   "(per task)", minimum=1),
        "seed": Key("int", 0, "random seed"),
    })
    NEEDS = frozenset()
    PROVIDES = frozenset({"qrels", "runs"})

    def __init__(self, origin: Origin | None = None, **params: Any) -> None:
        super().__init__(origin)
        self.params = params

    def options(self) -> dict[str, Any]:
        return {**{k: RECSYS_DEFAULTS[k] for k in self.TABLE.keys}, **self.params}

    def validate(self, plan: Plan) -> None:
        try:
            collection = recsys(**self.params)
        except PrefevalError as exc:
            bad = next((k for k in self.TABLE.keys if f" {k} " in str(exc)), None)
            raise self.error(bad, str(exc).removeprefix("simulate.recsys: ")) from None
        plan.simulated = True
        plan.rel = 1
        for name in collection.run_names:
            plan.add_run(name, self.origin, None)

    def run(self, context: PipelineContext, progress: Progress) -> None:
        collection = recsys(**self.params)
        context.simulation = context.generated = collection
        context.qrels_label, context.rel = collection.describe(), 1
        for name in collection.run_names:
            context.runs[name] = None
            context.run_sources[name] = "prefeval.data.simulate.recsys"


def _run_files_in(folder: str) -> list[str]:
    names = sorted(os.listdir(folder))
    return [os.path.join(folder, n) for n in names
            if os.path.isfile(os.path.join(folder, n))
            and n.removesuffix(".gz").lower().endswith(RUN_FILE_SUFFIXES)]


def _not_a_run(file: str) -> str | None:
    """Why ``file`` is not a TREC run, judged by its first lines as the reader reads them (None when they look
    right)."""
    return run_file_problem(file)


class Runs(Step):
    """Run files: paths, folders (their ``*.run``/``*.trec``/``*.res``/``*.txt`` files, ``.gz`` too) or globs,
    relative to the definition file; or, in Python, a dict ``{name: run}`` of DataFrames/paths.

    Run names are file names without run suffixes and ``.gz`` (``bm25.run.gz`` -> ``bm25``); the files of a
    folder or glob are taken in the order of their run names.
    """

    kind = "runs"
    TABLE = Table(doc="run files", primary="paths", keys={
        "paths": Key("str|list[str]", [], "run files, folders (every *.run, *.trec, *.res, *.txt file, optionally "
                     ".gz) or glob patterns", path=True),
        "exclude": Key("str|list[str]", [], "glob patterns of file names to leave out (e.g. \"*.eval.gz\")"),
    })
    NEEDS = frozenset()
    PROVIDES = frozenset({"runs"})
    SINGLE = False

    def __init__(self, paths: Any = (), exclude: Sequence[str] = (), origin: Origin | None = None) -> None:
        super().__init__(origin)
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        self.paths = paths
        self.exclude = [exclude] if isinstance(exclude, str) else list(exclude)
        self._files: dict[str, str] = {}

    def options(self) -> dict[str, Any]:
        if isinstance(self.paths, Mapping):
            return {"paths": {k: v if isinstance(v, str) else f"<{type(v).__name__}>" for k, v in self.paths.items()}}
        return {"paths": [os.fspath(p) for p in self.paths], "exclude": self.exclude}

    def _expand(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for i, entry in enumerate(self.paths):
            key = f"paths[{i}]"
            raw = os.fspath(entry)
            path = self.origin.resolve(raw)
            if _GLOB_CHARS & set(raw):
                files = sorted(f for f in glob.glob(path, recursive=True) if os.path.isfile(f))
                if not files:
                    raise self.error(key, f"the glob {raw!r} matches no file (looked in {os.path.dirname(path) or '.'})")
            elif os.path.isdir(path):
                files = _run_files_in(path)
                if not files:
                    raise self.error(key, f"the folder {raw!r} holds no run file (*{', *'.join(RUN_FILE_SUFFIXES)}, "
                                     "optionally .gz)")
            elif os.path.isfile(path):
                files = [path]
            else:
                raise self.error(key, f"run file not found: {raw!r} (resolved to {path})")
            files = [f for f in files if not any(fnmatch.fnmatch(os.path.basename(f), pat) for pat in self.exclude)]
            files.sort(key=lambda f: (run_name(f), f))
            for file in files:
                problem = _not_a_run(file)
                if problem:
                    raise self.error(key, f"{file} is not a TREC run file ({problem}); remove it, or skip it with "
                                          "runs.exclude")
                name = run_name(file)
                if name in found and found[name] != file:
                    raise self.error(key, f"two run files get the name {name!r}: {found[name]} and {file}")
                found[name] = file
        return found

    def validate(self, plan: Plan) -> None:
        if isinstance(self.paths, Mapping):
            for name in self.paths:
                plan.add_run(str(name), self.origin, "paths")
            return
        if not self.paths:
            raise self.error("paths", "no runs given: set runs.paths, e.g. --set runs=FOLDER")
        self._files = self._expand()
        for name in self._files:
            plan.add_run(name, self.origin, "paths")

    def run(self, context: PipelineContext, progress: Progress) -> None:
        items = list(self.paths.items()) if isinstance(self.paths, Mapping) else list(self._files.items())
        with progress.stage("loading"):
            for name, run in progress.iterate(items, desc="loading runs", unit="run"):
                context.runs[str(name)] = run_frame(run, str(name))
                context.run_sources[str(name)] = run if isinstance(run, str) else f"<{type(run).__name__}>"


class Retrieve(Step):
    """Produce a run by calling ``function(topics, **options)`` (``"module:function"`` or a callable).

    ``topics`` is a DataFrame with ``query_id`` and ``text`` and, for PyTerrier, the same values as
    ``qid`` and ``query``, so a PyTerrier transformer (``pt.Transformer``, e.g. ``pt.Transformer.from_df``) works
    as the function. The function returns a run: a DataFrame with ``query_id``/``qid``, ``doc_id``/``docno`` and
    ``score`` (PyTerrier result frames work as they are, also when they pass ``query_id`` through; the canonical
    column wins), a dict of dicts, or ScoredDoc records. With ``batch_size`` the topics are passed in batches (the progress bar then
    advances per batch).
    """

    kind = "retrieve"
    TABLE = Table(doc="a retrieval step: a Python callable that gets the topics DataFrame and returns a run",
                      repeat=True, primary="callable", keys={
        "name": Key("str", None, "run name (default: the function name)"),
        "callable": Key("str", None, "\"module:function\"; called as function(topics, **options)"),
        "options": Key("table", {}, "keyword arguments for the callable"),
        "path": Key("str", None, "folder added to sys.path before importing the module (relative to the file)",
                    path=True),
        "batch_size": Key("int|null", None, "pass the topics in batches of this many queries (default: all at once)",
                          minimum=1),
    })
    NEEDS = frozenset({"topics"})
    PROVIDES = frozenset({"runs"})
    SINGLE = False

    def __init__(self, callable: str | Callable[..., Any], name: str | None = None,  # noqa: A002
                 options: Mapping[str, Any] | None = None, path: str | None = None,
                 batch_size: int | None = None, origin: Origin | None = None) -> None:
        super().__init__(origin)
        self.callable, self.name, self.kwargs = callable, name, dict(options or {})
        self.path, self.batch_size = path, batch_size
        self._function: Callable[..., Any] | None = None

    def options(self) -> dict[str, Any]:
        spec = self.callable if isinstance(self.callable, str) else getattr(self.callable, "__qualname__", "callable")
        return {"name": self.run_name, "callable": spec, "options": self.kwargs, "batch_size": self.batch_size}

    @property
    def run_name(self) -> str:
        if self.name:
            return self.name
        if isinstance(self.callable, str):
            return self.callable.rpartition(":")[2].rpartition(".")[2]
        return getattr(self.callable, "__name__", type(self.callable).__name__)

    def validate(self, plan: Plan) -> None:
        if self.callable is None:
            raise self.error("callable", "missing: give \"module:function\"")
        if isinstance(self.callable, str):
            path = self.origin.resolve(self.path) if self.path else None
            if path is not None and not os.path.isdir(path):
                raise self.error("path", f"folder not found: {self.path!r}")
            self._function = import_callable(self.callable, self.origin, "callable", path)
        elif callable(self.callable):
            self._function = self.callable
        else:
            raise self.error("callable", f"expected \"module:function\" or a callable, got {self.callable!r}")
        if self.batch_size is not None and (isinstance(self.batch_size, bool) or not isinstance(self.batch_size, int)
                                            or self.batch_size < 1):
            raise self.error("batch_size", f"expected a positive integer, got {self.batch_size!r}")
        if not plan.topics_available:
            raise self.error(None, "a retrieve step needs topics: set qrels.topics (a file or an ir_datasets id)")
        plan.add_run(self.run_name, self.origin, "name")

    def run(self, context: PipelineContext, progress: Progress) -> None:
        assert self._function is not None, "validate() first"
        topics = context.get_topics()
        given = topics.assign(qid=topics["query_id"], query=topics["text"])
        size = self.batch_size or max(len(given), 1)
        batches = [given.iloc[i:i + size].reset_index(drop=True) for i in range(0, max(len(given), 1), size)]
        results = []
        with progress.stage("retrieval"), progress.bar(f"retrieval: {self.run_name}", total=len(given),
                                                        unit="query") as bar:
            for batch in batches:
                try:
                    result = self._function(batch, **self.kwargs)
                except Exception as exc:
                    raise PrefevalError(f"{self.origin.file or 'Pipeline'}: {self.origin.key}: the retrieve callable "
                                        f"{self.options()['callable']!r} failed: {type(exc).__name__}: {exc}") from exc
                where = (f"{self.origin.file or 'Pipeline'}: {self.origin.key}: the retrieve callable "
                         f"{self.options()['callable']!r} (run {self.run_name!r})")
                if result is None:
                    raise PrefevalError(f"{where} returned None; it must return a run (a DataFrame with qid, docno, "
                                        "score, a dict of dicts, or ScoredDoc records)")
                try:
                    results.append(run_frame(result, self.run_name))
                except PrefevalError as exc:
                    raise PrefevalError(f"{where} returned an unusable run: {exc}") from None
                bar.update(len(batch))
        context.runs[self.run_name] = pd.concat(results, ignore_index=True) if len(results) > 1 else results[0]
        context.run_sources[self.run_name] = str(self.options()["callable"])

