"""propose_tree and TreeVerifier: drafting, the rule's numbers, draws, session rules, validation, the trace."""

import json
from dataclasses import replace
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from specviz.core import (
    MAX_WIDTH,
    Block,
    Categorical,
    Owner,
    RandomStreams,
    Trace,
    Tree,
    TreeVerifier,
    VerificationError,
    Verifier,
    draft_round,
    fp32_weights,
    propose,
    propose_tree,
    residual_with_mass,
    rule,
    verifier_class,
)
from specviz.core.errors import BlockError, ProposalError, SessionError, TokenError, VocabularyMismatchError
from specviz.core.trace import TreeCheckEvent, TreeCorrectionEvent, TreeDraftEvent
from specviz.core.tree import tree_size

OWNER = Owner("req", 0)
P = Categorical.dense([1, 2])  # p = (1/3, 2/3), q = (2/3, 1/3)
Q = Categorical.dense([2, 1])


def target(prefix):
    return Categorical.dense([1, 2, 3, 0])


def draft(prefix):
    return Categorical.dense([3, 1, 1, 1])


def markov_target(prefix):
    last = prefix[-1] if prefix else 0
    return Categorical.dense([[1, 2, 3, 0], [4, 1, 0, 2], [1, 1, 1, 1], [0, 0, 5, 1]][last])


def markov_draft(prefix):
    last = prefix[-1] if prefix else 0
    return Categorical.dense([[3, 1, 1, 1], [1, 1, 4, 1], [2, 0, 1, 3], [1, 2, 3, 4]][last])


def tree_for(round_id=0, depth=2, width=2, distinct=False, prefix=(), stop_ids=frozenset(), seed=7, model=draft,
             trace=None):
    streams = RandomStreams(seed, OWNER, round_id)
    tree = propose_tree(model, prefix, streams, depth=depth, width=width, context_id="ctx", distinct=distinct,
                        stop_ids=stop_ids, trace=trace)
    return tree, streams


def session(model=target, prefix=(), **kw):
    return TreeVerifier(OWNER, prefix, "ctx", model, **kw)


# --- drafting --------------------------------------------------------------------------------------------


def test_a_full_tree_has_width_children_at_every_node_above_the_depth():
    tree, _ = tree_for(depth=3, width=2)
    nodes = tree.nodes()
    assert len(nodes) == tree_size(3, 2) == 14
    assert [n.path for n in nodes[:6]] == [(0,), (1,), (0, 0), (0, 1), (1, 0), (1, 1)]  # level by level
    assert all(len(n.children) == 2 and n.q is not None for n in nodes if len(n.path) < 3)
    assert all(not n.children and n.q is None for n in nodes if len(n.path) == 3)
    assert tree.node((1, 0)) is tree.children[1].children[0]


def test_draft_order_is_level_by_level_and_replayable():
    trace = Trace()
    tree, _ = tree_for(depth=2, width=3, model=markov_draft, trace=trace)
    drafts = trace.of_kind("tree_draft")
    assert [e.path for e in drafts] == [n.path for n in tree.nodes()]
    # replay: the same proposal stream, randrange(q'.total) per child in that order, gives the same tokens
    rng = RandomStreams(7, OWNER, 0).proposal
    for event in drafts:
        assert rng.randrange(event.draw_range) == event.draw
        assert event.drawn_from.token_at_draw(event.draw) == event.token
        assert event.prefix == tuple(tree.node(event.path[:i + 1]).token for i in range(len(event.path) - 1))
        assert event.q == markov_draft(event.prefix) and event.drawn_from is event.q  # i.i.d.: q' = q


def test_distinct_children_are_drawn_without_replacement():
    trace = Trace()
    tree, _ = tree_for(depth=2, width=3, distinct=True, trace=trace)
    for node in [tree, *tree.nodes()]:
        tokens = [c.token for c in node.children]
        assert len(tokens) == len(set(tokens))
    for event in trace.of_kind("tree_draft"):
        siblings = [tree.node(event.path[:-1] + (i,)).token for i in range(event.sibling)] if len(event.path) > 1 \
            else [tree.children[i].token for i in range(event.sibling)]
        held = sum((event.q.prob(x) for x in siblings), F(0))
        assert all(event.drawn_from.prob(x) == 0 for x in siblings)
        assert event.q_token == event.q.prob(event.token) / (1 - held) == event.drawn_from.prob(event.token)


