"""Why the output is exactly p: the proof's numbers and its figure."""

from fractions import Fraction

import plotly.graph_objects as go
import pytest

from specviz.playground import presets, proof, state
from specviz.plots import proof as plots


@pytest.mark.parametrize("name", list(presets.PRESETS))
@pytest.mark.parametrize("markov", [False, True])
def test_accepted_plus_corrected_is_p_exactly(name, markov):
    s = presets.apply_preset(presets.default_scenario(markov), name, markov).with_changes(
        target_temperature=0.5, draft_topk=4)
    for prefix in ((), (2,)):
        pr = proof.proof_at(s, prefix)
        assert pr.rebuilt == pr.p
        assert sum(pr.rejected_draft) == pr.rejection == sum(max(a - b, 0) for a, b in zip(pr.p, pr.q))
        assert sum(pr.p) == sum(pr.q) == 1


def test_proof_follows_the_mask_and_processors():
    s = presets.default_scenario().with_changes(target_mask=(True, True, False, True, True, True), target_top_k=3)
    pr = proof.proof_at(s, ())
    # top-3 keeps the, cat, sat; the mask then removes sat
    assert [x > 0 for x in pr.p] == [True, True, False, False, False, False] and pr.rebuilt == pr.p


def test_event_prefix_follows_the_animation():
    s = presets.apply_preset(presets.default_scenario(markov=True), "far apart", True)
    timeline = state.timeline_for(s)
    timeline.ensure_rounds(2)
    for event in timeline.events:
        prefix = proof.event_prefix(event, timeline.rounds[event.round_id].trace.events)
        if event.kind in ("check", "correction"):
            pr = proof.proof_at(s, prefix)
            assert pr.p == tuple(proof.exact_probs(event.p)) and pr.q == tuple(proof.exact_probs(event.q))


def test_proof_figure_stacks_sum_exactly_to_p():
    s = presets.apply_preset(presets.default_scenario(), "far apart")
    pr = proof.proof_at(s, ())
    fig = plots.proof_figure(pr)
    go.Figure(fig.to_dict())
    by_name = {(t.name, t.xaxis or "x"): t for t in fig.data}
    accepted = by_name[("accepted: min(p, q)", "x2")]
    corrected = by_name[("correction: (1 − α)·r(x)", "x2")]
    # the hovers carry the exact fractions; their sums are p token by token
    for i, p in enumerate(pr.p):
        a = Fraction(accepted.customdata[i].split(" ≈")[0])
        c = Fraction(corrected.customdata[i].split(" ≈")[0])
        assert a + c == p
    assert fig.layout.barmode == "stack"
    rejected = by_name[("rejected draft: (q − p)+", "x")]
    assert sum(Fraction(v.split(" ≈")[0]) for v in rejected.customdata) == pr.rejection
    assert str(pr.rejection) in fig.layout.xaxis.title.text  # the same area named in both pictures
    partial = plots.proof_figure(pr, corrections_shown=2)
    corrected = next(t for t in partial.data if t.name.startswith("correction"))
    assert list(corrected.y[2:]) == [0.0] * 4 and "2 of 6 tokens" in partial.layout.xaxis2.title.text
    assert "= p exactly" in fig.layout.xaxis2.title.text
    rows = plots.proof_rows(pr)
    assert all(Fraction(r["sum"].split(" ≈")[0]) == Fraction(r["p"].split(" ≈")[0]) for r in rows)


def test_the_proof_says_what_its_one_position_picture_leaves_out_for_each_rule():
    assert proof.rule_note("token") == ""
    assert proof.rule_note("block") == proof.BLOCK_NOTE
    for name in ("multi:2", "multi-distinct:3"):
        assert proof.rule_note(name) == proof.TREE_NOTE and "sibling" in proof.TREE_NOTE
