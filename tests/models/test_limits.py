"""The model's own limits: context length checked before generating, folders without config.json, n-gram bounds."""

from __future__ import annotations

import io

import pytest

from specviz.core.errors import SpecvizError
from specviz.models import GenerationSettings, ModelLoadError, Session, generate, load_model, parse_draft
from specviz.models.drafts import MAX_NGRAM, LookupDraft
from specviz.models.loading import check_before_load
from specviz.models.model_limits import ContextLengthError, check_context, context_limit, limit_before_load

LIMIT = 256  # the tiny models' n_positions / max_position_embeddings


def test_context_limit_reads_the_configs_own_field():
    assert context_limit({"n_positions": 1024}) == 1024
    assert context_limit({"max_position_embeddings": 8192, "n_positions": 3}) == 8192
    assert context_limit({"hidden_size": 3}) is None and context_limit(None) is None
    assert context_limit({"max_position_embeddings": True}) is None


def test_check_context_names_both_numbers_and_the_limit():
    check_context(10, 246, 256)
    check_context(10, 10**9, None)  # a config without a limit checks nothing
    with pytest.raises(ContextLengthError) as info:
        check_context(10, 300, 256, model="'m'")
    text = str(info.value)
    assert "10 tokens" in text and "(300)" in text and "310" in text and "256" in text and "at most 246" in text
    with pytest.raises(ContextLengthError, match="the prompt has 300 tokens.*context length is 256"):
        check_context(300, 1, 256)
    assert issubclass(ContextLengthError, SpecvizError) and issubclass(ContextLengthError, ValueError)


def test_loaded_models_know_their_limit(tiny, tiny_llama):
    assert tiny.context_length == LIMIT and tiny_llama.context_length == LIMIT


def test_a_generation_exactly_at_the_limit_runs_with_drafts(tiny):
    """prompt + max_new_tokens = limit: the draft depth adds nothing (the last rounds draft fewer tokens)."""
    prompt = tuple(range(1, 201))
    gen = generate(tiny, prompt, parse_draft("early-exit:1"),
                   GenerationSettings(depth=4, seed=1, max_new_tokens=LIMIT - 200, ignore_eos=True), top_n=None)
    assert len(gen.tokens) == LIMIT - 200


def test_beyond_the_limit_is_refused_before_generating(tiny):
    prompt = tuple(range(1, 201))
    with pytest.raises(ContextLengthError, match="200 tokens.*57.*257.*256"):
        Session(tiny, parse_draft("early-exit:1"), GenerationSettings(depth=4, max_new_tokens=57), prompt)
    with pytest.raises(ContextLengthError):
        Session(tiny, None, GenerationSettings(max_new_tokens=1), tuple(range(1, 300)))


def test_check_before_load_reads_config_json_only(tiny_dir, tmp_path):
    assert limit_before_load(str(tiny_dir)) == LIMIT
    check_before_load(str(tiny_dir), LIMIT - 1)
    with pytest.raises(ContextLengthError, match="max-new-tokens \\(256\\).*256"):
        check_before_load(str(tiny_dir), LIMIT)
    (tmp_path / "tokenizer.json").write_text("{}")
    with pytest.raises(ModelLoadError) as info:
        check_before_load(str(tmp_path), 8)
    text = str(info.value)
    assert "has no config.json" in text and "model folder needs config.json" in text and "\n" not in text
    assert "sentencepiece" not in text and "tiktoken" not in text


def test_a_folder_without_config_json_says_so(tmp_path):
    (tmp_path / "model.safetensors").write_bytes(b"")
    with pytest.raises(ModelLoadError, match="the folder has no config.json; a model folder needs config.json"):
        load_model(str(tmp_path))


def test_lookup_ngram_bounds_in_the_parser_the_draft_and_the_cli():
    from specviz.cli import args as cli_args

    assert cli_args.MAX_NGRAM == MAX_NGRAM  # the flag parser cannot import models (torch) yet agrees
    assert parse_draft(f"lookup:{MAX_NGRAM}").ngram == MAX_NGRAM
    for bad in ("lookup:0", f"lookup:{MAX_NGRAM + 1}", "lookup:99999999999999"):
        with pytest.raises(ValueError, match=f"1..{MAX_NGRAM}"):
            parse_draft(bad)
    with pytest.raises(ValueError, match=f"1..{MAX_NGRAM}"):
        LookupDraft(100, MAX_NGRAM + 1)
    assert cli_args.read_draft(f"lookup:{MAX_NGRAM}").fields["ngram"] == MAX_NGRAM  # the same bound
    with pytest.raises(Exception, match=f"1..{MAX_NGRAM}"):
        cli_args.read_draft(f"lookup:{MAX_NGRAM + 1}")


def test_cli_refuses_max_new_tokens_beyond_the_folder_limit_before_loading(tiny_dir, monkeypatch):
    from specviz import cli

    monkeypatch.setattr("specviz.models.load_model", lambda *a, **k: pytest.fail("loaded the model"))
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["generate", "w1 w2", "--model", str(tiny_dir), "--max-new-tokens", "5000"], out=out, err=err)
    line = err.getvalue()
    assert code == 2 and line.count("\n") == 1 and "--max-new-tokens: '5000'" in line and "1..255" in line
    assert "256 tokens" in line
