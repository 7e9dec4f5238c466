"""The ``prefeval`` program: :mod:`~prefeval.commands.cli` parses the command line and runs one subcommand
module (``eval_cmd``, ``compare_cmd``, ``run_cmd``, ...)."""

from prefeval.core.lazy import lazy_attributes

# `prefeval.<layer>.<module>` works after `import prefeval` alone (the module is imported on first access)
__getattr__, __dir__ = lazy_attributes(__name__, __path__)
