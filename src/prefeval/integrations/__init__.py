"""prefeval inside other tools: measures and provider for ir-measures, PyTerrier and ranx, optional extras."""

from prefeval.core.lazy import submodules_on_access as _submodules_on_access

# `prefeval.<layer>.<module>` works after `import prefeval` alone (the module is imported on first access)
__getattr__ = _submodules_on_access(__name__, __path__)
