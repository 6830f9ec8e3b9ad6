"""deploy/worker.py: the libraries are imported (the models and torch are not) and frozen out of the GC."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import gc, sys
from deploy import worker
failed = worker.preimport()
frozen = worker.freeze()
print(repr(failed), frozen > 10_000, gc.get_freeze_count() == frozen,
      "specviz.playground" in sys.modules, "specviz.models" in sys.modules, "torch" in sys.modules)
"""


def test_preimport_loads_the_app_libraries_but_not_the_models_or_torch_and_freezes_them():
    # a fresh interpreter: the test session has imported things of its own
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[]", "True", "True", "True", "False", "False"], out.stdout + out.stderr
