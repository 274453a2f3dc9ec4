"""``python -m faro_pi``: the same commands as ``faro-pi``."""

import sys

from faro_pi.cli import main

sys.exit(main())
