"""``python -m gas.cli ...``: the ``gas`` command."""

import sys

from gas.cli.app import main

if __name__ == "__main__":
    sys.exit(main())
