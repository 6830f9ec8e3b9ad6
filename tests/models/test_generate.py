"""The round loop on a tiny model: traces, determinism, early exit at full depth, origins and statistics."""

from __future__ import annotations

import numpy as np
import pytest

from specviz.models import (
    DraftSpec,
    GenerationSettings,
    ModelSettingError,
    Session,
    TokenizerMismatchError,
    generate,
    load_model,
    parse_draft,
)
from specviz.models.lm import CausalLM
from specviz.models.stats import format_summary, summarize
from specviz.models.tiny import save_tiny

PROMPT = "w1 w2 w3 w1 w2"


def _run(model, draft: str, **settings):
    return generate(model, PROMPT, parse_draft(draft), GenerationSettings(**{"max_new_tokens": 12, **settings}),
                    keep_raw=True)


def test_trace_records_every_step(tiny):
    gen = _run(tiny, "early-exit:1", depth=3, seed=3)
    assert len(gen.tokens) == 12 and len(gen.origins) == 12
    for record in gen.rounds:
        kinds = [e.kind for e in record.trace.events]
        assert kinds[: len(record.drafted)] == ["draft"] * len(record.drafted)
        assert kinds[-1] == "result" and "check" in kinds
        if record is not gen.rounds[-1]:  # the last round may be cut at max_new_tokens
            assert record.origins[-1] in ("correction", "bonus")
        assert record.events is not None and record.events[-1]["kind"] == "result"
        assert record.target_forwards == 1 and record.draft_target_forwards == 0
    assert {"accepted", "correction"} <= set(gen.origins)


def test_trace_p_is_the_target_softmax_at_that_prefix(tiny_llama):
    gen = _run(tiny_llama, "early-exit:1", depth=2, seed=5, max_new_tokens=6)
    cold = CausalLM(tiny_llama.model, tiny_llama.vocab_size, tiny_llama.device)
    checks = [e for r in gen.rounds for e in r.trace.events if e.kind in ("check", "bonus")]
    assert checks
    for event in checks:
        np.testing.assert_allclose(event.p.to_numpy(), cold.probs_uncached(event.prefix), rtol=1e-4, atol=1e-6)


def test_same_seed_same_tokens(tiny):
    a = _run(tiny, "early-exit:1", seed=11)
    b = _run(tiny, "early-exit:1", seed=11)
    c = _run(tiny, "early-exit:1", seed=12)
    assert a.tokens == b.tokens and a.origins == b.origins
    assert a.tokens != c.tokens


def test_early_exit_at_full_depth_accepts_everything(tiny):
    """q = p holds on any CPU: the draft reads the very pass the verifier reads (no second kernel, no batch shape)."""
    from fractions import Fraction

    gen = _run(tiny, f"early-exit:{tiny.n_layers}", depth=4, seed=2, max_new_tokens=15)
    summary = summarize(gen, 4)
    assert summary.accepted == summary.drafted > 0
    assert summary.corrections == 0 and set(gen.origins) == {"accepted", "bonus"}
    checks = [e for r in gen.rounds for e in r.trace.events if e.kind == "check"]
    assert checks and all(e.p == e.q and e.acceptance == Fraction(1) for e in checks)  # exact, not float
    assert all(a == 1.0 for r in gen.rounds for a in r.alphas)  # alpha_of compares exactly before any float sum
    assert summary.tokens_per_round == 5.0


def test_alpha_is_a_correctly_rounded_sum_whatever_the_cpu():
    """The float alpha statistic does not depend on numpy's vectorised summation order."""
    import math

    from specviz.core import fp32_weights
    from specviz.models.round_loop import alpha_np, alpha_of

    rng = np.random.default_rng(0)
    weights = rng.random(50257).astype(np.float32)
    p = fp32_weights(50257, range(50257), weights)
    q = fp32_weights(50257, range(50257), weights[::-1].copy())
    assert alpha_of(p, p) == 1.0 and alpha_of(p, fp32_weights(50257, range(50257), weights)) == 1.0
    overlap = np.minimum(p.to_numpy(), q.to_numpy())
    assert alpha_of(p, q) == alpha_np(p.to_numpy(), q.to_numpy()) == math.fsum(overlap.tolist())
    assert alpha_np(p.to_numpy()[::-1].copy(), q.to_numpy()[::-1].copy()) == alpha_of(p, q)  # order-free


def test_target_reprocessed_identically_accepts_everything(tiny):
    gen = _run(tiny, "target", depth=3, seed=4, top_k=50)
    assert "correction" not in gen.origins


def test_prompt_lookup_and_target_top_k_top_p(tiny):
    gen = _run(tiny, "lookup:2", depth=2, seed=1, top_k=40, top_p=0.9, temperature=0.8)
    assert len(gen.tokens) == 12
    for record in gen.rounds:
        for event in record.trace.events:
            if event.kind == "check":
                assert event.q.support_size == 1 and event.p.support_size <= 40


def test_draft_top_k_cuts_q(tiny):
    gen = _run(tiny, "early-exit:1", depth=2, seed=1, draft_top_k=5)
    qs = [e.q for r in gen.rounds for e in r.trace.events if e.kind == "draft"]
    assert qs and all(q.support_size == 5 for q in qs)


