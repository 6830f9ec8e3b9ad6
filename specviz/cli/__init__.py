"""The command line: `python -m specviz` and the `specviz` script.

`specviz generate "prompt" --model smollm2 --draft early-exit:8 ...` runs real models (``generate``);
`specviz play --preset "far apart" --rounds 3` narrates toy rounds from the same trace (``play``).
Every flag is read by ``args`` and refused in one line (exit status 2) before torch loads; ``parser``
lists the flags, ``terminal`` writes marked text, ``specviz.narration`` tells each event.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from .args import UsageError
from .export import cmd_export
from .generate import check_device, cmd_generate, cmd_race, generation_json
from .parser import build_parser
from .play import cmd_play
from .terminal import Progress, legend, marked_text

__all__ = ["Progress", "build_parser", "check_device", "cmd_generate", "cmd_play", "cmd_race", "generation_json",
           "legend", "main", "marked_text", "parse"]


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The validated arguments; raises UsageError (one line) for anything refused. Imports no torch."""
    return build_parser().parse_args(argv)


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Entry point of `python -m specviz` and the `specviz` script: exit status 2 for any refused argument."""
    out, err = out or sys.stdout, err or sys.stderr
    try:
        args = parse(argv)
    except UsageError as error:
        err.write(f"{error}\n")
        return 2
    try:
        if args.command == "generate":
            return cmd_generate(args, out, err)
        if args.command == "play":
            return cmd_play(args, out, err)
        if args.command == "export":
            return cmd_export(args, out, err)
    except BrokenPipeError:  # a reader such as `head` stopped reading: stop quietly, as other tools do
        if out is sys.stdout:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 1
    return 1
