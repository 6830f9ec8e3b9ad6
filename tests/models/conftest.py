"""Fixtures: tiny models saved to disk (seconds), and the bundled SmolLM2 loaded once per session."""

from __future__ import annotations

import pytest

from specviz.models.tiny import save_tiny


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory):
    """A GPT-2-shaped model: vocabulary 50257, two layers, random weights."""
    return save_tiny(tmp_path_factory.mktemp("tiny-gpt2"), arch="gpt2")


@pytest.fixture(scope="session")
def tiny(tiny_dir):
    """The tiny GPT-2 loaded through the app's own loader."""
    from specviz.models import load_model

    return load_model(str(tiny_dir), "cpu")


@pytest.fixture(scope="session")
def tiny_llama_dir(tmp_path_factory):
    """A Llama-shaped tiny model (the SmolLM2 architecture), vocabulary 50257, two layers."""
    return save_tiny(tmp_path_factory.mktemp("tiny-llama"), arch="llama")


@pytest.fixture(scope="session")
def tiny_llama(tiny_llama_dir):
    from specviz.models import load_model

    return load_model(str(tiny_llama_dir), "cpu")


@pytest.fixture(scope="session")
def smollm2():
    """The bundled SmolLM2-135M-Instruct (Q4_1 GGUF), loaded once."""
    from specviz.models import load_model

    return load_model("smollm2", "cpu")
