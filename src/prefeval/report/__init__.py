"""Rendering of results: text tables, Markdown, LaTeX, CSV, JSON and HTML."""

from prefeval.core.lazy import lazy_attributes

# `prefeval.<layer>.<module>` works after `import prefeval` alone (the module is imported on first access)
__getattr__, __dir__ = lazy_attributes(__name__, __path__)
