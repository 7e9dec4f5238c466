"""The registry of prefeval's evaluation methods: every method declared once, found by name or alias.

A :class:`Declaration` states what a method is (kind, parameters with type/default/validation/description,
citation) and how it is computed (kernels from :mod:`prefeval.core`). Everything else — the ir-measures
measure classes and provider, ``compare``, ``evaluate``, the analyses and the axioms checker — asks this
registry instead of testing method names. :func:`register` refuses a second method with a taken name or
alias; :func:`resolve` suggests close names for unknown ones.

One kernel per method (``params`` holds every declared parameter, defaults filled in, plus ``rel`` and, when
given, ``cutoff``):

* metric: ``kernel(rankings, params) -> (Q,)``, the values of ``Q`` rankings (one per query) at once, on
  :class:`prefeval.core.graded.GradedRankings` (the ranked documents' grades per aspect, with the qrels' ideal
  grades per aspect);
* preference: ``kernel(queries, params) -> (Q, S, S)``, the matrix of every pair of runs (``M[i, j]``: run ``i``
  over run ``j``) on each of ``Q`` queries, given as :class:`prefeval.data.positions.QueryPositions` with the same
  ``S`` runs, restricted to documents with grade >= ``rel`` and truncated at the cutoff. The batched forms of
  :mod:`prefeval.core` (``lexirecall_matrices``, ``rpp_matrices``, ...) compute many queries at once.

``position_based=True`` declares that the value depends on the positions of the relevant documents only (binary
relevance): a metric's kernel then reads nothing but ``rankings.position_vectors()``, and a preference's matrix
nothing but the positions, so that simulations of random rankings evaluate it on position vectors alone
(:meth:`Declaration.on_positions`). ``tie_probability(n, m, exact)``: probability that two uniformly random
complete rankings of ``n`` items, ``m`` relevant, tie (``None`` when no closed form is known).

The other forms are derived from the kernel: :meth:`Declaration.matrix` (one query), :meth:`Declaration.pairwise`
(two runs of one query) and :meth:`Declaration.on_positions`.
"""

from __future__ import annotations

import ast
import numbers
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from prefeval.core.graded import PositionVectors
from prefeval.core.positions import binary_queries, over_leading_axes
from prefeval.errors import PrefevalError
from prefeval.methods.references import Reference

__all__ = ["Declaration", "Param", "REL", "JUDGED_ONLY", "Registry", "REGISTRY", "register", "unregister", "resolve", "get",
           "declarations", "declaration_of", "parameters", "parse", "parse_call", "MethodCall", "listen", "canonical_text"]

Kind = Literal["preference", "metric"]


@dataclass(frozen=True)
class Param:
    """One parameter: ``dtype`` (a type or tuple of types; ``float`` accepts integers), ``default``, a
    ``desc`` for help and docs, optional ``choices`` and ``check(value) -> error message or None``."""

    dtype: type | tuple[type, ...]
    default: Any
    desc: str
    choices: tuple[Any, ...] | None = None
    check: Callable[[Any], str | None] | None = None

    def validate(self, name: str, value: Any) -> Any:
        """``value`` converted (int -> float for float parameters) or a :class:`PrefevalError`."""
        types = self.dtype if isinstance(self.dtype, tuple) else (self.dtype,)
        if float in types and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            raise PrefevalError(f"{name}={value!r} has the wrong type")
        if self.choices is not None and value not in self.choices:
            raise PrefevalError(f"{name}={value!r} is not one of {list(self.choices)}")
        problem = self.check(value) if self.check is not None else None
        if problem:
            raise PrefevalError(f"{name}={value!r}: {problem}")
        return value


#: The highest relevance threshold (no collection grades beyond a few units; trec_eval takes the threshold as a
#: C int, so an unbounded ``rel`` crashed it).
MAX_REL = 1000


#: the relevance threshold every method takes
def rel_problem(rel: Any) -> str | None:
    """Why ``rel`` is not a relevance threshold (``None``: it is one): an integer from 1 to :data:`MAX_REL`, since
    grade 0 means non-relevant in TREC qrels and a lower threshold would count judged non-relevant documents as
    relevant."""
    if isinstance(rel, bool) or not isinstance(rel, numbers.Integral) or not 1 <= rel <= MAX_REL:
        return (f"rel must be an integer from 1 to {MAX_REL} (a grade >= rel is relevant; grade 0 is "
                "non-relevant)")
    return None


