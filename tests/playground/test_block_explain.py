"""Narration of block verification rounds: every exact number and draw of the trace, in words."""

from __future__ import annotations

from fractions import Fraction as F

from specviz.core import Trace
from specviz.core.trace import BlockCheckEvent, BlockDecisionEvent, ScaledCorrectionEvent
from specviz.narration import block as block_explain
from specviz.narration.block import fraction_text, narrate, narrate_event
from specviz.scenario import Scenario, Table, play_round

EXAMPLE = Scenario(vocab=("a", "b"), target=Table((1, 2)), draft=Table((2, 1)), depth=2, verification="block")


def rounds(scenario: Scenario, seeds=range(40)):
    for seed in seeds:
        s = scenario.with_changes(seed=seed)
        yield play_round(s, s.verifier(), 0)


def test_every_block_event_is_narrated_with_its_exact_numbers():
    seen = set()
    for played in rounds(EXAMPLE):
        for event in played.trace:
            told = narrate_event(event, EXAMPLE.vocab)
            if not isinstance(event, (BlockCheckEvent, BlockDecisionEvent, ScaledCorrectionEvent)):
                assert told is None
                continue
            head, lines = told
            text = "\n".join(lines)
            seen.add(type(event).__name__)
            if isinstance(event, BlockCheckEvent):
                assert f"block check at position {event.position + 1}" in head and ("no hit" in head) == (not event.hit)
                assert running_weight(event.position) in text
                assert f"draw {event.draw} of 0..{event.draw_range - 1}" in text
                assert fraction_text(event.weight) in text and fraction_text(event.p_token) in text
                if not event.last:
                    assert fraction_text(event.residual_mass) in text
            elif isinstance(event, BlockDecisionEvent):
                assert f"keep {event.accepted_drafts} of {len(event.drafts)}" in head
                assert f"τ = {event.accepted_drafts}." in text
            else:
                assert (f"w = w_{event.position} = {event.scale}" in text if event.position else
                        "w = 1: no draft was kept" in text)
                assert fraction_text(event.residual_mass) in text
                assert f"draw {event.draw} of 0..{event.draw_range - 1}" in text
    assert seen == {"BlockCheckEvent", "BlockDecisionEvent", "ScaledCorrectionEvent"}


def test_the_example_round_reads_as_the_paper_rule():
    # find a round drafting (a, a): at position 1 w_1 = 1/2, rho_1 = 0, so h_1 = 0; at position 2 h_2 = w_2 = 1/4
    # (Sun et al.'s w_1, h_1, h_2: positions count from 1 here too)
    for played in rounds(EXAMPLE, range(200)):
        decision = played.trace.of_kind("block_decision")[0]
        if decision.drafts == (0, 0):
            text = "\n".join(narrate(played.trace, EXAMPLE.vocab))
            assert "from 1 before the first draft: w_1 = min(1, p/q) = min(1, 1/2) = 1/2 ≈ 0.5000." in text
            assert "h_1 = ρ_1 / (ρ_1 + 1 − w_1) = 0 / (0 + 1 − 1/2) = 0" in text
            assert "h_2 = w_2 = 1/4 ≈ 0.2500" in text
            assert "P(τ = i), the chance that the last hit is at position i (none at all for i = 0), is " \
                   "(3/4, 0, 1/4)" in text
            return
    raise AssertionError("no round drafted (a, a)")


def test_p_equals_q_explains_the_empty_residual_and_a_stop_ends_without_bonus():
    same = EXAMPLE.with_changes(draft=Table((1, 2)), depth=3)
    text = "\n".join(narrate(next(rounds(same)).trace, same.vocab))
    assert "nothing to resample here, so h_1 = 0" in text and "a bonus token from p follows" in text
    stop = Scenario(vocab=("x", "."), target=Table((1, 1)), draft=Table((1, 3)), depth=2,
                    stop_ids=frozenset({1}), verification="block")
    endings = set()
    for played in rounds(stop):
        lines = narrate(played.trace, stop.vocab)
        decision = played.trace.of_kind("block_decision")[0]
        endings.add(decision.ending)
        if decision.ending == "stop":
            assert any("the request stops, no bonus" in line for line in lines)
    assert "stop" in endings


def test_non_block_traces_narrate_nothing():
    played = next(rounds(EXAMPLE.with_changes(verification="token")))
    assert narrate(played.trace, EXAMPLE.vocab) == [] and narrate(Trace(), EXAMPLE.vocab) == []
    assert fraction_text(F(1, 3)) == "1/3 ≈ 0.3333" and fraction_text(F(2)) == "2"


def test_a_callers_formats_write_every_number():
    from specviz.narration.block import Formats

    marked = Formats(fraction=lambda v: f"F[{v}]", exact=lambda v: f"E[{v}]", draw=lambda d, r: f"D[{d}/{r}]")
    for played in rounds(EXAMPLE, range(20)):
        for event in played.trace:
            told = narrate_event(event, EXAMPLE.vocab, marked)
            if isinstance(event, BlockCheckEvent):
                text = "\n".join(told[1])
                assert f"F[{event.weight}]" in text and f"D[{event.draw}/{event.draw_range}]" in text
                assert f"E[{event.draw}] {'<' if event.hit else '≥'} E[{event.stop_probability.numerator}]" in text
                assert " ≈ " not in text  # nothing is written by the default formats


def test_long_numbers_are_abbreviated_in_the_playgrounds_formats():
    from specviz import narration

    page = narration.PAGE.block_formats  # the Playground narrates in the page profile's formats
    long = F(10**20 + 1, 3 * 10**20)
    assert page.exact(long) == "≈ 0.3333" and page.exact(F(1, 3)) == "1/3"
    assert "20-digit" in page.fraction(long) or "21-digit" in page.fraction(long)


def running_weight(index: int) -> str:
    """The running weight's formula at the event's position (an index from 0; position k = index + 1), named by
    that position (the weight before position 1 is 1)."""
    k = index + 1
    return "w_1 = min(1, p/q)" if k == 1 else f"w_{k} = min(1, w_{k - 1} · p/q)"


def test_positions_count_from_1_and_the_convention_is_stated():
    """Issue 24 item 5, and issue 34's one convention: positions count from 1 as every count a person reads,
    and w_k, ρ_k, h_k carry the position k they are computed at (Sun et al.'s own numbering); τ counts drafts
    kept."""
    assert "Positions count from 1" in block_explain.POSITIONS and "computed at position k" in block_explain.POSITIONS
    for played in rounds(EXAMPLE, range(10)):
        for event in played.trace:
            told = narrate_event(event, EXAMPLE.vocab)
            if isinstance(event, BlockCheckEvent):
                k = event.position + 1
                assert f"block check at position {k}:" in told[0]
                text = "\n".join(told[1])
                assert running_weight(event.position) in text and f"h_{k} = ρ_{k} / (ρ_{k} + 1 − w_{k})" in text \
                    or event.last
                assert f"w_{k + 1}" not in text and f"h_{k + 1}" not in text  # no index but the position's
            if isinstance(event, BlockDecisionEvent):
                marks = ", ".join(f"{k + 1} {'✓' if hit else '✗'}" for k, hit in enumerate(event.hits))
                assert f"Stop draws by position: {marks}." in told[1][0]