def test_distinct_drafting_draws_fewer_children_when_q_runs_out_of_tokens():
    two = Categorical(4, [1, 3], [1, 1])  # two tokens with mass, width 3
    tree, _ = tree_for(depth=2, width=3, distinct=True, model=lambda prefix: two)
    assert sorted(c.token for c in tree.children) == [1, 3]
    assert all(len(c.children) == 2 for c in tree.children)
    result = session(lambda prefix: two).verify(tree, RandomStreams(7, OWNER, 0))
    assert result.accepted_drafts == 2 and not result.rejected  # p = q: everything is accepted


def test_a_drafted_stop_token_is_a_leaf_and_committing_it_ends_the_request():
    stop = frozenset({0})
    trace = Trace()
    tree, streams = tree_for(depth=3, width=2, stop_ids=stop, trace=trace)
    for node in tree.nodes():
        if node.token == 0:
            assert not node.children and node.q is None
    assert len(trace.of_kind("stop")) == sum(n.token == 0 for n in tree.nodes())
    for seed in range(40):
        tree, streams = tree_for(depth=3, width=2, stop_ids=stop, seed=seed)
        verifier = session(stop_ids=stop)
        trace = Trace()
        result = verifier.verify(tree, streams, trace=trace)
        if 0 in result.tokens:
            assert result.tokens[-1] == 0 and result.stopped and verifier.stopped
            assert not trace.of_kind("bonus") or result.tokens[-1] != 0
            with pytest.raises(SessionError, match="already stopped"):
                verifier.verify(*tree_for(round_id=1, depth=3, width=2, stop_ids=stop, prefix=verifier.prefix))


# --- width 1 is tokenwise, draw for draw -------------------------------------------------------------------


def _draws(trace):
    return [(e.kind.removeprefix("tree_"), e.draw, getattr(e, "token", None)) for e in trace
            if e.kind in ("draft", "check", "correction", "bonus", "tree_draft", "tree_check")]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), depth=st.integers(1, 5), markov=st.booleans(), stop=st.booleans())
def test_width_one_is_tokenwise_verification_draw_for_draw(seed, depth, markov, stop):
    p_model, q_model = (markov_target, markov_draft) if markov else (target, draft)
    stops = frozenset({2}) if stop else frozenset()
    verifier, tree_verifier = Verifier(OWNER, (), "ctx", p_model, stop_ids=stops), session(p_model, stop_ids=stops)
    for round_id in range(3):
        if verifier.stopped:
            break
        s1, s2 = RandomStreams(seed, OWNER, round_id), RandomStreams(seed, OWNER, round_id)
        t1, t2 = Trace(), Trace()
        block = propose(q_model, verifier.prefix, s1, depth=depth, context_id="ctx", stop_ids=stops, trace=t1)
        tree = propose_tree(q_model, tree_verifier.prefix, s2, depth=depth, width=1, context_id="ctx",
                            stop_ids=stops, trace=t2)
        assert verifier.verify(block, s1, trace=t1) == tree_verifier.verify(tree, s2, trace=t2)
        assert _draws(t1) == _draws(t2)
        for c1, c2 in zip(t1.of_kind("correction"), t2.of_kind("correction"), strict=True):
            assert c1.residual == c2.residual and c1.residual_mass == c2.residual_mass


def test_width_one_on_fp32_real_use_vocabulary_matches_tokenwise():
    rng = np.random.default_rng(3)
    rows_p = [rng.random(4096).astype(np.float32) ** 6 for _ in range(4)]
    rows_q = [rng.random(4096).astype(np.float32) ** 6 for _ in range(4)]
    ids = range(4096)
    p_model = lambda prefix: fp32_weights(4096, ids, rows_p[len(prefix) % 4])  # noqa: E731
    q_model = lambda prefix: fp32_weights(4096, ids, rows_q[len(prefix) % 4])  # noqa: E731
    for seed in range(3):
        s1, s2 = RandomStreams(seed, OWNER, 0), RandomStreams(seed, OWNER, 0)
        block = propose(q_model, (), s1, depth=3, context_id="ctx")
        tree = propose_tree(q_model, (), s2, depth=3, width=1, context_id="ctx")
        assert Verifier(OWNER, (), "ctx", p_model).verify(block, s1) == session(p_model).verify(tree, s2)


