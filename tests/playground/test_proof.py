"""Why the output is exactly p: the proof's numbers and its figure."""

from fractions import Fraction

import plotly.graph_objects as go
import pytest

from specviz import theory
from specviz.core import rule
from specviz.playground import presets, proof, state
from specviz.plots import proof_figures as plots


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


@pytest.mark.parametrize("name", ["ensemble:0.5", "ensemble:1", "threshold:1,1", "threshold:0.5,0.8", "typical:0.09",
                                  "typical-sample:0.3"])
@pytest.mark.parametrize("preset", ["close", "far apart", "disjoint supports"])
def test_an_engine_rule_is_pictured_by_its_own_law_against_p(name, preset):
    s = presets.apply_preset(presets.default_scenario(), preset).with_changes(verification=name)
    pr = proof.proof_at(s, ())
    p, q = pr.p, pr.q
    law = theory.first_token_law(s.processor()((), s.target_model()(())), s.draft_model()(()), name)
    assert pr.rebuilt == law and pr.names.rule == rule(name).short  # kept + instead: the rule's committed law
    assert pr.distance == theory.total_variation(dict(enumerate(law)), dict(enumerate(p)))
    assert (pr.distance == 0) == (law == p)
    assert all(a + r == b for a, r, b in zip(pr.accepted, pr.rejected_draft, q, strict=True))  # q = kept + not kept
    assert sum(pr.rejected_draft) == pr.rejection and proof.rule_note(name) in (
        proof.ENSEMBLE_NOTE, proof.THRESHOLD_NOTE, proof.TYPICAL_NOTE)
    fig = plots.proof_figure(pr)
    names = [t.name for t in fig.data]
    assert names[:2] == ["kept by the rule", "draft not kept: (q − kept)+"] and "committed instead" in names
    title = fig.layout.title.text
    assert ("not p" in title and "TV to p" in title) if pr.distance else "commits exactly p" in title
    assert ("not p" in plots.verdict(pr)) == bool(pr.distance)
