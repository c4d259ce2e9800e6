"""``python -m redo_lib``: see ``redo_lib.cli``."""

import sys

from redo_lib.cli import main

sys.exit(main())
