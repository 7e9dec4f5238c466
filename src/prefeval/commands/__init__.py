"""The ``prefeval`` program: :mod:`~prefeval.commands.cli` parses the command line and runs one subcommand
module (``eval_cmd``, ``compare_cmd``, ``run_cmd``, ...)."""
