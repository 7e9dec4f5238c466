"""The engine: :func:`~prefeval.engine.compare.compare` and :func:`~prefeval.engine.evaluate.evaluate`, in this
process or on a Dask cluster.

:mod:`prefeval.engine.partitions` cuts an evaluation by query (pandas only); :mod:`prefeval.engine.dask_engine`
runs the partitions on a Dask cluster; :mod:`prefeval.engine.registry` chooses where an evaluation runs.
``import prefeval`` does not import Dask: the engine imports it when it runs.
"""
