"""``python -m redo_lib.synth``: the same as ``python -m redo_lib synth``."""

import sys

from redo_lib.synth.cli import main

sys.exit(main())
