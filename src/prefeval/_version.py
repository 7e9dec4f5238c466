"""The version of prefeval (one place, read by the package and by the pipeline reports)."""

__version__ = "0.1.0"
