"""``python -m tutor``: the same as the ``tutor`` command."""
import sys

from tutor.cli.main import main

sys.exit(main())
