import sys

from prefeval.cli import main

sys.exit(main())
