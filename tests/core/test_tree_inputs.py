"""Trees and sessions given hostile inputs: refused in words before slow work, and linear work per round."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scenario_strategies import tree_cases

from specviz.core import Categorical, Owner, RandomStreams, TreeVerifier, Verifier, propose, propose_tree
from specviz.core.errors import BlockError, SpecvizError, TokenError, TokenTypeError
from specviz.core.tree import MAX_TREE_CELLS, TreeNode, TreeSizeError, tree_cells, tree_size
from specviz.core.validation import check_token, check_tokens

OWNER = Owner("req", 0)


def draft(prefix):
    return Categorical.dense([3, 1, 1, 1])


def target(prefix):
    return Categorical.dense([1, 2, 3, 1])


def streams(round_id=0, seed=3):
    return RandomStreams(seed, OWNER, round_id)


class Counting:
    """A draft model that counts its calls and keeps the length of each context it was called with."""

    def __init__(self, q):
        self.q, self.lengths = q, []

    def __call__(self, prefix):
        self.lengths.append(len(prefix))
        return self.q


# --- the committed prefix is checked once per round ---------------------------------------------------
def test_a_long_prefix_is_walked_once_per_round_not_once_per_node(monkeypatch):
    from specviz.core import validation

    walked = []
    original = validation.check_token

    def counting(token, vocab):
        walked.append(token)
        return original(token, vocab)

    prefix = tuple([1, 2, 3] * 300)
    for module in ("specviz.core.validation", "specviz.core.tree"):
        monkeypatch.setattr(f"{module}.check_token", counting)
    tree = propose_tree(draft, prefix, streams(), depth=4, width=3, context_id="ctx")
    # the per-node walk touched len(prefix) tokens at each of the 40 nodes that draw (36,000 calls); now the
    # prefix passes check_tokens' one C-level pass, and only the drafted children are checked one by one
    assert len(walked) <= tree_size(4, 3)
    assert len(tree.nodes()) == tree_size(4, 3)


def test_draws_do_not_depend_on_how_long_the_prefix_is():
    short = propose_tree(draft, (1,), streams(), depth=3, width=2, context_id="ctx")
    long = propose_tree(draft, (0,) * 5000 + (1,), streams(), depth=3, width=2, context_id="ctx")
    assert [(n.path, n.token) for n in short.nodes()] == [(n.path, n.token) for n in long.nodes()]


def test_only_nodes_that_draw_get_a_context():
    model = Counting(Categorical.dense([1, 1, 1]))
    propose_tree(model, (0, 1), streams(), depth=3, width=2, context_id="ctx")
    assert len(model.lengths) == 1 + tree_size(2, 2)  # the root and the nodes above the last level
    assert sorted(set(model.lengths)) == [2, 3, 4]


@pytest.mark.parametrize("prefix, words", [
    ((0, 7), "global token ID 7 outside vocabulary 4"),
    ((0, "a"), "global token ID 'a' of type str is not an int"),
    ((np.int64(1),), "global token ID 1 is a numpy.int64, not a Python int; token ids must be ints in 0..3"),
    ((True,), "global token ID True of type bool is not an int"),
])
def test_a_bad_prefix_token_is_named_as_before(prefix, words):
    for make in (lambda: propose_tree(draft, prefix, streams(), depth=2, width=2, context_id="ctx"),
                 lambda: propose(draft, prefix, streams(), depth=2, context_id="ctx")):
        with pytest.raises(TokenError, match=words.replace("(", r"\(").replace(")", r"\)")):
            make()


def test_a_drafted_token_outside_a_later_nodes_vocabulary_is_refused_there():
    """q at the root has 6 tokens, q below it 2: the child 5 is outside the child's vocabulary, as before."""
    def shrinking(prefix):
        return Categorical(6, [5], [1]) if len(prefix) == 1 else Categorical.dense([1, 1])

    for make in (lambda: propose_tree(shrinking, (0,), streams(), depth=2, width=2, context_id="ctx"),
                 lambda: propose(shrinking, (0,), streams(), depth=2, context_id="ctx")):
        with pytest.raises(TokenError, match="global token ID 5 outside vocabulary 2"):
            make()


def test_a_stop_id_outside_the_vocabulary_is_named():
    with pytest.raises(TokenError, match="global token ID 9 outside vocabulary 4"):
        propose_tree(draft, (0,), streams(), depth=2, width=2, context_id="ctx", stop_ids={9})


def test_check_tokens_names_the_first_bad_token_in_order():
    check_tokens((), 3)
    check_tokens((0, 1, 2), 3)
    with pytest.raises(TokenError, match="global token ID 5 outside"):
        check_tokens((0, 5, "x"), 3)
    with pytest.raises(TokenError, match="'x' of type str"):
        check_tokens((0, "x", 5), 3)
    with pytest.raises(TokenError, match=r"numpy\.int32, not a Python int, and outside vocabulary 3"):
        check_token(np.int32(7), 3)


