"""Drafts: parsing, prompt lookup, q shaping, tokenizer checks."""

from __future__ import annotations

import numpy as np
import pytest

from specviz.models.drafts import (
    DraftSpec,
    LookupDraft,
    TokenizerMismatchError,
    check_same_tokenizer,
    lookup_chain,
    lookup_token,
    parse_draft,
    shape_probs,
)


def test_parse_draft():
    assert parse_draft("early-exit:8") == DraftSpec("early-exit", layers=8)
    assert parse_draft("target:temperature=1.5,top_k=20") == DraftSpec("target", temperature=1.5, top_k=20)
    assert parse_draft("lookup") == DraftSpec("lookup", ngram=3)
    assert parse_draft("model:HuggingFaceTB/SmolLM2-135M").model == "HuggingFaceTB/SmolLM2-135M"
    assert parse_draft("bf16") == DraftSpec("bf16")
    for bad in ("early-exit:x", "magic", "target:foo=1", "model:", "bf16:2"):
        with pytest.raises(ValueError, match="bad draft"):
            parse_draft(bad)
    assert parse_draft(parse_draft("target:temperature=2,top_k=3").label()).temperature == 2


def test_lookup_token():
    assert lookup_token((1, 2, 3, 9, 1, 2, 3), 3) == 9  # trigram match
    assert lookup_token((7, 2, 3, 8, 5, 3), 3) == 8  # falls back to a unigram match
    assert lookup_token((1, 2, 3), 3) is None  # no match: nothing is invented
    assert lookup_token((4,), 2) is None
    q = LookupDraft(100, 2)((5, 6, 5))
    assert q.support_size == 1 and q.prob(6) == 1
    with pytest.raises(AssertionError, match="no n-gram match"):
        LookupDraft(100, 2)((1, 2, 3))


def test_lookup_chain_drafts_only_as_far_as_the_match_goes():
    assert lookup_chain((1, 2, 3, 4, 1, 2), 2, 5) == (3, 4, 1, 2, 3)
    assert lookup_chain((1, 2, 3, 4, 1, 2), 2, 2) == (3, 4)
    assert lookup_chain((1, 2, 3), 3, 5) == ()  # no match: the round will be a plain target sample
    assert LookupDraft(100, 3).plan((9, 8, 7, 9), 4) == (8, 7, 9, 8)


def test_shape_probs():
    probs = np.array([0.1, 0.4, 0.2, 0.3], dtype=np.float32)
    ids, weights = shape_probs(probs, top_k=2)
    assert ids.tolist() == [1, 3] and weights.tolist() == pytest.approx([0.4, 0.3])
    ids, _ = shape_probs(probs, top_p=0.65)
    assert ids.tolist() == [1, 3]
    ids, _ = shape_probs(probs)
    assert ids.tolist() == [0, 1, 2, 3]


def test_tokenizer_mismatch_is_refused(tiny, tmp_path):
    from specviz.models import load_model
    from specviz.models.tiny import save_tiny

    other = load_model(str(save_tiny(tmp_path / "small", arch="gpt2", vocab_size=1000)), "cpu")
    check_same_tokenizer(tiny, tiny)
    with pytest.raises(TokenizerMismatchError) as info:
        check_same_tokenizer(tiny, other)
    assert "50257" in str(info.value) and "1000" in str(info.value)


def test_refusals_are_specviz_errors_and_keep_their_builtin_bases():
    """Issue 27 item 3: the page tells a refusal (SpecvizError) from a bug by the class alone."""
    from specviz.core.errors import SpecvizError
    from specviz.models import ContextLengthError, ModelLoadError, ModelSettingError, TokenizerMismatchError

    assert issubclass(ModelLoadError, SpecvizError) and issubclass(ModelLoadError, RuntimeError)
    assert issubclass(TokenizerMismatchError, SpecvizError) and issubclass(TokenizerMismatchError, ValueError)
    assert issubclass(ModelSettingError, SpecvizError) and issubclass(ModelSettingError, ValueError)
    assert issubclass(ContextLengthError, SpecvizError)
    for text in ("magic", "lookup:0", "target:bogus=1", "early-exit:x"):
        with pytest.raises(ModelSettingError, match=f"bad draft {text!r}"):
            parse_draft(text)
