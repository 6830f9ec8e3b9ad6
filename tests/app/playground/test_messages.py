"""Failures on the page: a SpecvizError is a refused input, anything else a bug report (never "undo the last edit")."""

from streamlit.testing.v1 import AppTest


def run(kind: str) -> AppTest:
    def script():
        import streamlit as st

        from specviz.app.playground import messages
        from specviz.core import TopKError

        kind = st.session_state.get("kind")
        with messages.failures():
            st.write("before")
            if kind == "refusal":
                raise TopKError("draft top-k must be an int in 1..6, got 9")
            if kind == "bug":
                raise ZeroDivisionError("division by zero")
        st.write("the rest of the page")

    at = AppTest.from_function(script, default_timeout=30)
    at.session_state["kind"] = kind
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "the rest of the page" in [m.value for m in at.markdown]
    return at


def test_a_refusal_says_what_to_change():
    at = run("refusal")
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "Top-k is outside the vocabulary" in errors[0] and "1..6, got 9" in errors[0]
    assert "bug" not in errors[0] and not at.code


def test_a_bug_is_reported_as_one_with_a_line_to_copy():
    at = run("bug")
    errors = " ".join(e.value for e in at.error)
    assert "This is a bug in specviz" in errors and "Not a refused input" in errors
    assert "Unexpected error" not in errors and "undo the last edit" not in errors.lower()
    line = at.code[0].value
    assert line.startswith("ZeroDivisionError: division by zero (at ") and "\n" not in line


def test_a_part_that_works_shows_nothing_else():
    at = run("none")
    assert not at.error and "before" in [m.value for m in at.markdown]