# --- the rule's numbers on one node --------------------------------------------------------------------------


def _one_node(tokens, distinct=False, q=Q, p=P, seed=0):
    """A depth-1 tree with the given children (q' as drafting would have made them), and its check events."""
    tree, streams = tree_for(depth=1, width=len(tokens), distinct=distinct, model=lambda prefix: q, seed=seed)
    children = tuple(replace(c, token=x) for c, x in zip(tree.children, tokens, strict=True))
    tree = replace(tree, children=children)
    trace = Trace()
    result = TreeVerifier(OWNER, (), "ctx", lambda prefix: p).verify(tree, streams, trace=trace)
    return result, trace


def test_second_sibling_is_checked_against_the_residual():
    # p = (1/3, 2/3), q = (2/3, 1/3), children (0, 1): first a = 1/2; after its rejection r = (0, 1), so token 1 passes
    for seed in range(30):
        result, trace = _one_node((0, 1), seed=seed)
        checks = trace.of_kind("tree_check")
        assert checks[0].acceptance == F(1, 2) and checks[0].r_token == checks[0].p_token == F(1, 3)
        if not checks[0].accepted:
            assert checks[0].residual.probabilities == (0, 1) and checks[0].residual_mass == F(1, 3)
            assert checks[0].scale == 1
            assert checks[1].r_token == 1 and checks[1].q_token == F(1, 3) and checks[1].acceptance == 1
            assert result.tokens[0] == 1 and result.accepted_drafts == 1


def test_three_rejected_children_leave_the_residual_of_a_residual_exactly():
    # p = (1, 2, 3)/6, q = (3, 2, 1)/6, children (0, 0, 0): r_2 = (p - q)+ = (0, 0, 1), mass 1/3;
    # (r_2 - q)+ = (0, 0, 5/6): r_3 = (0, 0, 1) again, with mass 5/6 = (1 + M)/M * M' for s' = 3/4 (M' = 5/24);
    # then once more, s'' = s' / (1 + M') = 18/29
    p, q = Categorical.dense([1, 2, 3]), Categorical.dense([3, 2, 1])
    for seed in range(60):
        result, trace = _one_node((0, 0, 0), q=q, p=p, seed=seed)
        checks = trace.of_kind("tree_check")
        assert [c.acceptance for c in checks] == [F(1, 3), 0, 0][:len(checks)]
        if result.rejected:
            assert [c.residual_mass for c in checks] == [F(1, 3), F(5, 6), F(5, 6)]
            assert [c.scale for c in checks] == [1, F(3, 4), F(18, 29)]
            correction = trace.of_kind("correction")[0]
            assert isinstance(correction, TreeCorrectionEvent) and correction.token == 2
            assert correction.path == () and correction.residual.probabilities == (0, 0, 1)
            break
    else:
        pytest.fail("no seed rejected all three children")


def _brute_next_residual(r, q_prime):
    rest = [max(a - b, F(0)) for a, b in zip(r, q_prime)]
    mass = sum(rest)
    return [v / mass for v in rest], mass


@settings(max_examples=80, deadline=None)
@given(p_w=st.lists(st.integers(0, 6), min_size=4, max_size=4).filter(any),
       q_w=st.lists(st.integers(0, 6), min_size=4, max_size=4).filter(lambda w: sum(map(bool, w)) >= 2),
       width=st.integers(2, 4), distinct=st.booleans(), seed=st.integers(0, 10**6))
def test_every_check_matches_the_residual_computed_one_fraction_at_a_time(p_w, q_w, width, distinct, seed):
    p, q = Categorical.dense(p_w), Categorical.dense(q_w)
    tree, streams = tree_for(depth=1, width=width, distinct=distinct, model=lambda prefix: q, seed=seed)
    trace = Trace()
    TreeVerifier(OWNER, (), "ctx", lambda prefix: p).verify(tree, streams, trace=trace)
    r = list(p.probabilities)
    drawn: list[int] = []
    for check in trace.of_kind("tree_check"):
        held = sum((q.prob(x) for x in drawn), F(0)) if distinct else F(0)
        q_prime = [F(0) if x in drawn and distinct else q.prob(x) / (1 - held) for x in range(4)]
        assert check.r_token == r[check.token] and check.q_token == q_prime[check.token]
        assert check.acceptance == min(F(1), r[check.token] / q_prime[check.token])
        if not check.accepted:
            r, mass = _brute_next_residual(r, q_prime)
            assert check.residual_mass == mass and list(check.residual.probabilities) == r
        drawn.append(check.token)
    for correction in trace.of_kind("correction"):
        assert list(correction.residual.probabilities) == r


