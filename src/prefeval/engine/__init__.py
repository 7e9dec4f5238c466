"""The engine: :func:`~prefeval.engine.compare.compare` and :func:`~prefeval.engine.evaluate.evaluate`, in this
process or on a Dask cluster.

:mod:`prefeval.engine.partitions` cuts an evaluation by query (pandas only); :mod:`prefeval.engine.dask_engine`
runs the partitions on a Dask cluster; :mod:`prefeval.engine.registry` chooses where an evaluation runs.
``import prefeval`` does not import Dask: the engine imports it when it runs.
"""

from prefeval.core.lazy import submodules_on_access as _submodules_on_access

# `prefeval.<layer>.<module>` works after `import prefeval` alone (the module is imported on first access)
__getattr__ = _submodules_on_access(__name__, __path__)
