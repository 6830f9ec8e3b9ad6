"""The Real models page's Generate against the command line, at the default preset, as a ratio.

    .venv/bin/python scripts/measure_real_models_page.py [--repeats 2] [--threads 2]

Loads the model once and hands it to both (so neither pays for loading), warms the cost-model
cache, then times, interleaved: `python -m specviz generate ... --race` in-process (`specviz.cli.main`)
and a click on Generate on the page under `streamlit.testing.v1.AppTest` (the script run that plays
both legs and renders the result). Prints each time and the ratio page / CLI of the fastest runs
(on a shared machine the slower runs measure the neighbours) and of the medians.
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
from streamlit.testing.v1 import AppTest  # noqa: E402

import specviz.models  # noqa: E402
from specviz.cli import main as cli_main  # noqa: E402
from specviz.models.model_presets import DEFAULT  # noqa: E402

PAGE = str(ROOT / "views" / "real_models.py")


def cli_args() -> list[str]:
    """The command line for the default preset's settings (the page's defaults)."""
    return ["generate", DEFAULT.prompt, "--model", "smollm2", "--draft", DEFAULT.draft, "--depth", str(DEFAULT.depth),
            "--temperature", str(DEFAULT.temperature), "--max-new-tokens", str(DEFAULT.max_new_tokens),
            "--seed", "1", "--race", "--color", "never"]


def time_cli() -> float:
    out, err = io.StringIO(), io.StringIO()
    began = time.perf_counter()
    code = cli_main(cli_args(), out=out, err=err)
    seconds = time.perf_counter() - began
    if code != 0 or "speedup:" not in out.getvalue():
        raise SystemExit(f"the command line failed: {err.getvalue()}")
    print(f"# command line: {out.getvalue().strip().splitlines()[-1]}", file=sys.stderr, flush=True)
    return seconds


def time_page() -> float:
    at = AppTest.from_file(PAGE, default_timeout=600)
    at.run()  # the page as a first visit shows it: the default preset, the model already in memory
    if at.exception:
        raise SystemExit(f"the page failed: {at.exception}")
    button = at.button(key="rm_generate")
    began = time.perf_counter()
    button.click().run()
    seconds = time.perf_counter() - began
    if at.exception or not any("speedup:" in s.value for s in [*at.success, *at.warning, *at.info]):
        raise SystemExit(f"Generate failed on the page: {at.exception}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    model = specviz.models.load_model("smollm2")
    specviz.models.load_model = lambda spec="smollm2", device=None, **kw: model  # both reuse the loaded model
    time_cli()  # warm-up: the cost model is measured once and cached, as on a user's machine
    cli, page = [], []
    for _ in range(args.repeats):
        cli.append(time_cli())
        page.append(time_page())
    print(f"command line --race: {', '.join(f'{s:.2f}' for s in cli)} s")
    print(f"page Generate (race): {', '.join(f'{s:.2f}' for s in page)} s")
    print(f"ratio page / command line: fastest {min(page) / min(cli):.2f}, "
          f"medians {statistics.median(page) / statistics.median(cli):.2f}")


if __name__ == "__main__":
    main()
