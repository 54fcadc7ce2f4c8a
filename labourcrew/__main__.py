"""``python -m labourcrew``: see :mod:`labourcrew.cli`."""

import sys

from labourcrew.cli import main

sys.exit(main())
