"""The app's JavaScript and CSS files: found, wrapped, and every placeholder filled."""

from specviz.app import assets
from specviz.app.playground_state import Keys


def test_the_clicker_script_names_the_step_buttons_by_their_keys():
    tag = assets.script_tag("playground_keys.js", KEY_FORWARD=Keys.forward, KEY_BACK=Keys.back)
    assert tag.startswith("<script>") and tag.rstrip().endswith("</script>")
    assert f'key = "{Keys.forward}"' in tag and f'key = "{Keys.back}"' in tag
    assert "__KEY_FORWARD__" not in tag and "__KEY_BACK__" not in tag


def test_the_presenter_style_is_a_style_element():
    tag = assets.style_tag("playground_presenter.css")
    assert tag.startswith("<style>") and tag.endswith("</style>") and "font-size: 1.3rem" in tag
