"""Engines that run :func:`prefeval.compare` and :func:`prefeval.evaluate` elsewhere than in this process.

:mod:`prefeval.engines.partitions` cuts an evaluation by query (pandas only); :mod:`prefeval.engines.dask_engine`
runs the partitions on a Dask cluster. ``import prefeval`` does not import Dask: the engine imports it when it runs.
"""