def test_the_residual_stays_on_the_fast_path_for_fp32_rows():
    rng = np.random.default_rng(5)
    p = fp32_weights(2048, range(2048), rng.random(2048).astype(np.float32) ** 4)
    q = fp32_weights(2048, range(2048), rng.random(2048).astype(np.float32) ** 4)
    for seed in range(20):
        tree, streams = tree_for(depth=1, width=3, model=lambda prefix: q, seed=seed)
        trace = Trace()
        TreeVerifier(OWNER, (), "ctx", lambda prefix: p).verify(tree, streams, trace=trace)
        corrections = trace.of_kind("correction")
        if corrections and len(trace.of_kind("tree_check")) == 3:
            correction = corrections[0]
            assert type(correction.residual._tickets).__name__ == "DifferenceTickets"
            expected, _ = residual_with_mass(p, q, correction.scale)
            assert correction.residual == expected and correction.scale < 1
            return
    pytest.fail("no seed rejected all three drafts")


# --- session rules and validation ---------------------------------------------------------------------


def test_session_rules_match_verifier():
    tree, streams = tree_for()
    verifier = session()
    verifier.verify(tree, streams)
    with pytest.raises(SessionError, match="stale/reused round"):
        verifier.verify(tree, streams)
    tree, streams = tree_for(round_id=1)
    with pytest.raises(SessionError, match="stale prefix"):
        verifier.verify(tree, streams)
    tree, streams = tree_for(round_id=2, prefix=verifier.prefix)
    with pytest.raises(SessionError, match="ownership mismatch"):
        verifier.verify(replace(tree, owner=Owner("other", 0)), streams)
    with pytest.raises(SessionError, match="stop policy mismatch"):
        verifier.verify(replace(tree, stop_ids=frozenset({1})), streams)
    with pytest.raises(SessionError, match="stale prefix or changed model/processor context"):
        verifier.verify(replace(tree, context_id="other"), streams)


def test_a_failed_verify_needs_reset():
    tree, streams = tree_for()
    verifier = session(lambda prefix: Categorical.dense([1, 1]))
    with pytest.raises(VocabularyMismatchError, match="vocabulary mismatch: p has 2 tokens, q has 4"):
        verifier.verify(tree, streams)
    with pytest.raises(SessionError, match="explicit session reset"):
        verifier.verify(*tree_for(round_id=1))
    verifier.reset()
    verifier.target = target
    verifier.verify(*tree_for(round_id=1))


@pytest.mark.parametrize("width", [0, MAX_WIDTH + 1, 2.0, True, None])
def test_width_outside_range(width):
    with pytest.raises(BlockError, match=r"tree width \(drafts per node\) must be an int in 1..8: got"):
        propose_tree(draft, (), RandomStreams(0, OWNER, 0), depth=1, width=width, context_id="ctx")


@pytest.mark.parametrize("depth", [0, 6, 2.0, True])
def test_depth_outside_range(depth):
    with pytest.raises(BlockError, match="fixed depth must be in 1..5"):
        propose_tree(draft, (), RandomStreams(0, OWNER, 0), depth=depth, width=2, context_id="ctx")


def test_context_distinct_and_tokens_checked():
    streams = RandomStreams(0, OWNER, 0)
    with pytest.raises(BlockError, match="context identity is required"):
        propose_tree(draft, (), streams, depth=1, width=2, context_id="")
    with pytest.raises(BlockError, match="distinct must be True or False"):
        propose_tree(draft, (), streams, depth=1, width=2, context_id="ctx", distinct=1)
    with pytest.raises(TokenError):
        propose_tree(draft, (9,), streams, depth=1, width=2, context_id="ctx")
    with pytest.raises(TokenError):
        propose_tree(draft, (), streams, depth=1, width=2, context_id="ctx", stop_ids=frozenset({7}))


