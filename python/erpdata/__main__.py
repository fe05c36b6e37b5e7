"""``python -m erpdata``: the command line (see ``erpdata.cli``)."""

import sys

from .cli import main

sys.exit(main())
