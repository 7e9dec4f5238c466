"""``Pipeline``: validate every step, then run them in their fixed order; and the terminal summary."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from prefeval.errors import PrefevalError
from prefeval.pipeline import loader
from prefeval.pipeline.aggregate_step import TRUTH, Aggregate
from prefeval.pipeline.base import Plan, Step, order
from prefeval.pipeline.check_step import Check
from prefeval.pipeline.context import PipelineContext
from prefeval.pipeline.output import checkpoint
from prefeval.pipeline.progress import Progress
from prefeval.pipeline.report import Report
from prefeval.report.text import plural

__all__ = ["Pipeline", "load", "terminal_summary"]



class Pipeline:
    """A composition of steps: sources (``Qrels`` or ``Simulate``; ``Runs`` and/or ``Retrieve``), work
    (``Evaluate``, ``Compare``), ``Aggregate``, ``Analyse`` and ``Report``.

    Steps run in that order whatever their order in the list. :meth:`run` validates everything first (files,
    globs, measures, callables, the baseline name), so a malformed pipeline fails before any work::
        from prefeval.pipeline import Pipeline, Qrels, Runs, Evaluate, Compare, Report
        result = Pipeline([Qrels("msmarco-passage/trec-dl-hard", rel=2), Runs("runs/*.run.gz"),
                           Evaluate(["nDCG@10", "AP", "RR"]), Compare(["LexiRecall", "RPP"]),
                           Report("out/dl-hard")]).run()
        result.means_table()
    """

    def __init__(self, steps: Iterable[Step], name: str = "pipeline", description: str = "",
                 source: str | None = None) -> None:
        self.steps = list(steps)
        for i, step in enumerate(self.steps):
            if not isinstance(step, Step):
                raise PrefevalError(f"Pipeline step {i} is a {type(step).__name__}, not a pipeline step "
                                    "(Qrels, Simulate, Runs, Retrieve, Evaluate, Compare, Aggregate, Analyse, Report)")
        self.name, self.description, self.source = name, description, source

    @classmethod
    def from_toml(cls, path: str | Path, overrides: Iterable[str] = (), cwd: str | None = None) -> Pipeline:
        """Load a TOML definition (see docs/pipelines.md); ``overrides`` are ``KEY=VALUE`` strings."""
        steps, name, description, file = loader.read(path, list(overrides), cwd)
        return cls(steps, name=name, description=description, source=file)

    def _ordered(self) -> list[Step]:
        return order(self.steps)

    def _where(self) -> str:
        return self.source or "Pipeline"

    def validate(self) -> Plan:
        """Check every step without doing any work; return what was learnt (run names, measures, ...)."""
        kinds = [s.kind for s in self.steps]
        for kind in dict.fromkeys(s.kind for s in self.steps if s.SINGLE):
            if kinds.count(kind) > 1:
                raise PrefevalError(f"{self._where()}: [{kind}] appears {kinds.count(kind)} times; at most once")
        if "qrels" not in kinds and "simulate" not in kinds and "recsys" not in kinds:
            raise PrefevalError(f"{self._where()}: no [qrels] (or [simulate], [recsys]) step: the pipeline needs "
                                "relevance judgments")
        if "evaluate" not in kinds and "compare" not in kinds:
            raise PrefevalError(f"{self._where()}: nothing to compute: add an [evaluate] or a [compare] step")
        plan = Plan()
        for step in self._ordered():
            step.validate(plan)
        if not plan.run_names:
            raise PrefevalError(f"{self._where()}: no runs: add a [runs] or [retrieve] step "
                                "(or --set runs=FOLDER)")
        return plan

    def run(self, progress: bool = True, out: str | Path | None = None, force: bool | None = None) -> PipelineContext:
        """Validate, then run every step; returns the :class:`PipelineContext` with all results.

        ``out`` sets (or adds) the report folder; ``force`` lets it hold files prefeval did not write (see
        :mod:`prefeval.pipeline.output`). ``progress``: show tqdm bars on stderr. The report folder is checked
        and locked before any work and receives its files all at once at the end.
        """
        steps = self._ordered()
        if out is not None:
            report = next((s for s in steps if isinstance(s, Report)), None)
            if report is None:
                steps.append(Report(out))
            else:
                report.out = out
        work = [i for i, s in enumerate(steps) if s.kind in ("evaluate", "compare")]
        if work and not any(isinstance(s, Aggregate) for s in steps):
            steps = order([*steps, Aggregate()])
        if not any(isinstance(s, Check) for s in steps):  # run by default
            steps = order([*steps, Check()])
        pipeline = Pipeline(steps, self.name, self.description, self.source)
        checkpoint("validate")
        pipeline.validate()
        report = next((s for s in steps if isinstance(s, Report)), None)
        folder = report.folder(self.name, force) if report is not None else None
        with folder if folder is not None else contextlib.nullcontext():
            context = PipelineContext(name=self.name, description=self.description, source=self.source)
            context.settings = {s.kind: s.options() for s in steps if s.kind != "retrieve"}
            retrieves = [s.options() for s in steps if s.kind == "retrieve"]
            if retrieves:
                context.settings["retrieve"] = retrieves
            context.out_dir = folder.staging if folder is not None else None
            tracker = Progress(enabled=progress)
            start = time.perf_counter()
            for step in steps:
                checkpoint(f"step:{step.kind}")
                try:
                    step.run(context, tracker)
                except SystemExit as exc:  # a user's callable (retrieve, analyse) ended the process's run
                    code = exc.code if isinstance(exc.code, (int, type(None))) else repr(str(exc.code)[:80])
                    raise PrefevalError(f"{self._where()}: [{step.kind}] a callable of this step called "
                                        f"sys.exit({code}); a step's callable must return its result or raise an "
                                        "exception") from None
            context.timings = {**tracker.timings, "total": time.perf_counter() - start}
            if folder is not None:
                _refresh_timings(context)  # summary.json was written before the total was known
                context.files = folder.commit(self.name, context.files)
                context.out_dir = folder.path
        return context

    def __repr__(self) -> str:
        return f"Pipeline({self._ordered()!r}, name={self.name!r})"


def load(path: str | Path, overrides: Iterable[str] = (), cwd: str | None = None) -> Pipeline:
    """The pipeline defined in the TOML file ``path`` (:meth:`Pipeline.from_toml`)."""
    return Pipeline.from_toml(path, overrides, cwd)


def _refresh_timings(context: PipelineContext) -> None:
    path = next((p for p in context.files if p.name == "summary.json"), None)
    if path is None:
        return
    data = json.loads(path.read_text(encoding="utf-8"))
    data["timings"] = {k: round(v, 3) for k, v in context.timings.items()}
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _best(context: PipelineContext) -> list[str]:
    means = context.means_table()
    out = []
    for measure in context.measures:  # every measure (docs/pipelines.md: the best run per measure)
        if measure in means.columns and means[measure].notna().any():
            run = means[measure].idxmax()
            out.append(f"{measure} {run} ({means.loc[run, measure]:.4f})")
    return out


def terminal_summary(context: PipelineContext) -> str:
    """A few lines for the terminal: data, winners, ranking agreement, files, time."""
    lines = [f"prefeval run: {context.name}"]
    if context.simulated:
        lines.append(f"  {context.simulation.describe()}")
    else:
        lines.append(f"  qrels: {context.qrels_label} (relevant: grade >= {context.rel})")
    lines.append(f"  {plural(len(context.runs), 'run')}, {plural(len(context.judged_queries()), 'judged query', 'judged queries')} "
                 f"({len(context.evaluated_queries())} with a relevant document)"
                 + (f", baseline {context.baseline}" if context.baseline else ""))
    best = _best(context)
    if best:
        lines.append("  best by mean: " + "; ".join(best))
    vs = context.versus_baseline
    if vs is not None and "baseline" in vs.columns:
        vs = vs[vs["baseline"] == context.baseline]  # the first baseline, as the report
    if vs is not None and not vs.empty:
        better = vs[vs["significant"] & (vs["statistic"] > 0)]
        worse = vs[vs["significant"] & (vs["statistic"] < 0)]
        lines.append(f"  against the baseline: {plural(len(better), 'significant improvement')}, "
                     f"{plural(len(worse), 'degradation')} (over {vs['method'].nunique()} measures/methods x "
                     f"{plural(vs['run'].nunique(), 'run')})")
    for method in context.methods:
        label = context.ranking_label(method)
        top = context.rankings[label]["run"].iloc[0] if label else "?"
        lines.append(f"  {method}: top {top} ({label.split('(')[-1].rstrip(')') if label else ''}), "
                     f"{context.significant_pairs(method) or 0} of {plural(context.run_pairs, 'pair')} significant")
    tau = context.kendall_tau
    if tau is not None and len(tau) > 1:
        labels = [x for x in tau.index if x != TRUTH]
        values = [v for i, a in enumerate(labels) for b in labels[i + 1:] if np.isfinite(v := float(tau.loc[a, b]))]
        truth = [v for x in labels if np.isfinite(v := float(tau.loc[x, TRUTH]))] if TRUTH in tau.index else []
        if values:
            lines.append(f"  Kendall's tau between rankings: min {min(values):.3f}, mean {np.mean(values):.3f}"
                         + (f"; against the true order: mean {np.mean(truth):.3f}" if truth else ""))
        elif labels:  # one run (or rankings without two distinct values): tau is undefined, and said to be
            lines.append(f"  Kendall's tau between rankings: undefined ({plural(len(context.runs), 'run')})")
    if context.files:
        names = ", ".join(p.name for p in context.files[:8]) + (", ..." if len(context.files) > 8 else "")
        lines.append(f"  wrote {plural(len(context.files), 'file')} to {context.out_dir}: {names}")
        reports = [context.out_dir / name for name in ("report.html", "report.md")] if context.out_dir else []
        report = next((p for p in reports if p.exists()), None)
        if report is not None:
            lines.append(f"  open {report}")
    timing = ", ".join(f"{k} {v:.1f}s" for k, v in context.timings.items() if k != "total")
    lines.append(f"  time: {context.timings.get('total', 0.0):.1f}s ({timing})")
    return "\n".join(lines)


def describe_plan(pipeline: Pipeline, plan: Plan) -> str:
    """What a validated pipeline will do (``prefeval run --check``)."""
    lines = [f"{pipeline.source or pipeline.name}: valid"]
    for step in pipeline._ordered():
        lines.append(f"  [{step.kind}] " + ", ".join(f"{k}={v!r}" for k, v in step.options().items() if v not in (None, [], {})))
    names = plan.run_names
    shown = names if len(names) <= 20 else [*names[:10], f"... ({len(names) - 20} more)", *names[-10:]]
    lines.append(f"  runs ({len(names)}): {', '.join(shown)}")
    return "\n".join(lines)
