"""Where a --model value points, and what can be refused before a model loads: no torch here.

``resolve`` turns a spec into a folder (or hub id) and a .gguf file name; ``check_before_load`` refuses, in
milliseconds, what is known ahead: a bundled model whose package is missing, a folder without config.json,
and max_new_tokens beyond the context length a bundled model's facts, a .gguf header or a config.json give.
Importing this module imports neither torch nor transformers (the command line refuses a flag in well
under a second).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from specviz.models.bundled import Bundled, bundled, gguf_context_length, model_file
from specviz.models.model_errors import ModelLoadError
from specviz.models.model_limits import MODEL_FOLDER_NEEDS, check_context, limit_before_load

Stage = Callable[[str, float], None]


def resolve(spec: str, stage: Stage | None = None) -> tuple[str, str | None]:
    """Turn a model spec into (folder-or-hub-id, gguf file name or None); a bundled name gives its file (Gemma's
    assembled into the cache folder on first use)."""
    named = bundled(spec)
    if named is not None:
        path = model_file(named, stage)
        return str(path.parent), path.name
    path = Path(spec).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        return str(path.parent), path.name
    if path.is_dir() and not (path / "config.json").is_file():
        ggufs = sorted(path.glob("*.gguf"))
        if len(ggufs) == 1:
            return str(path), ggufs[0].name
        if ggufs:
            raise ModelLoadError(f"Could not load model {spec!r}: the folder holds {len(ggufs)} .gguf files and no "
                                 f"config.json; name one file, e.g. {str(ggufs[0])!r}")
        raise ModelLoadError(f"Could not load model {spec!r}: the folder has no config.json; {MODEL_FOLDER_NEEDS}")
    if path.suffix == ".gguf" or spec.startswith((".", "/", "~")):
        if not path.exists():
            raise ModelLoadError(f"No such model file or folder: {spec}")
    return spec, None


def context_before_load(spec: str) -> int | None:
    """The context length known before loading (a bundled model's, a .gguf header's, a folder's config.json),
    or None; a bundled model whose package is missing is refused (ModelLoadError naming the install line)."""
    named = bundled(spec)
    if named is not None:
        if not named.installed():
            raise named.missing()
        return named.context_length
    where, gguf_file = resolve(spec)
    return gguf_context_length(Path(where) / gguf_file) if gguf_file else limit_before_load(where)


def check_before_load(spec: str, max_new_tokens: int) -> Bundled | None:
    """Refuse, before any model loads or any file is assembled, what is known ahead (ModelLoadError,
    ContextLengthError): a missing bundled package, a folder without config.json, or max_new_tokens beyond the
    context length (with the shortest prompt, one token). The full check (with the prompt) runs when a Session
    starts. Returns the bundled model the spec names, if any.
    """
    named = bundled(spec)
    check_context(1, max_new_tokens, context_before_load(spec), model=repr(named.name if named else spec))
    return named
