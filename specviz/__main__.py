"""`python -m specviz ...`: the command line (a Ctrl-C while it starts up is one line too, exit status 130)."""

import sys

try:
    from specviz.cli import main

    status = main()
except KeyboardInterrupt:
    sys.stderr.write("specviz: interrupted (Ctrl-C)\n")
    status = 130
raise SystemExit(status)
