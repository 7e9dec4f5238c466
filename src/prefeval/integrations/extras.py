"""Optional dependencies ("extras") and the error messages that name them.

Some features need packages that not every user wants: ir-measures' diversity measures (ERR_IA, alpha_nDCG,
NRBP, P_IA, AP_IA, StRecall: pyndeval) and RBP (cwl-eval) need ``pip install 'prefeval[diversity]'``; plots
need ``pip install 'prefeval[plot]'``. A feature used without its extra fails with a message naming it
(:data:`prefeval.methods.checks.EXTRAS`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import ir_measures

from prefeval.errors import PrefevalError
from prefeval.methods.checks import EXTRAS, install_hint
from prefeval.methods.measures import parse_measure


def check_measures(measures: Iterable[Any], feature: str) -> None:
    """Raise :class:`PrefevalError` naming the extra to install if a measure has no available ir-measures
    provider but an optional one would support it."""
    missing: dict[str, list[str]] = {}
    for measure in measures:
        try:
            if isinstance(measure, str):
                measure = parse_measure(measure)
            candidates = [p for p in ir_measures.DefaultPipeline.providers if p.supports(measure)]
        except Exception:  # not an ir-measures measure (a preference method, a callable): not ours to judge
            continue
        if candidates and not any(p.is_available() for p in candidates):
            for p in candidates:
                if p.NAME in EXTRAS:
                    missing.setdefault(p.NAME, []).append(str(measure))
    for name, names in missing.items():
        raise PrefevalError(f"{feature}: {', '.join(names)} need the optional package {name}; "
                            f"install it with {install_hint(name)}")