def test_second_model_draft(tiny, tmp_path):
    same = load_model(str(save_tiny(tmp_path / "twin", arch="gpt2", seed=1)), "cpu")
    gen = generate(tiny, PROMPT, DraftSpec("model", model="twin"), GenerationSettings(max_new_tokens=6),
                   draft_model=same)
    assert len(gen.tokens) == 6
    other = load_model(str(save_tiny(tmp_path / "other", arch="gpt2", vocab_size=500)), "cpu")
    with pytest.raises(TokenizerMismatchError):
        Session(tiny, DraftSpec("model", model="other"), GenerationSettings(), PROMPT, draft_model=other)


def test_stop_token_ends_generation(tiny):
    session = Session(tiny, parse_draft("early-exit:1"), GenerationSettings(max_new_tokens=50, seed=1), PROMPT)
    session.stop_ids = frozenset(range(tiny.vocab_size))  # any token stops
    session.verifier.stop_ids = session.stop_ids
    gen = session.run()
    assert gen.stopped and len(gen.tokens) == 1


def test_summary(tiny):
    gen = _run(tiny, "early-exit:1", depth=3, seed=6, max_new_tokens=20)
    s = summarize(gen, 3)
    assert s.tokens == 20 and s.rounds == len(gen.rounds)
    assert s.reached[0] == s.rounds and s.accepted == sum(s.accepted_at)
    assert all(0 <= a <= 1 for a in s.alpha_by_position if a is not None)
    assert s.tokens_per_target_forward == pytest.approx(20 / s.target_forwards)
    assert set(s.time_s) == {"draft_forward_s", "draft_exact_s", "target_forward_s", "verify_s"}
    assert "tokens per target verification pass" in format_summary(s)
    assert s.to_dict()["device"].startswith("cpu")


def test_depth_outside_the_core_range_is_refused(tiny):
    with pytest.raises(ValueError, match="depth"):
        Session(tiny, parse_draft("lookup"), GenerationSettings(depth=9), PROMPT)


def test_q_equals_p_counts_verification_passes_apart_from_drafting(tiny):
    gen = _run(tiny, f"early-exit:{tiny.n_layers}", depth=4, seed=2, max_new_tokens=15)
    s = summarize(gen, 4)
    assert s.target_forwards == s.rounds  # one verification pass per round (the bonus position)
    assert s.tokens_per_target_forward == pytest.approx(5.0)  # depth + 1 tokens per verification pass
    assert s.drafting_forwards == 4 * s.rounds  # every draft step was a full target pass
    assert "spent drafting" in format_summary(s)


def test_lookup_drafts_only_on_a_match_and_otherwise_samples_the_target(tiny):
    prompt = (1, 2, 3, 4, 5, 6, 7, 8)  # no repeated token: no n-gram match at first
    session = Session(tiny, parse_draft("lookup:3"), GenerationSettings(depth=4, seed=5, max_new_tokens=10), prompt,
                      keep_raw=True)
    gen = session.run()
    assert gen.rounds[0].plain and gen.rounds[0].drafted == () and gen.origins[0] == "target"
    for record in gen.rounds:
        prefix = record.trace.events[0].prefix
        planned = session.draft.plan(prefix, 4)
        if record.plain:
            assert [e.kind for e in record.trace.events] in (["bonus", "result"], ["bonus", "stop", "result"])
            assert record.origins == ("target",) and record.target_forwards == 1
        else:
            assert record.drafted == planned[: len(record.drafted)] and len(planned) >= 1
    s = summarize(gen, 4)
    assert s.plain_rounds == sum(r.plain for r in gen.rounds) >= 1
    assert s.drafted == sum(len(r.drafted) for r in gen.rounds)


def test_plain_sampling_is_reproducible_by_seed_and_uses_the_exact_core(tiny):
    a = generate(tiny, PROMPT, None, GenerationSettings(max_new_tokens=8, seed=4), keep_raw=True)
    b = generate(tiny, PROMPT, None, GenerationSettings(max_new_tokens=8, seed=4))
    c = generate(tiny, PROMPT, None, GenerationSettings(max_new_tokens=8, seed=5))
    assert a.tokens == b.tokens != c.tokens
    assert set(a.origins) == {"target"} and all(r.plain and r.target_forwards == 1 for r in a.rounds)
    bonus = a.rounds[0].trace.events[0]
    assert bonus.kind == "bonus" and bonus.p.total == bonus.draw_range  # an integer-ticket draw from p