def test_verifiers_refuse_the_other_kind_of_round():
    tree, streams = tree_for()
    with pytest.raises(BlockError, match="Verifier verifies a Block from propose, got Tree"):
        Verifier(OWNER, (), "ctx", target).verify(tree, streams)
    block = propose(draft, (), streams, depth=2, context_id="ctx")
    with pytest.raises(BlockError, match="TreeVerifier verifies a Tree from propose_tree, got Block"):
        session().verify(block, streams)


def test_malformed_trees_are_refused_in_words():
    tree, streams = tree_for(depth=2, width=2)
    first = tree.children[0]
    bad = {
        "has 1 of 2 children": replace(tree, children=tree.children[:1]),
        "has 3 children": replace(tree, children=tree.children + tree.children[:1]),
        "depth may shorten only on a terminal token": replace(
            tree, children=(replace(first, children=(), q=None), tree.children[1])),
        "has children at the fixed depth": replace(tree, fixed_depth=1),
        "must be a TreeNode at path": replace(tree, children=(tree.children[1], first)),
        "depth 9 must be in 1..5": replace(tree, fixed_depth=9),
        "width 0 in 1..8": replace(tree, width=0),
    }
    for message, broken in bad.items():
        with pytest.raises(BlockError, match=message):
            session().verify(broken, streams)
    zero_q = Categorical.dense([0, 1, 1, 1])
    with pytest.raises(ProposalError, match="token 0 at node \\[0\\] needs q > 0"):
        session().verify(replace(tree, q=zero_q, children=(replace(first, token=0), tree.children[1])), streams)
    with pytest.raises(ProposalError, match="must be a Categorical on the vocabulary of 4 tokens"):
        session().verify(replace(tree, children=(replace(first, q=Categorical.dense([1, 1])), tree.children[1])),
                         streams)


def test_distinct_trees_must_not_repeat_a_sibling():
    tree, streams = tree_for(depth=1, width=2, distinct=True)
    twice = replace(tree, children=(tree.children[0], replace(tree.children[1], token=tree.children[0].token)))
    with pytest.raises(ProposalError, match="drawn twice among the children of node \\[\\]"):
        session().verify(twice, streams)


# --- the trace as plain data ----------------------------------------------------------------------------


def test_trace_changes_no_draw_and_is_json():
    for seed in range(20):
        t1, s1 = tree_for(depth=3, width=3, distinct=seed % 2 == 0, seed=seed, model=markov_draft)
        t2, s2 = tree_for(depth=3, width=3, distinct=seed % 2 == 0, seed=seed, model=markov_draft)
        trace = Trace()
        plain = session(markov_target).verify(t1, s1)
        assert plain == session(markov_target).verify(t2, s2, trace=trace)
        data = json.loads(trace.to_json())
        kinds = [e["kind"] for e in data["events"]]
        assert kinds[-1] == "result" and set(kinds) <= {"tree_check", "correction", "bonus", "stop", "result"}
        check = next(e for e in data["events"] if e["kind"] == "tree_check")
        assert {"path", "sibling", "siblings", "r_token", "q_token", "acceptance", "draw", "residual",
                "residual_mass", "scale"} <= set(check)


def test_trace_events_are_typed():
    trace = Trace()
    tree, streams = tree_for(depth=2, width=2, trace=trace)
    session().verify(tree, streams, trace=trace)
    assert all(isinstance(e, TreeDraftEvent) for e in trace.of_kind("tree_draft"))
    assert all(isinstance(e, TreeCheckEvent) for e in trace.of_kind("tree_check"))
    first = trace.of_kind("tree_draft")[0]
    assert json.loads(json.dumps(trace.to_dict()))["events"][0]["path"] == list(first.path)


# --- the registry -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name, kind", [("token", Block), ("block", Block), ("multi:2", Tree),
                                        ("multi-distinct:3", Tree)])
def test_draft_round_drafts_what_the_rule_verifies(name, kind):
    streams = RandomStreams(4, OWNER, 0)
    drafted = draft_round(name, markov_draft, (), streams, depth=2, context_id="ctx")
    assert isinstance(drafted, kind)
    if kind is Tree:
        assert drafted.width == rule(name).width and drafted.distinct == rule(name).distinct
    result = verifier_class(name)(OWNER, (), "ctx", markov_target).verify(drafted, streams)
    assert 1 <= len(result.tokens) <= 3


