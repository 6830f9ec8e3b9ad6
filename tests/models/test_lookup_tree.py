"""Prompt lookup as a width-K tree on the tiny models: candidates, refusals, the chain at width 1, p at every node."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from specviz.core.errors import BlockError, VerificationError
from specviz.core.tree import TreeVerifier
from specviz.models import GenerationSettings, ModelSettingError, Session, parse_draft
from specviz.models.drafts import lookup_token
from specviz.models.lm import CausalLM
from specviz.models.lookup_tree import LookupTreeDraft, lookup_candidates

# w1 w2 is followed by w3, w4 and w5: three candidates at the root, most recent first
PROMPT = "w1 w2 w3 w1 w2 w4 w1 w2 w5 w1 w2"


def _ids(text: str) -> tuple[int, ...]:
    return tuple(int(word[1:]) for word in text.split())


def _tree(model, width: int, distinct: bool = True, **settings):
    rule = f"multi-distinct:{width}" if distinct else f"multi:{width}"
    base = {"depth": 3, "seed": 5, "max_new_tokens": 12, "ignore_eos": True, "verification": rule, **settings}
    return Session(model, parse_draft("lookup:2"), GenerationSettings(**base), PROMPT, keep_raw=True)


def test_candidates_longest_suffix_then_recency_without_repeats():
    prefix = _ids(PROMPT)
    assert lookup_candidates(prefix, 2, 4) == (5, 4, 3)  # latest match first; fewer than the width exist
    assert lookup_candidates(prefix, 2, 2) == (5, 4)  # cut at the width
    assert lookup_candidates(prefix, 2, 1) == (5,)  # width 1: lookup_token's token
    assert lookup_candidates((1, 2, 3, 1, 2, 3, 1, 2), 2, 3) == (3,)  # two matches, one distinct follower
    # the trigram (7, 1, 2) matches once: shorter suffixes' followers (3, 9) are not mixed in
    assert lookup_candidates((1, 2, 3, 7, 1, 2, 9, 1, 2, 8, 7, 1, 2), 3, 4) == (9,)
    assert lookup_candidates((1, 2, 3), 3, 2) == ()
    q = LookupTreeDraft(100, 2, 3)(prefix)
    assert q.support_size == 3 and all(q.prob(t) == q.prob(5) for t in (3, 4, 5))
    with pytest.raises(AssertionError, match="no n-gram match"):
        LookupTreeDraft(100, 2, 3)((1, 2, 3))


@pytest.mark.parametrize("width", [0, 5, True, 2.0, "2"])
def test_width_outside_one_to_four_is_refused(width):
    with pytest.raises(BlockError, match=r"lookup tree width \(candidates per node\) must be an int in 1\.\.4"):
        LookupTreeDraft(100, 2, width)
    with pytest.raises(BlockError, match=f"got {width!r}"):  # issue 25: width 0 returned 3 candidates
        lookup_candidates(_ids(PROMPT), 2, width)


def test_ngram_outside_its_bounds_and_a_too_wide_tree_are_refused(tiny):
    with pytest.raises(ModelSettingError, match="lookup:N must be a whole number in 1..8, got 9"):
        LookupTreeDraft(100, 9, 2)
    with pytest.raises(ModelSettingError, match=r"'multi:5': real models draft trees of width K in 1..4, got K = 5"):
        _tree(tiny, 5, distinct=False)
    with pytest.raises(VerificationError, match="K must be a whole number in 1..8"):
        _tree(tiny, 9)
    session = _tree(tiny, 2)
    assert session.rule.name == "multi-distinct:2" and isinstance(session.draft, LookupTreeDraft)
    assert session.label == "lookup:2" and isinstance(session.verifier, TreeVerifier)


@given(st.lists(st.integers(0, 4), min_size=1, max_size=30), st.integers(1, 4), st.integers(1, 4))
def test_candidates_are_distinct_followers_of_one_suffix_length(tokens, ngram, width):
    prefix = tuple(tokens)
    found = lookup_candidates(prefix, ngram, width)
    first = lookup_token(prefix, ngram)
    assert (found[:1] or (None,))[0] == first and len(set(found)) == len(found) <= width
    lengths = [n for n in range(min(ngram, len(prefix) - 1), 0, -1)
               if any(prefix[s:s + n] == prefix[len(prefix) - n:] for s in range(len(prefix) - n))]
    if found:
        n = lengths[0]  # the longest suffix with an earlier match, as lookup_token's
        followers = [prefix[s + n] for s in range(len(prefix) - n - 1, -1, -1) if prefix[s:s + n] == prefix[-n:]]
        assert found == tuple(dict.fromkeys(followers))[:width]  # most recent first, no repeats


def test_width_one_is_the_chain_path_token_for_token(tiny):
    """Width 1: the same one-hot q, the same proposal draws, tokenwise draw for draw, one target pass per round."""
    drafting = 0
    for seed in range(1, 7):
        settings = GenerationSettings(depth=3, seed=seed, max_new_tokens=10, ignore_eos=True)
        chain = Session(tiny, parse_draft("lookup:2"), settings, PROMPT, keep_raw=True).run()
        tree = _tree(tiny, 1, seed=seed, max_new_tokens=10).run()
        assert tree.tokens == chain.tokens and tree.origins == chain.origins
        for a, b in zip(chain.rounds, tree.rounds, strict=True):
            assert (a.drafted, a.accepted, a.target_forwards) == (b.drafted, b.accepted, b.target_forwards)
            assert [e.draw for e in a.trace.of_kind("check")] == [e.draw for e in b.trace.of_kind("tree_check")]
        drafting += sum(not r.plain for r in tree.rounds)
    assert drafting >= 6


def test_tree_p_at_every_node_is_the_targets_p_on_that_prefix(tiny_llama):
    session = _tree(tiny_llama, 3, seed=2, max_new_tokens=6, temperature=0.7)
    gen = session.run()
    cold = CausalLM(tiny_llama.model, tiny_llama.vocab_size, tiny_llama.device, 0.7)
    events = [e for r in gen.rounds for e in r.trace.events if e.kind in ("tree_check", "correction", "bonus")]
    assert any(e.kind == "tree_check" and e.sibling == 2 for e in events)  # a third candidate was checked
    for event in events:
        np.testing.assert_allclose(event.p.to_numpy(), cold.probs_uncached(event.prefix), rtol=0, atol=1e-5)


@pytest.mark.parametrize(("width", "distinct"), [(2, True), (4, True), (3, False)])
def test_tree_rounds_commit_valid_tokens_along_a_drafted_path_in_one_pass(tiny, width, distinct):
    gen = _tree(tiny, width, distinct).run()
    again = _tree(tiny, width, distinct).run()
    assert gen.tokens == again.tokens and len(gen.tokens) == 12
    assert gen.tree_scoring is not None and gen.tree_scoring.one_pass
    assert all(0 <= t < tiny.vocab_size for t in gen.tokens)
    assert sum(r.target_forwards for r in gen.rounds) == len(gen.rounds)  # one target pass per round
    for record in gen.rounds:
        if record.plain:
            continue
        drafts = record.trace.of_kind("tree_draft")
        assert [e.token for e in drafts] == list(record.drafted) and record.nodes == len(drafts)
        siblings = {}
        for e in drafts:
            siblings.setdefault(e.path[:-1], []).append(e.token)
        assert all(len(v) <= width for v in siblings.values())
        if distinct:
            assert all(len(set(v)) == len(v) for v in siblings.values())
        accepted = [e.path for e in record.trace.of_kind("tree_check") if e.accepted]
        assert len(accepted) == record.accepted <= 3
        by_path = {e.path: e.token for e in drafts}
        assert [by_path[p] for p in accepted] == list(record.tokens[: record.accepted])


# --- the lookup tree's rule: exact match, never behind its chain on the same draws (issue 36) -----------------


@pytest.fixture(scope="module")
def small_vocab(tmp_path_factory):
    """A Llama-shaped model over 8 words: p spread over few tokens, so samples often equal a candidate."""
    from specviz.models import load_model
    from specviz.models.tiny import save_tiny

    return load_model(str(save_tiny(tmp_path_factory.mktemp("tiny-8"), arch="llama", vocab_size=8)), "cpu")


SMALL = "w1 w2 w3 w1 w2 w4 w1 w2 w5 w1 w2 w3 w6 w1 w2"


def _chain_on_the_tree_s_p(record, prefix, ngram: int, seed: int, round_id: int):
    """The lookup chain verified by exact match on the same streams, against the very p's the tree round read (from
    its trace): what the chain commits on the same draws, replayed by the core verifier itself."""
    from specviz.core import Owner, RandomStreams
    from specviz.core.exact_match import ExactMatchVerifier
    from specviz.core.verifier import propose
    from specviz.models.drafts import LookupDraft

    seen = {e.prefix: e.p for e in record.trace.events if e.kind in ("tree_check", "bonus", "check")}
    owner = Owner("specviz", 0)
    streams = RandomStreams(seed, owner, round_id)
    draft = LookupDraft(8, ngram)
    block = propose(draft, prefix, streams, depth=record.depth, context_id="same draws")
    verifier = ExactMatchVerifier(owner, prefix, "same draws", lambda context: seen[context])
    verifier.last_round = round_id - 1
    return verifier.verify(block, streams)


def test_the_tree_commits_at_least_the_chain_on_the_same_draws_and_says_what_the_chain_would_have(small_vocab):
    """Each tree round records what its lookup chain commits on the same draws; the core's own exact-match verifier,
    run on the chain with the same streams against the p's the tree read, commits exactly that many tokens, and they
    are a prefix of the tree's. (Against the p's of a separate chain session the draws could differ in a last float
    bit: a chain's pass and a tree's pass round differently on some CPUs.)"""
    ahead = checked = 0
    for seed in range(12):
        settings = GenerationSettings(depth=4, seed=seed, max_new_tokens=16, ignore_eos=True, temperature=1.0,
                                      verification="exact-match:3", chat=False)
        session = Session(small_vocab, parse_draft("lookup:2"), settings, SMALL, keep_raw=True)
        prefix = session.verifier.prefix
        for record in session.rounds():
            assert record.chain_tokens is not None and record.chain_tokens <= len(record.tokens)
            if not record.plain and record.start + record.depth + 1 <= settings.max_new_tokens:
                chain = _chain_on_the_tree_s_p(record, prefix, 2, seed, record.round_id)
                assert len(chain.tokens) == record.chain_tokens
                assert record.tokens[: len(chain.tokens)] == chain.tokens
                ahead += len(record.tokens) > len(chain.tokens)
                checked += 1
            prefix = prefix + record.tokens
        assert sum(r.target_forwards for r in session.generation.rounds) == len(session.generation.rounds)
    assert checked >= 20 and ahead >= 3  # the candidates the chain did not draft were kept on some draws


def test_exact_match_is_the_lookup_tree_s_rule_in_the_race(small_vocab):
    from specviz.models.race import CHAIN, chain_rule, race
    from specviz.models.stats import same_draws_words

    assert chain_rule("exact-match:3").name == "exact-match" and chain_rule("multi-distinct:3").name == "token"
    settings = GenerationSettings(depth=4, seed=1, max_new_tokens=10, ignore_eos=True, verification="exact-match:3",
                                  chat=False)
    result = race(small_vocab, SMALL, parse_draft("lookup:2"), settings, measure=False, trials=2)
    assert result.median_trial.legs[CHAIN].generation.verification == "exact-match"
    words = same_draws_words(result.speculative.summary)
    assert words is not None and "fewer in none" in words
    assert "the chain (same draft, exact match of the target's sample)" in result.line()
