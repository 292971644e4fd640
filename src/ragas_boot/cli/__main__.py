"""``python -m ragas_boot.cli``: the ``ragas-boot`` command line."""

import sys

from ragas_boot.cli import main

if __name__ == "__main__":
    sys.exit(main())