def test_tree_rules_are_played_by_the_tree_verifier():
    assert rule("multi:3").verifier_class is TreeVerifier and rule("multi-distinct:1").verifier_class is TreeVerifier
    assert rule("multi:3").playable


# --- properties of every round ----------------------------------------------------------------------------


def _path_tokens(tree, tokens):
    """How many leading tokens follow drafted nodes from the root."""
    children, depth = tree.children, 0
    for token in tokens:
        match = next((c for c in children if c.token == token), None)
        if match is None:
            break
        depth += 1
        children = match.children
    return depth


weight_rows = st.lists(st.integers(0, 4), min_size=5, max_size=5).filter(any)


@settings(max_examples=120, deadline=None)
@given(p_rows=st.lists(weight_rows, min_size=6, max_size=6), q_rows=st.lists(weight_rows, min_size=6, max_size=6),
       depth=st.integers(1, 3), width=st.integers(1, 4), distinct=st.booleans(),
       stop=st.sampled_from([frozenset(), frozenset({4})]), seed=st.integers(0, 10**9))
def test_every_round_commits_a_drafted_path_then_one_token(p_rows, q_rows, depth, width, distinct, stop, seed):
    p_model = lambda prefix: Categorical.dense(p_rows[prefix[-1] if prefix else 5])  # noqa: E731
    q_model = lambda prefix: Categorical.dense(q_rows[prefix[-1] if prefix else 5])  # noqa: E731
    trace = Trace()
    tree, streams = tree_for(depth=depth, width=width, distinct=distinct, model=q_model, stop_ids=stop, seed=seed,
                             trace=trace)
    verifier = session(p_model, stop_ids=stop)
    result = verifier.verify(tree, streams, trace=trace)
    kept = result.accepted_drafts
    assert 0 <= kept <= depth and _path_tokens(tree, result.tokens) >= kept
    stop_draft = result.stopped and not result.rejected and not trace.of_kind("bonus")  # an accepted stop draft
    assert len(result.tokens) == kept + (0 if stop_draft else 1)
    assert result.stopped == (result.tokens[-1] in stop) == verifier.stopped
    assert verifier.prefix == result.tokens
    checks = trace.of_kind("tree_check")
    assert sum(c.accepted for c in checks) == kept
    assert all(c.draw < c.draw_range and (c.draw < c.acceptance.numerator) == c.accepted for c in checks)
    if result.rejected:
        correction = trace.of_kind("correction")[-1]
        assert correction.residual.prob(result.tokens[-1]) > 0 and not trace.of_kind("bonus")
    elif not stop_draft:
        assert trace.of_kind("bonus")[-1].token == result.tokens[-1]
    for node in tree.nodes():
        assert len(node.children) <= width and (node.token not in stop or not node.children)
    if distinct:
        for node in [tree, *tree.nodes()]:
            assert len({c.token for c in node.children}) == len(node.children)


def test_draft_round_refuses_a_rule_only_theory_evaluates():
    with pytest.raises(VerificationError, match="evaluated by theory only"):
        draft_round("greedy-draft", draft, (), RandomStreams(0, OWNER, 0), depth=1, context_id="ctx")
    with pytest.raises(VerificationError, match="verification must be one of"):
        draft_round("Block", draft, (), RandomStreams(0, OWNER, 0), depth=1, context_id="ctx")


def test_the_root_path_names_no_node():
    tree, _ = tree_for()
    with pytest.raises(KeyError):
        tree.node(())


def test_wrong_kinds_of_round_or_streams_are_named_before_any_attribute_is_read():
    tree, streams = tree_for()
    for verifier in (session(), Verifier(OWNER, (), "ctx", target)):
        with pytest.raises(BlockError, match="verifies a (Tree|Block) from propose(_tree)?, got NoneType"):
            verifier.verify(None, streams)
    with pytest.raises(TypeError, match="streams must be RandomStreams\\(seed, owner, round_id\\), got 7 of type int"):
        session().verify(tree, 7)
    with pytest.raises(SessionError, match="streams must be RandomStreams"):
        propose_tree(draft, (), None, depth=1, width=2, context_id="ctx")
