"""Progress bars (tqdm on stderr) and step timings for pipeline runs."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from tqdm.auto import tqdm

T = TypeVar("T")


class Progress:
    """tqdm bars that can be switched off (``enabled=False``), and wall-clock time per stage."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.timings: dict[str, float] = {}

    def iterate(self, items: Iterable[T], desc: str, total: int | None = None, unit: str = "it") -> Iterator[T]:
        """Iterate over ``items`` with a bar labelled ``desc``."""
        yield from tqdm(items, desc=desc, total=total, unit=unit, disable=not self.enabled, leave=False,
                        dynamic_ncols=True)

    def bar(self, desc: str, total: int, unit: str = "it") -> Any:
        """A manual bar (call ``update(n)``; use as a context manager)."""
        return tqdm(desc=desc, total=total, unit=unit, disable=not self.enabled, leave=False, dynamic_ncols=True)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time a stage; the time is added to ``timings[name]``."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = self.timings.get(name, 0.0) + time.perf_counter() - start