# --- the size check, before any tree or mask ----------------------------------------------------------------
def test_a_tree_too_large_for_memory_is_refused_before_anything_is_drawn():
    vocab = 49_152
    model = Counting(Categorical.dense([1] * vocab))
    rounds = streams()
    state = rounds.proposal.getstate()
    with pytest.raises(TreeSizeError) as info:
        propose_tree(model, (), rounds, depth=5, width=8, context_id="ctx", distinct=True)
    message = str(info.value)
    assert "37,448 nodes" in message and "49,152 tokens" in message and f"{MAX_TREE_CELLS:,}" in message
    assert f"{tree_cells(5, 8, vocab, True):,} node x token cells" in message
    assert "a depth of 3 or less" in message
    assert model.lengths == [0]  # only the root's q, which tells the vocabulary
    assert rounds.proposal.getstate() == state  # not one draw
    assert isinstance(info.value, (BlockError, SpecvizError))


def test_the_size_check_counts_the_listed_ids_not_the_vocabulary():
    """A sparse q (a lookup draft's few candidates) holds little however large the vocabulary."""
    sparse = Categorical(10**6, [3, 70, 999_999], [1, 1, 1])
    tree = propose_tree(lambda prefix: sparse, (), streams(), depth=5, width=3, context_id="ctx", distinct=True)
    assert {n.token for n in tree.nodes()} <= {3, 70, 999_999}
    assert tree_cells(5, 4, 49_152, True) <= MAX_TREE_CELLS  # SmolLM2's vocabulary at the lookup tree's widest


def test_without_is_masked_over_the_listed_ids():
    q = Categorical(10, [1, 4, 7, 8], [1, 2, 3, 4])
    keep = np.ones(10, dtype=bool)
    keep[[4, 8]] = False
    assert q.without([4, 8]).to_dict(top_n=None) == q.masked(keep).to_dict(top_n=None)
    assert q.without([8, 4]).probabilities == q.masked(keep).probabilities


# --- hand-built trees -----------------------------------------------------------------------------------
def _tree():
    return propose_tree(draft, (), streams(), depth=2, width=2, context_id="ctx")


@pytest.mark.parametrize("where", ["root", "inner", "leaf"])
@pytest.mark.parametrize("children", [None, 3, "ab", iter(())])
def test_children_that_are_not_a_tuple_are_named(where, children):
    tree = _tree()
    if where == "root":
        broken, place = replace(tree, children=children), "the root"
    else:
        first = tree.children[0]
        node = first if where == "inner" else first.children[0]
        place = f"node {list(node.path)}"
        swapped = replace(node, children=children)
        if where == "inner":
            kids = (swapped, *tree.children[1:])
        else:
            kids = (replace(first, children=(swapped, *first.children[1:])), *tree.children[1:])
        broken = replace(tree, children=kids)
    session = TreeVerifier(OWNER, (), "ctx", target)
    with pytest.raises(BlockError, match=f"invalid tree: the children of {place.replace('[', '.').replace(']', '.')} "
                                         "must be a tuple of TreeNodes"):
        session.verify(broken, streams())


def test_walking_a_hand_built_tree_names_children_that_are_not_a_tuple():
    tree = _tree()
    broken = replace(tree, children=(replace(tree.children[0], children=None), tree.children[1]))
    with pytest.raises(BlockError, match=r"the children of node \[0\] must be a tuple of TreeNodes"):
        broken.nodes()
    with pytest.raises(BlockError, match=r"the children of node \[0\] must be a tuple of TreeNodes"):
        broken.node((0, 1))
    assert broken.node((1,)) is tree.children[1]


def test_a_list_of_children_is_read_as_the_tuple():
    tree = _tree()
    as_lists = replace(tree, children=[replace(c, children=list(c.children)) for c in tree.children])
    expected = TreeVerifier(OWNER, (), "ctx", target).verify(tree, streams())
    assert TreeVerifier(OWNER, (), "ctx", target).verify(as_lists, streams()) == expected


def test_a_node_that_is_not_a_tree_node_is_named():
    tree = _tree()
    broken = replace(tree, children=(tree.children[0], (1, 2)))
    with pytest.raises(BlockError, match=r"child 1 of node \[\] must be a TreeNode at path \[1\]"):
        TreeVerifier(OWNER, (), "ctx", target).verify(broken, streams())
    assert isinstance(tree.children[0], TreeNode)


# --- stop ids and prefixes of other types ----------------------------------------------------------------
@pytest.mark.parametrize("stops", [[2], (2,), {2}, range(2, 3)])
def test_stop_ids_as_a_list_or_set_read_as_the_frozenset(stops):
    reference = Verifier(OWNER, (), "ctx", target, stop_ids=frozenset({2}))
    block = propose(draft, (), streams(), depth=3, context_id="ctx", stop_ids=frozenset({2}))
    expected = reference.verify(block, streams())
    session = Verifier(OWNER, (), "ctx", target, stop_ids=stops)
    assert session.stop_ids == frozenset({2})
    drafted = propose(draft, (), streams(), depth=3, context_id="ctx", stop_ids=stops)
    assert drafted.stop_ids == frozenset({2})
    assert session.verify(drafted, streams()) == expected


