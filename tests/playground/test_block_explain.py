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
                i = event.position + 1
                assert f"block check at position {event.position}" in head and ("no hit" in head) == (not event.hit)
                assert f"w_{i} = min(1, w_{i - 1} · p/q)" in text
                assert f"draw {event.draw} of 0..{event.draw_range - 1}" in text
                assert fraction_text(event.weight) in text and fraction_text(event.p_token) in text
                if not event.last:
                    assert fraction_text(event.residual_mass) in text
            elif isinstance(event, BlockDecisionEvent):
                assert f"keep {event.accepted_drafts} of {len(event.drafts)}" in head
                assert f"τ = {event.accepted_drafts}." in text
            else:
                assert f"w_{event.position} = {event.scale}" in text or event.scale == 1
                assert fraction_text(event.residual_mass) in text
                assert f"draw {event.draw} of 0..{event.draw_range - 1}" in text
    assert seen == {"BlockCheckEvent", "BlockDecisionEvent", "ScaledCorrectionEvent"}


def test_the_example_round_reads_as_the_paper_rule():
    # find a round drafting (a, a): w_1 = 1/2, rho_1 = 0, so h_1 = 0 and h_2 = w_2 = 1/4
    for played in rounds(EXAMPLE, range(200)):
        decision = played.trace.of_kind("block_decision")[0]
        if decision.drafts == (0, 0):
            text = "\n".join(narrate(played.trace, EXAMPLE.vocab))
            assert "w_1 = min(1, w_0 · p/q) = min(1, 1 · 1/2) = 1/2 ≈ 0.5000" in text
            assert "h_1 = ρ_1 / (ρ_1 + 1 − w_1) = 0 / (0 + 1 − 1/2) = 0" in text
            assert "h_2 = w_2 = 1/4 ≈ 0.2500" in text
            assert "P(τ = i) = h_i · Π_{j>i} (1 − h_j) = (3/4, 0, 1/4)" in text
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


def test_positions_count_from_0_and_the_convention_is_stated():
    """Issue 20 item 5: one convention: positions from 0; w_i, h_i and τ count drafts kept."""
    assert "Positions count from 0" in block_explain.POSITIONS and "w_{k+1}" in block_explain.POSITIONS
    for played in rounds(EXAMPLE, range(10)):
        for event in played.trace:
            told = narrate_event(event, EXAMPLE.vocab)
            if isinstance(event, BlockCheckEvent):
                assert f"block check at position {event.position}:" in told[0]
                assert f"w_{event.position + 1} = min(1, w_{event.position} · p/q)" in "\n".join(told[1])
            if isinstance(event, BlockDecisionEvent):
                marks = ", ".join(f"{k} {'✓' if hit else '✗'}" for k, hit in enumerate(event.hits))
                assert f"Stop draws by position (from 0): {marks}." in told[1][0]