def cutoff_problem(cutoff: Any) -> str | None:
    """Why ``cutoff`` (``@k``) is not a cutoff (``None``: it is one, or there is none): a positive integer."""
    if cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 1):
        return f"the cutoff must be a positive integer, got @{cutoff}"
    return None


REL = Param(int, 1, "minimum grade for a document to count as relevant", check=rel_problem)

#: The parameter every method has without declaring it: ``judged_only=True`` computes the method on condensed
#: lists (Sakai (2007)): each run's unjudged documents (no qrels line for the query, at any grade) are removed
#: before positions are taken, so the value equals that of the plain method on runs stripped of them; a cutoff
#: ``@k`` and a depth then count positions on the condensed list.
JUDGED_ONLY = Param(bool, False, "remove unjudged documents from each run before positions are taken "
                                 "(condensed lists, Sakai 2007)")


@dataclass(frozen=True)
class Declaration:
    """One evaluation method (see the module docstring for the kernel signatures).

    ``summary``: the per-query value in one line (the measure table of the docs, help); ``aliases``: other spellings,
    each a name or ``(name, {param: value})`` for a spelling that fixes parameters (``rrLP`` is
    LexiPrecision with ``magnitude='rr'``); ``aspects``: a metric reads subtopic (aspect) qrels;
    ``subtopics(params)``: a preference reads subtopic membership with these parameters;
    ``validate(params, given)``: checks across parameters (raise :class:`PrefevalError`); ``params`` completed
    with the defaults, ``given`` the parameters as written.
    """

    name: str
    kind: Kind
    summary: str
    citation: Reference
    where: str
    params: Mapping[str, Param] = field(default_factory=dict)
    aliases: tuple[str | tuple[str, Mapping[str, Any]], ...] = ()
    kernel: Callable[..., Any] | None = None
    position_based: bool = False
    tie_probability: Callable[[int, int, bool], Any] | None = None
    aspects: bool = False
    subtopics: Callable[[Mapping[str, Any]], bool] | None = None
    validate: Callable[[Mapping[str, Any], Mapping[str, Any]], None] | None = None
    doc: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("preference", "metric"):
            raise PrefevalError(f"method {self.name}: kind must be 'preference' or 'metric', got {self.kind!r}")
        if self.kernel is None:
            raise PrefevalError(f"method {self.name}: declare its kernel, kernel=lambda "
                                + ("queries" if self.kind == "preference" else "rankings") + ", params: ...")
        if "rel" not in self.params:
            raise PrefevalError(f"method {self.name}: declare the relevance threshold, params={{'rel': REL, ...}}")
        reserved = {"cutoff", "baseline"} & set(self.params)
        if self.params.get("judged_only", JUDGED_ONLY) is not JUDGED_ONLY:  # (dataclasses.replace passes it back)
            reserved.add("judged_only")
        if reserved:
            raise PrefevalError(f"method {self.name}: {sorted(reserved)} are added by prefeval, do not declare them")
        object.__setattr__(self, "params", {**self.params, "judged_only": JUDGED_ONLY})

    def values(self, rankings: Any, params: Mapping[str, Any]) -> Any:
        """A metric's ``(Q,)`` values of ``rankings`` (its kernel)."""
        return self.kernel(rankings, params)

    def matrices(self, queries: Sequence[Any], params: Mapping[str, Any]) -> Any:
        """A preference's ``(Q, S, S)`` matrices of ``queries`` (its kernel)."""
        return self.kernel(queries, params)

    def matrix(self, query: Any, params: Mapping[str, Any]) -> Any:
        """A preference's ``(S, S)`` matrix of one query."""
        return self.kernel([query], params)[0]

    def pairwise(self, query: Any, a: int, b: int, params: Mapping[str, Any]) -> float:
        """A preference's value of run ``a`` over run ``b`` on one query."""
        return self.matrix(replace(query, doc_pos=query.doc_pos[[a, b]]), params)[0, 1]

    def on_positions(self, params: Mapping[str, Any]) -> Callable[..., Any]:
        """A position-based method as a function of position vectors (binary relevance, ``(..., m)`` arrays; see
        :mod:`prefeval.core.positions`): ``f(P) -> values`` for a metric, ``f(A, B) -> values`` (``A`` over ``B``)
        for a preference, vectorised over the leading axes, for simulations of random rankings."""
        if not self.position_based:
            raise PrefevalError(f"{self.name} is not position-based: it needs grades, not only positions")
        if self.kind == "metric":
            return lambda P: over_leading_axes(lambda flat: self.kernel(PositionVectors(flat), params), P)
        return lambda A, B: over_leading_axes(
            lambda a, b: np.asarray(self.kernel(binary_queries(np.stack([a, b], axis=1)), params),
                                    dtype=np.float64).reshape(-1, 2, 2)[:, 0, 1], A, B)

    @property
    def reference(self) -> str:
        """``"Diaz & Mitra (2023) §5.2, Eq. 11"``."""
        return self.citation.at(self.where)

    def defaults(self) -> dict[str, Any]:
        return {name: p.default for name, p in self.params.items()}

    def spellings(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every name of the method with the parameters the spelling fixes."""
        yield self.name, {}
        for alias in self.aliases:
            yield (alias, {}) if isinstance(alias, str) else (alias[0], dict(alias[1]))

    def check(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The declared parameters validated and completed with defaults (``cutoff``/``baseline`` pass through)."""
        out = self.defaults()
        unknown = sorted(set(params) - set(self.params) - {"cutoff", "baseline"})
        if unknown:
            raise PrefevalError(f"{self.name}: unknown parameter(s) {unknown}; supported: "
                                f"{sorted(self.params)}")
        for name, value in params.items():
            if name == "baseline" and not (isinstance(value, str) and value) and not hasattr(value, "__fspath__"):
                raise PrefevalError(f"{self.name}: baseline must be a run name registered with prefeval.register_run "
                                    f"or a path to a run file, got baseline={value!r}; leave it out to compare each "
                                    "run with the other runs")
            if name in ("cutoff", "baseline"):
                out[name] = value
                continue
            try:
                out[name] = self.params[name].validate(name, value)
            except PrefevalError as exc:
                raise PrefevalError(f"{self.name}: {exc}") from None
        problem = cutoff_problem(out.get("cutoff"))
        if problem:
            raise PrefevalError(f"{self.name}: {problem}")
        if self.validate is not None:
            self.validate(out, params)
        return out

    def complete(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` (already validated) completed with the defaults."""
        return {**self.defaults(), **params}

    def reads_subtopics(self, params: Mapping[str, Any]) -> bool:
        return self.subtopics is not None and bool(self.subtopics(params))


class Registry:
    """Declarations by name; aliases resolve case-insensitively. Refuses duplicate names and aliases."""

    def __init__(self) -> None:
        self._methods: dict[str, Declaration] = {}
        self._spellings: dict[str, tuple[str, dict[str, Any]]] = {}
        self._listeners: list[tuple[Callable[[Declaration], None], Callable[[Declaration], None]]] = []

    def register(self, declaration: Declaration) -> Declaration:
        keys = [(spelling.lower(), fixed) for spelling, fixed in declaration.spellings()]
        taken = [s for s, _ in keys if s in self._spellings] + ([declaration.name] * (declaration.name in self._methods))
        if taken:
            raise PrefevalError(f"cannot register method {declaration.name}: {sorted(set(taken))} already "
                                "name a registered method")
        if len({s for s, _ in keys}) != len(keys):
            raise PrefevalError(f"method {declaration.name}: an alias repeats the name or another alias")
        for _, fixed in keys:
            declaration.check(fixed)
        self._methods[declaration.name] = declaration
        for spelling, fixed in keys:
            self._spellings[spelling] = (declaration.name, fixed)
        for on_add, _ in self._listeners:
            on_add(declaration)
        return declaration

    def unregister(self, name: str) -> None:
        declaration = self.get(name)
        for on_remove in (r for _, r in self._listeners):
            on_remove(declaration)
        del self._methods[declaration.name]
        self._spellings = {s: v for s, v in self._spellings.items() if v[0] != declaration.name}

    def listen(self, on_add: Callable[[Declaration], None], on_remove: Callable[[Declaration], None]) -> None:
        """Call ``on_add`` for every declaration, now and when registered; ``on_remove`` when unregistered.
        A listener from a reloaded module replaces the one it had registered before."""
        key = (on_add.__module__, on_add.__qualname__)
        self._listeners = [(a, r) for a, r in self._listeners if (a.__module__, a.__qualname__) != key]
        self._listeners.append((on_add, on_remove))
        for declaration in list(self._methods.values()):
            on_add(declaration)

    def get(self, name: str) -> Declaration:
        """The declaration registered under exactly ``name``."""
        try:
            return self._methods[name]
        except KeyError:
            raise PrefevalError(f"no method {name!r} is registered{self._hint(name)}") from None

    def lookup(self, spelling: str) -> tuple[Declaration, dict[str, Any]] | None:
        """``(declaration, fixed parameters)`` for a name or alias (any case), or ``None``."""
        found = self._spellings.get(spelling.strip().lower())
        return None if found is None else (self._methods[found[0]], dict(found[1]))

    def resolve(self, spelling: str) -> tuple[Declaration, dict[str, Any]]:
        """:meth:`lookup`, raising a :class:`PrefevalError` with close names for an unknown spelling."""
        found = self.lookup(spelling)
        if found is None:
            raise PrefevalError(f"unknown method {spelling!r}{self._hint(spelling)}; registered: "
                                f"{', '.join(self._methods)}")
        return found

    def _hint(self, spelling: str) -> str:
        import difflib  # deferred: error messages only

        names = {s: name for s, (name, _) in self._spellings.items()}
        close = difflib.get_close_matches(spelling.strip().lower(), list(names), n=3, cutoff=0.6)
        close = list(dict.fromkeys(names[c] for c in close))
        return f"; did you mean {', '.join(close)}?" if close else ""

    def __iter__(self) -> Iterator[Declaration]:
        return iter(list(self._methods.values()))

    def __contains__(self, name: object) -> bool:
        return name in self._methods


REGISTRY = Registry()
register = REGISTRY.register
unregister = REGISTRY.unregister
get = REGISTRY.get
resolve = REGISTRY.resolve
listen = REGISTRY.listen


def declarations(kind: Kind | None = None) -> list[Declaration]:
    """Registered declarations in registration order (only those of ``kind`` when given)."""
    return [d for d in REGISTRY if kind is None or d.kind == kind]


class MethodCall:
    """A registered method with parameters, as :func:`parse_call` reads it: what comparing runs needs of one of
    prefeval's methods (``NAME``, ``params`` as given, calling it with more parameters), without ir-measures.
    Written, compared and hashed as the ir-measures measure of the same text (``RPP(graded=False)@10``), so that it
    stands for that measure (e.g. ``str(call)`` parses back to it)."""

    def __init__(self, declaration: Declaration, params: Mapping[str, Any]) -> None:
        params = dict(params)
        for name, value in params.items():  # numbers converted as the measure classes do (p=1 is stored as p=1.0)
            if name in declaration.params:
                try:
                    params[name] = declaration.params[name].validate(name, value)
                except PrefevalError:
                    pass  # reported with the method's name by check()
        declaration.check(params)
        self.declaration, self.NAME, self.params = declaration, declaration.name, params

    def __call__(self, **params: Any) -> MethodCall:
        return MethodCall(self.declaration, {**self.params, **params})

    def __repr__(self) -> str:  # ir-measures' spelling: parameters other than the cutoff that differ from defaults
        declared = self.declaration.params
        shown = ",".join(f"{k}={v!r}" for k, v in self.params.items()
                         if k != "cutoff" and (k not in declared or v != declared[k].default))
        text = f"{self.NAME}({shown})" if shown else self.NAME
        return f"{text}@{self.params['cutoff']}" if "cutoff" in self.params else text

    def __eq__(self, other: object) -> bool:
        return hasattr(other, "NAME") and hasattr(other, "params") and repr(self) == repr(other)

    def __hash__(self) -> int:
        return hash(repr(self))

    def __reduce__(self) -> tuple[Any, tuple[str, dict[str, Any]]]:  # pickled by name (the kernels are lambdas)
        return _call, (self.NAME, self.params)


def _call(name: str, params: dict[str, Any]) -> MethodCall:
    """The :class:`MethodCall` of the method registered as ``name`` with ``params`` (unpickling)."""
    return MethodCall(get(name), params)


def parse_call(text: str) -> MethodCall | None:
    """``text`` -- a registered method's own name in ir-measures syntax (``Name``, ``Name(key=literal, ...)``,
    ``@k``) -- as a :class:`MethodCall`, when it is one with valid parameters; ``None`` otherwise (ir-measures' parser
    and the measure classes then tell what is wrong)."""
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    cutoff = None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        node, cutoff = node.left, _literal(node.right)
        if cutoff is None:
            return None
    params: dict[str, Any] = {}
    if isinstance(node, ast.Call):
        if node.args:
            return None
        for keyword in node.keywords:
            value = _literal(keyword.value)
            if keyword.arg is None or value is None:
                return None
            params[keyword.arg] = value
        node = node.func
    declaration = REGISTRY._methods.get(node.id) if isinstance(node, ast.Name) else None
    if declaration is None:
        return None
    if cutoff is not None:
        params["cutoff"] = cutoff
    try:
        return MethodCall(declaration, params)
    except PrefevalError:
        return None


def _literal(node: ast.AST) -> Any:
    """The value of a string, number or boolean literal; ``None`` for any other expression."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool)):
        return node.value
    return None


def declaration_of(measure: Any) -> Declaration | None:
    """The declaration behind an ir-measures measure object of prefeval (by its ``NAME``) or a
    :class:`MethodCall`, else ``None``."""
    if isinstance(measure, MethodCall):
        return measure.declaration if REGISTRY._methods.get(measure.NAME) is measure.declaration else None
    name = getattr(measure, "NAME", None)
    declaration = REGISTRY._methods.get(name) if isinstance(name, str) else None
    if declaration is None or getattr(type(measure), "DECLARATION", None) is not declaration:
        return None
    return declaration


def parameters(measure: Any) -> dict[str, Any]:
    """The parameters of a prefeval measure object, defaults filled in (``cutoff`` only when given)."""
    declaration = declaration_of(measure)
    if declaration is None:
        raise PrefevalError(f"{measure} is not one of prefeval's methods")
    return declaration.complete(measure.params)


def parse(text: str) -> tuple[Declaration, dict[str, Any]] | None:
    """``(declaration, parameters)`` for a method written ``Name``, ``Name@k`` or ``Name(key=value, ...)@k``
    (literal values, ir-measures syntax), with aliases resolved; ``None`` when ``Name`` is not registered.

    Parameters are validated; ``@k`` becomes ``cutoff``.
    """
    text, found, rest = _split_name(text)
    if found is None:
        return None
    declaration, params = found
    if rest.startswith("("):
        close = rest.find(")")
        if close < 0:
            raise PrefevalError(f"cannot parse method {text!r}: unbalanced parentheses")
        params.update(_keywords(rest[1:close], text))
        rest = rest[close + 1:].strip()
    if rest.startswith("@"):
        try:
            params["cutoff"] = int(rest[1:])
        except ValueError:
            raise PrefevalError(f"cannot parse method {text!r}: the cutoff after @ must be an integer") from None
    elif rest:
        raise PrefevalError(f"cannot parse method {text!r}")
    return declaration, declaration.check(params)


#: The longest text of a measure or method (the longest real ones have a few dozen characters).
MAX_MEASURE_TEXT = 1000


def canonical_text(text: str) -> str:
    """``text`` with an alias replaced by the method's name and the parameters the alias fixes
    (``"rrLP@10"`` -> ``"LexiPrecision(magnitude='rr')@10"``, ``"lexirecall"`` -> ``"LexiRecall"``);
    other text is returned unchanged. Text longer than :data:`MAX_MEASURE_TEXT` is refused (an error echoing it
    would be as long)."""
    if isinstance(text, str) and len(text) > MAX_MEASURE_TEXT:
        raise PrefevalError(f"a measure is at most {MAX_MEASURE_TEXT:,} characters; got {len(text):,} characters "
                            f"starting {text[:60]!r}")
    text, found, rest = _split_name(text)
    if found is None:
        return text
    declaration, fixed = found
    if fixed:
        args = ", ".join(f"{key}={value!r}" for key, value in fixed.items())
        if rest.startswith("("):
            inner = rest[1:].lstrip()
            rest = f"({args}" + ("" if inner.startswith(")") else ", ") + inner
        else:
            rest = f"({args}){rest}"
    return declaration.name + rest


def _split_name(text: str) -> tuple[str, tuple[Declaration, dict[str, Any]] | None, str]:
    """``text`` stripped, the registered method its name spells (``None``: not a method name) and the rest
    (``(...)`` and ``@k``)."""
    text = text.strip()
    head = text.split("(", 1)[0].split("@", 1)[0].strip()
    return text, REGISTRY.lookup(head), text[len(head):].strip()


def _keywords(inner: str, text: str) -> dict[str, Any]:
    try:
        call = ast.parse(f"f({inner})", mode="eval").body
        assert isinstance(call, ast.Call) and not call.args
        return {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
    except (SyntaxError, ValueError, AssertionError):
        raise PrefevalError(f"cannot parse method {text!r}: write parameters as key=value") from None
