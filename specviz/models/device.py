"""Device choice: CUDA, then Apple MPS, then CPU, with an override."""

from __future__ import annotations

import torch

from specviz.models.model_errors import ModelSettingError


def available_devices() -> list[str]:
    """Device names usable on this machine, best first."""
    names = []
    if torch.cuda.is_available():
        names.append("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        names.append("mps")
    names.append("cpu")
    return names


def pick_device(override: str | None = None) -> torch.device:
    """The override when given (and usable), else the best available device."""
    if override in (None, "", "auto"):
        return torch.device(available_devices()[0])
    device = torch.device(override)
    if device.type not in available_devices():
        raise ModelSettingError(f"device {override!r} is not available here "
                                f"(available: {', '.join(available_devices())})")
    return device


def model_dtype(device: torch.device) -> torch.dtype:
    """Half precision on a GPU (bfloat16 where CUDA supports it), FP32 on the CPU."""
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    if device.type == "mps":
        return torch.float16
    return torch.float32


def describe(device: torch.device) -> str:
    """A human-readable name for the device, e.g. 'cuda (NVIDIA H200)'."""
    if device.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(device)})"
    if device.type == "mps":
        return "mps (Apple GPU)"
    return f"cpu ({torch.get_num_threads()} threads)"
