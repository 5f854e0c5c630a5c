"""``python -m vecscore.cli``."""
import sys

from vecscore.cli.main import main

sys.exit(main())
