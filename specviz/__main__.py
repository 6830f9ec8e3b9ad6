"""`python -m specviz ...`: the command line."""

from specviz.cli import main

raise SystemExit(main())
