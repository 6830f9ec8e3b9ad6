"""The exactness lab page never says "no deviation" beside a nonzero distance."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

PAGE = str(Path(__file__).resolve().parents[2] / "views" / "exactness_lab.py")


@pytest.mark.parametrize("preset, shown", [("close", "skip_bonus"), ("p = q", "float32")])
def test_no_deviation_is_never_claimed_beside_a_distance(preset, shown):
    at = AppTest.from_file(PAGE, default_timeout=90).run()
    at.selectbox(key="lab_preset").set_value(preset).run()
    at.selectbox(key="lab_bug").set_value(shown).run()
    assert not at.exception
    assert not any("No deviation" in s.value for s in at.success)
    assert any("Where it deviates" in m.value for m in at.markdown)
