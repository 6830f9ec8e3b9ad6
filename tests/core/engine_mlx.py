"""mlx-lm's speculative acceptance transcribed in Python, as an independent check of ``specviz.core.exact_match``.

Source: ml-explore/mlx-lm at 0024613, ``mlx_lm/generate.py``, ``speculative_generate_step``: one target pass over
the drafted tokens samples the target's own token at every position (``tokens, logprobs = _step(model,
model_cache, y, num_draft + 1)``, one ``sampler`` call per position), then

    n = 0
    while n < num_draft:
        tn, dtn, lpn = tokens[n], draft_tokens[n], logprobs[n]
        if tn != dtn:
            break
        n += 1
        ntoks += 1
        yield tn, lpn, True
        ...
    if ntoks < max_tokens:
        ntoks += 1
        yield tokens[n], logprobs[n], False

transcribed for one round (the ``max_tokens`` cap and the caches left out): the drafts kept while they equal the
target's samples, then the target's sample at the first mismatch, or after the last draft. The samples are passed
in (mlx-lm's sampler is not transcribed).
"""

from __future__ import annotations

from collections.abc import Sequence


def speculative_round(draft_tokens: Sequence[int], target_tokens: Sequence[int]) -> tuple[list[int], int]:
    """(the tokens the round yields, how many came from the draft) for len(draft) drafts and len(draft) + 1 samples."""
    if len(target_tokens) != len(draft_tokens) + 1:
        raise AssertionError("mlx-lm samples one target token per draft position and one after the last")
    yielded: list[int] = []
    n = 0
    while n < len(draft_tokens):
        tn, dtn = target_tokens[n], draft_tokens[n]
        if tn != dtn:
            break
        n += 1
        yielded.append(tn)
    yielded.append(target_tokens[n])
    return yielded, n
