"""``python -m vecscore``: the ``vecscore`` command."""
import sys

from vecscore.cli.main import main

sys.exit(main())