def test_a_different_stop_policy_is_named_with_both_sets():
    session = Verifier(OWNER, (), "ctx", target, stop_ids=[2])
    block = propose(draft, (), streams(), depth=3, context_id="ctx", stop_ids=[3])
    with pytest.raises(SpecvizError, match=r"block stops on \[3\], session on \[2\]"):
        session.verify(block, streams())


@pytest.mark.parametrize("stops", [None, 2, "ab", [[1]], {"a": 1}])
def test_stop_ids_that_are_not_a_collection_of_ids_are_refused(stops):
    with pytest.raises(TokenTypeError, match="stop_ids must be a set of token ids"):
        Verifier(OWNER, (), "ctx", target, stop_ids=stops)
    with pytest.raises(TokenTypeError, match="stop_ids must be a set of token ids"):
        propose_tree(draft, (), streams(), depth=2, width=2, context_id="ctx", stop_ids=stops)


def test_a_list_prefix_is_read_as_a_tuple_and_never_extended():
    prefix = [0, 1]
    block = propose(draft, prefix, streams(), depth=3, context_id="ctx")
    assert prefix == [0, 1] and block.prefix == (0, 1)
    session = Verifier(OWNER, prefix, "ctx", target)
    session.verify(block, streams())
    assert prefix == [0, 1] and len(session.prefix) > 2


@pytest.mark.parametrize("prefix", [None, "ab", 3, np.array([0, 1])])
def test_a_prefix_that_is_not_a_sequence_of_ids_is_refused(prefix):
    with pytest.raises(TokenTypeError, match="the prefix must be a tuple of token ids"):
        propose(draft, prefix, streams(), depth=2, context_id="ctx")
    with pytest.raises(TokenTypeError, match="the prefix must be a tuple of token ids"):
        Verifier(OWNER, prefix, "ctx", target)


def test_sessions_keep_draws_identical_over_many_rounds_with_a_growing_prefix():
    """The once-per-round check changes no draw: TreeVerifier at width 1 stays tokenwise over 60 rounds."""
    rng = random.Random(4)
    rows = [[rng.randrange(0, 4) + (i == j) for i in range(4)] for j in range(4)]

    def markov(prefix):
        return Categorical.dense(rows[prefix[-1] if prefix else 0])

    chain, tree = Verifier(OWNER, (), "ctx", markov), TreeVerifier(OWNER, (), "ctx", markov)
    for round_id in range(60):
        block = propose(markov, chain.prefix, streams(round_id), depth=4, context_id="ctx")
        drafted = propose_tree(markov, tree.prefix, streams(round_id), depth=4, width=1, context_id="ctx")
        assert chain.verify(block, streams(round_id)) == tree.verify(drafted, streams(round_id))
    assert chain.prefix == tree.prefix


# --- every hand-built tree is verified or refused with a SpecvizError ------------------------------------------
@settings(max_examples=300, deadline=None)
@given(tree_cases())
def test_every_hand_built_tree_is_verified_or_refused_in_words(case):
    tree, mutation, (prefix, stops, target_model) = case
    session = TreeVerifier(OWNER, prefix, "ctx", target_model, stop_ids=stops)
    try:
        result = session.verify(tree, streams())
    except SpecvizError as error:
        message = str(error)
        assert "\n" not in message and len(message) < 400, message
        assert mutation.kind != "none", message
        return
    assert mutation.kind in ("none", "children-list"), mutation  # a list of children reads as the tuple
    assert 1 <= len(result.tokens) <= tree.fixed_depth + 1 and session.prefix == prefix + result.tokens


_ARGS = {"depth": st.sampled_from([0, 6, 2.0, "2", True, None]), "width": st.sampled_from([0, 9, 2.0, "2", None]),
         "distinct": st.sampled_from([1, "yes", None]), "context_id": st.sampled_from(["", None, 0]),
         "stop_ids": st.sampled_from([None, 3, "ab", [[1]], [9], {np.int64(1)}]),
         "prefix": st.sampled_from([None, "ab", 3, np.array([0, 1]), (9,), (np.int64(0),), [0, 1.5]])}


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(sorted(_ARGS)), st.data())
def test_drafting_a_tree_with_a_bad_argument_is_refused_in_words(name, data):
    value = data.draw(_ARGS[name], label=name)
    args = {"depth": 2, "width": 2, "distinct": False, "context_id": "ctx", "stop_ids": frozenset(), "prefix": ()}
    args[name] = value
    prefix = args.pop("prefix")
    with pytest.raises(SpecvizError) as info:
        propose_tree(draft, prefix, streams(), **args)
    assert "\n" not in str(info.value) and len(str(info.value)) < 400


def test_a_hand_built_round_with_stop_ids_none_is_named_not_sorted():
    tree = replace(_tree(), stop_ids=None)
    with pytest.raises(SpecvizError, match="block stops on None of type NoneType, session on \\[\\]"):
        TreeVerifier(OWNER, (), "ctx", target).verify(tree, streams())
