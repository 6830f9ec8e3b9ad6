"""The app's JavaScript and CSS files: found, wrapped, and every placeholder filled."""

import json
import re

from specviz.app import assets
from specviz.app.playground import transport
from specviz.app.playground.session import Keys


def test_the_clicker_script_names_the_step_buttons_by_their_keys_and_the_bound_keys():
    tag = transport.clicker_script()
    assert tag.startswith("<script>") and tag.rstrip().endswith("</script>")
    assert f'STEP_BUTTON = "{Keys.forward}"' in tag and f'BACK_BUTTON = "{Keys.back}"' in tag
    assert not re.search(r"__[A-Z_]+__", tag), "a placeholder was left unfilled"
    assert f"STEP_KEYS = {json.dumps(list(transport.CLICKER_STEP))}" in tag
    assert f"BACK_KEYS = {json.dumps(list(transport.CLICKER_BACK))}" in tag
    assert {"PageDown", " ", "ArrowRight"} <= set(transport.CLICKER_STEP)
    assert {"PageUp", "ArrowLeft"} <= set(transport.CLICKER_BACK)
    assert "<iframe" not in tag and "window.parent" not in tag  # the top document's listener, not an iframe's


def test_the_presenter_style_is_a_style_element():
    tag = assets.style_tag("playground_presenter.css")
    assert tag.startswith("<style>") and tag.endswith("</style>") and "font-size: 1.3rem" in tag
