"""Settings of the process when it is the ``prefeval`` program rather than a program that imports prefeval.

Made when the package is imported, before numpy loads: the command's numpy work is on small arrays in one thread,
so OpenBLAS (numpy's BLAS) starts no thread pool (``OPENBLAS_NUM_THREADS=1``; its start-up costs about 0.07 s, a
tenth of a ``prefeval compare`` of 14 runs), and with glibc every thread allocates from one malloc arena (as
``MALLOC_ARENA_MAX=1``): ``compare`` reads the next run file in a thread while it ranks the current one, and an
arena of that thread's own would keep its freed memory reserved beside the main one's (several MB at the peak).
A value the user set wins. A library user's process is left as it is.
"""

from __future__ import annotations

import os
import sys

#: file names of the ``prefeval`` script that pip installs (``[project.scripts]``)
SCRIPT_NAMES = ("prefeval", "prefeval.exe")


def is_command() -> bool:
    """Whether this process runs the ``prefeval`` program: the installed script, or ``python -m prefeval`` (while
    Python imports the package to find ``__main__``, ``sys.argv[0]`` is ``"-m"``)."""
    first = sys.argv[0] if getattr(sys, "argv", None) else ""
    return first == "-m" or os.path.basename(first) in SCRIPT_NAMES


def configure() -> None:
    """The settings of the module docstring, when :func:`is_command`."""
    if not is_command():
        return
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    one_malloc_arena()


def one_malloc_arena() -> None:
    """With glibc, let every thread allocate from one malloc arena (``mallopt(M_ARENA_MAX, 1)``) unless
    ``MALLOC_ARENA_MAX`` is set."""
    if "MALLOC_ARENA_MAX" in os.environ or not hasattr(os, "confstr"):
        return
    try:
        if not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
            return
        import ctypes  # deferred: only with glibc, only for the command

        ctypes.CDLL(None).mallopt(-8, 1)  # M_ARENA_MAX (malloc.h)
    except (OSError, ValueError, AttributeError):  # pragma: no cover  (no such name or option, no C library)
        pass