def test_the_verifier_is_chosen_in_one_place(tiny):
    from specviz.core import Verifier
    from specviz.core.errors import VerificationError
    from specviz.core.verification import rule
    from specviz.models.round_loop import verifier_class

    assert rule("token").verifier_class is Verifier and verifier_class(GenerationSettings()) is Verifier
    assert type(Session(tiny, parse_draft("lookup"), GenerationSettings(), PROMPT).verifier) is Verifier
    with pytest.raises(VerificationError, match="verification must be one of .*got 'nope'"):
        Session(tiny, parse_draft("lookup"), GenerationSettings(verification="nope"), PROMPT)
    with pytest.raises(VerificationError, match="'greedy-draft'.*evaluated by theory only"):
        Session(tiny, parse_draft("lookup"), GenerationSettings(verification="greedy-draft"), PROMPT)
    from specviz.core.exact_match import ExactMatchVerifier

    assert type(Session(tiny, parse_draft("lookup"), GenerationSettings(verification="exact-match"),
                        PROMPT).verifier) is ExactMatchVerifier


def test_tree_rules_run_on_real_models_and_theory_only_rules_are_refused_in_words(tiny):
    from specviz.core import TreeVerifier
    from specviz.core.errors import VerificationError
    from specviz.models.round_loop import verifier_class

    assert verifier_class(GenerationSettings(verification="multi:2")) is TreeVerifier
    with pytest.raises(VerificationError, match="'greedy-draft'.*evaluated by theory only.*'multi-distinct:K'"):
        verifier_class(GenerationSettings(verification="greedy-draft"))
    with pytest.raises(ModelSettingError, match=r"early-exit draft drafts a full tree of 363 nodes per round "
                                                r"\(3\^1 \+ 3\^2 \+ 3\^3 \+ 3\^4 \+ 3\^5\); real models score at most "
                                                r"120 nodes in one pass"):
        Session(tiny, parse_draft("early-exit:1"), GenerationSettings(depth=5, verification="multi:3"), PROMPT)
    with pytest.raises(ModelSettingError, match="depth must be a whole number in 1..5, got 0"):
        Session(tiny, parse_draft("lookup"), GenerationSettings(depth=0), PROMPT)


def test_block_verification_runs_on_the_same_target_pass(tiny):
    from specviz.core import BlockVerifier
    from specviz.models.event_data import event_views
    from specviz.models.round_loop import verifier_class

    assert verifier_class(GenerationSettings(verification="block")) is BlockVerifier
    gen = _run(tiny, "early-exit:1", depth=3, seed=3, verification="block")
    again = _run(tiny, "early-exit:1", depth=3, seed=3, verification="block")
    assert gen.tokens == again.tokens and len(gen.tokens) == 12
    for record in gen.rounds:
        kinds = [e.kind for e in record.trace.events]
        assert "block_decision" in kinds and "check" not in kinds
        assert kinds.count("block_check") == len(record.drafted)
        assert record.target_forwards == 1  # block verification reads the one prefetched pass
        decision = record.trace.of_kind("block_decision")[0]
        assert record.accepted == decision.accepted_drafts
        assert len(record.alphas) == len(record.drafted)
        views = event_views(record.trace, 5)
        assert {v["kind"] for v in views} >= {"block_check", "block_decision"}


def test_block_verification_with_q_equal_p_keeps_every_draft(tiny):
    gen = _run(tiny, f"early-exit:{tiny.n_layers}", depth=4, seed=2, max_new_tokens=15, verification="block")
    summary = summarize(gen, 4)
    assert summary.accepted == summary.drafted > 0 and summary.corrections == 0


def test_paired_expected_accepted_reads_the_block_runs_own_blocks(tiny):
    from fractions import Fraction

    from specviz.core.block_verifier import tau_distribution
    from specviz.models.stats import paired_expected_accepted

    gen = _run(tiny, "early-exit:1", depth=3, seed=3, verification="block")
    token, block, blocks = paired_expected_accepted(gen)
    assert blocks == sum(1 for r in gen.rounds if r.drafted)
    first = gen.rounds[0].trace
    a = [min(Fraction(1), e.p_token / e.q_token) for e in first.of_kind("block_check")]
    taus = tau_distribution(first.of_kind("block_decision")[0].stop_probabilities)
    assert 0 <= token <= 3 and 0 <= block <= 3
    one = paired_expected_accepted(type(gen)(gen.prompt_ids, rounds=[gen.rounds[0]]))
    assert one[0] == a[0] + a[0] * a[1] + a[0] * a[1] * a[2] and one[1] == sum(i * w for i, w in enumerate(taus))
    assert paired_expected_accepted(_run(tiny, "early-exit:1", depth=3, seed=3)) is None  # tokenwise: no block trace


@pytest.mark.parametrize("verification, shape", [("ensemble:0.5", "chain"), ("threshold:0.5,0.8", "chain"),
                                                  ("threshold:1,1,2", "tree"), ("typical:0.09", "chain")])
def test_the_engine_rules_run_on_a_real_model_one_target_pass_a_round(tiny_llama, verification, shape):
    gen = _run(tiny_llama, "early-exit:1", verification=verification, depth=3)
    drafting = [r for r in gen.rounds if not r.plain]
    assert drafting and {r.shape for r in drafting} == {shape}
    assert all(r.target_forwards == 1 for r in gen.rounds)
    assert gen.verification == verification and len(gen.tokens) == 12
    kinds = {e.kind for r in gen.rounds for e in r.trace.events}
    assert kinds & {"check", "threshold_check"}  # the rule's own checks, recorded into the same trace
