"""The engine: :func:`~prefeval.engine.compare.compare` and :func:`~prefeval.engine.evaluate.evaluate`, in this
process or on a Dask cluster.

:func:`prefeval.compare` is :mod:`prefeval.engine.compare`; its methods are parsed by :mod:`prefeval.engine.methods`,
each block of queries is evaluated by :mod:`prefeval.engine.blocks` into :mod:`prefeval.engine.results`, held by
:class:`~prefeval.engine.comparison.Comparison` with the significance of :mod:`prefeval.engine.significance`;
:mod:`prefeval.engine.memory` decides whether the per-query values are kept.
:mod:`prefeval.engine.partitions` cuts an evaluation by query (pandas only); :mod:`prefeval.engine.dask_engine`
runs the partitions on a Dask cluster; :mod:`prefeval.engine.registry` chooses where an evaluation runs.
``import prefeval`` does not import Dask: the engine imports it when it runs.
"""

from prefeval.core.lazy import lazy_attributes

# `prefeval.<layer>.<module>` works after `import prefeval` alone (the module is imported on first access)
__getattr__, __dir__ = lazy_attributes(__name__, __path__)
