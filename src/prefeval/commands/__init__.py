"""The ``prefeval`` program: :mod:`~prefeval.commands.cli` parses the command line and runs one subcommand
module (``eval_cmd``, ``compare_cmd``, ``run_cmd``, ...)."""

from prefeval.core.lazy import submodules_on_access as _submodules_on_access

# `prefeval.<layer>.<module>` works after `import prefeval` alone (the module is imported on first access)
__getattr__ = _submodules_on_access(__name__, __path__)
