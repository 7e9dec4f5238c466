"""``python -m prefeval``: the ``prefeval`` command.

The guard matters: a local Dask cluster (``--engine dask``) starts its worker processes by importing the main
module again, which must not run the command once more in each of them.
"""

import sys

from prefeval.commands.cli import main

if __name__ == "__main__":
    sys.exit(main())
