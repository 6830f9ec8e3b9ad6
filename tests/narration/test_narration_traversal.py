"""Traversal verification narrated from its trace: which node, its weights, the draw, the path kept, the parent's
new target; page and terminal profiles; a kept node commits its whole path."""

from specviz import narration
from specviz.core import Categorical, Owner, RandomStreams, Trace, draft_round, rule
from specviz.core.trace import TraversalCheckEvent, TraversalCorrectionEvent
from specviz.narration import traversal_words as T

OWNER = Owner("narrate", 0)
P, Q = Categorical.dense([1, 2, 3]), Categorical.dense([3, 1, 1])
VOCAB = ("a", "b", "c")


def _round(seed: int, name: str = "traversal:2", depth: int = 2) -> Trace:
    found, streams, trace = rule(name), RandomStreams(seed, OWNER, 0), Trace()
    tree = draft_round(found, lambda c: Q, (), streams, depth=depth, context_id="c", trace=trace)
    found.verifier_class(OWNER, (), "c", lambda c: P).verify(tree, streams, trace=trace)
    return trace


def _rounds(n: int = 30) -> list[Trace]:
    return [_round(seed) for seed in range(n)]


def test_each_check_says_the_node_its_weights_and_the_draw():
    seen = 0
    for trace in _rounds():
        for event in trace:
            if not isinstance(event, TraversalCheckEvent):
                continue
            head, lines = narration.sentences(event, narration.Setting(VOCAB, 2, "traversal:2"))
            text = " ".join(lines)
            assert f"node {[i + 1 for i in event.path]}" in head and ("kept" in head or "rejected" in head)
            assert "draw" in text and ("entered with weight" in text or "enters with weight 0" in text)
            if event.accepted:
                assert "The whole path" in text and {"bonus": "bonus", "correction": "its own residual",
                                                     "stop": "stop"}[event.ending] in text
            elif event.residual is not None:
                assert "ρ/(ρ + 1 − w)" in text
            seen += 1
    assert seen > 30


def test_a_node_of_weight_zero_is_rejected_with_no_draw_and_a_draw_is_said_otherwise():
    zero = drawn = 0
    for trace in _rounds():
        for event in trace:
            if isinstance(event, TraversalCheckEvent):
                _, lines = narration.sentences(event, narration.Setting(VOCAB, 2, "traversal:2"))
                text = " ".join(lines)
                if event.acceptance == 0:
                    assert "**rejected**, no draw needed" in text and "The acceptance draw" not in text
                    zero += 1
                else:
                    assert f"draw {event.draw} of 0..{event.draw_range - 1}" in text
                    drawn += 1
    assert zero and drawn


def test_the_correction_says_whose_residual():
    said = set()
    for trace in _rounds():
        for event in trace:
            if isinstance(event, TraversalCorrectionEvent):
                head, lines = narration.sentences(event, narration.Setting(VOCAB, 2, "traversal:2"))
                said.add("root" if not event.path else "node")
                assert "residual" in head and "r = normalized" in " ".join(lines)
    assert said == {"root", "node"}


def test_a_kept_node_commits_its_whole_path_and_the_narrator_counts_it():
    for trace in _rounds():
        narrator = narration.Narrator(narration.Setting(VOCAB, 2, "traversal:2"), narration.TERMINAL)
        for event in trace:
            narrator.tell(event)
        result = trace.of_kind("result")[0]
        assert [t for t, _ in narrator.committed] == list(result.tokens)
        assert sum(origin == "accepted" for _, origin in narrator.committed) == result.accepted_drafts


def test_the_terminal_profile_writes_plain_numbers():
    trace = _round(4)
    event = next(e for e in trace if isinstance(e, TraversalCheckEvent))
    head, lines = narration.tell(event, narration.Setting(VOCAB, 2, "traversal:2"), profile=narration.TERMINAL)
    assert not any("**" in line for line in lines) and any("draw" in line for line in lines)


def test_values_name_every_number():
    trace = _round(0)
    event = next(e for e in trace if isinstance(e, TraversalCheckEvent))
    names = [name for name, _ in T.values(event, VOCAB)]
    assert names[:8] == ["draw", "draw range", f"p({VOCAB[event.token]})", f"r({VOCAB[event.token]})",
                         f"q′({VOCAB[event.token]})", "parent's weight", "entry weight", "weight tested"]
    assert T.values(trace.of_kind("result")[0], VOCAB) is None
    assert narration.CHECKING_BY_FAMILY["traversal:2"] == "from the leaves up (traversal verification)"


def test_a_zero_weight_node_says_its_subtree_is_not_visited():
    said = [" ".join(narration.sentences(e, narration.Setting(VOCAB, 3, "traversal:2"))[1])
            for seed in range(40) for e in _round(seed, depth=3) if isinstance(e, TraversalCheckEvent) and e.pruned]
    assert said and all("not visited" in text for text in said)
