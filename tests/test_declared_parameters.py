"""Every rule parameter is declared once, beside its settings (core.verification.PARAMS_BY_FAMILY), and every place
that offers or reads one is built from that declaration: the name's reader, the Playground's switch and its session
slots, the Exactness lab's controls and the command line's --help. A parameter added to a declaration shows up in
each; no other module spells a parameter's stops."""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from specviz.app import lab_rules
from specviz.app.playground import rule_switch, session
from specviz.cli.parser import build_parser
from specviz.core import ensemble, medusa, threshold, traversal, tree
from specviz.core.rule_params import Param, RuleParams, number_name, read_number
from specviz.core.verification import PARAMS_BY_FAMILY, declared, families, playable_forms, playable_help, rule
from specviz.lab import rule_rows

ROOT = Path(__file__).resolve().parents[1]
MODULES = {"tree": tree, "ensemble": ensemble, "threshold": threshold, "typical": medusa, "traversal": traversal}


def _numbers(params: RuleParams) -> list[Param]:
    return [p for p in params.params if not p.count]


@pytest.mark.parametrize("family", list(MODULES))
def test_each_family_declares_its_parameters_once_beside_its_settings(family):
    params = declared(family)
    assert params is MODULES[family].PARAMS  # the registry's table holds the rule module's own declaration
    defaults = params.defaults()
    settings = params.read(params.name(defaults))
    assert params.controls(settings) == defaults  # controls -> name -> settings -> controls, unchanged
    for param in _numbers(params):
        words = {stop for _, _, stop in param.words}
        for stop in param.stops:  # canonical spellings inside the declared range, in order
            value = param.value(stop)
            if stop not in words:
                assert number_name(value) == stop, (family, param.field, stop)
                assert param.read(stop, "test") == value
        numeric = [read_number(s) for s in param.stops if s not in words]
        assert numeric == sorted(numeric), (family, param.field)
        assert param.default in param.stops and (param.example is None or param.example in param.stops)


def test_every_family_part_of_a_name_is_read_by_its_familys_declaration():
    from specviz.core.verification import _FAMILIES

    heads = [head for family in families() for head in declared(family).heads]
    assert sorted(heads) == sorted(_FAMILIES) and len(heads) == len(set(heads))
    for head in heads:
        assert any(form.startswith(f"{head}:") for form in playable_forms()), head


def _stops_literals(path: Path) -> list[tuple[int, tuple[str, ...]]]:
    tree_ = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree_):
        if isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) >= 3 and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
            found.append((node.lineno, tuple(e.value for e in node.elts)))
    return found


def test_no_module_spells_a_parameters_stops_but_its_declaration():
    params = [(family, p) for family in MODULES for p in _numbers(declared(family))]
    declarations = {(Path(MODULES[family].__file__).resolve(), p.stops) for family, p in params}
    again = []
    for path in sorted((ROOT / "specviz").rglob("*.py")) + sorted((ROOT / "views").glob("*.py")):
        for line, values in _stops_literals(path):
            if (path.resolve(), values) in declarations:
                continue  # the declaration itself
            for family, p in params:
                numeric = set(p.stops) - {stop for _, _, stop in p.words}
                if len(numeric & set(values)) >= max(3, len(numeric) - 2):  # (nearly) the whole grid again
                    again.append(f"{path.relative_to(ROOT)}:{line}: {values} repeats {family}'s {p.field} stops")
    assert not again, "a parameter's stops are declared once, in its rule's PARAMS:\n" + "\n".join(again)


# --- a parameter added to a declaration shows up everywhere -----------------------------------------------------
@dataclass(frozen=True)
class ToySettings:
    """ensemble:W's settings with a toy parameter X that changes nothing (its name stays ensemble:W)."""

    weight: Fraction
    x: Fraction = Fraction(1)

    @property
    def name(self) -> str:
        return f"ensemble:{number_name(self.weight)}"


TOY_X = Param("x", "X", "Toy X", "a toy parameter", help="the toy's help", stops=("0.5", "1"), default="1",
              optional=True)


@pytest.fixture
def toy_declaration(monkeypatch):
    """ensemble's declaration with X added, in the registry's table (every reader looks there)."""
    toy = dataclasses.replace(ensemble.PARAMS, make=ToySettings, params=(*ensemble.PARAMS.params, TOY_X))
    monkeypatch.setitem(PARAMS_BY_FAMILY._entries, "ensemble", toy)
    added = session.add_rule_slots()
    yield toy
    for name in added:
        delattr(session.PlaygroundSession, name)
    monkeypatch.undo()
    session.add_rule_slots()


def _switch_script():
    from specviz.app.playground import rule_switch
    from specviz.app.playground.session import session

    pg = session()
    pg.verification = "ensemble"
    rule_switch._defaults(pg)
    rule_switch.parameter_controls(rule_switch.BY_KEY["ensemble"], pg)


def _lab_script():
    import streamlit as st

    from specviz.app import lab_rules

    st.session_state["rows"] = lab_rules._engine_controls()


def test_a_parameter_added_to_a_declaration_shows_up_in_the_switch_its_slots_the_lab_and_the_help(toy_declaration):
    assert "ensemble_x" in session.rule_slots() and "ensemble_x" in session.PlaygroundSession.slots()
    assert ("ensemble_x", "1") in rule_switch.BY_KEY["ensemble"].defaults()

    at = AppTest.from_function(_switch_script, default_timeout=30).run()
    assert not at.exception, at.exception
    slider = next(s for s in at.select_slider if s.key == "pg_ensemble_x")
    assert slider.label == "Toy X" and list(slider.options) == ["0.5", "1"] and slider.help == "the toy's help"

    at = AppTest.from_function(_lab_script, default_timeout=30).run()
    assert not at.exception, at.exception
    slider = at.select_slider(key=lab_rules.control_key("ensemble", "x"))
    assert slider.label == "transformers Toy X" and slider.value == "1" and list(slider.options) == ["0.5", "1"]
    assert "x" in rule_rows.controls("ensemble") and at.session_state["rows"][0] == "ensemble:0.5"

    assert "ensemble:W[,X]" in playable_forms()
    assert "X in (0, 1], 1 when omitted" in playable_help()
    play = build_parser()._subparsers._group_actions[0].choices["play"]  # --help as the command line prints it
    assert "ensemble:W[,X]" in " ".join(play.format_help().split())


def test_without_the_toy_every_reader_is_back_to_the_declaration():
    assert "ensemble_x" not in session.PlaygroundSession.slots()
    assert "ensemble:W" in playable_forms() and "ensemble:W[,X]" not in playable_forms()
    assert rule_rows.controls("ensemble") == ("weight",)


def test_the_lab_and_the_switch_start_where_the_declaration_says():
    assert rule_rows.default_rows() == ("ensemble:0.5", "threshold:1,1", "threshold:0.5,0.8", "sglang:0.5,0.8",
                                        "typical:0.09")
    pg = session.PlaygroundSession({})
    rule_switch.show(pg, "token")
    assert {name: getattr(pg, name) for name in session.rule_slots() if not name.startswith("traversal")} == {
        "tree_width": 2, "tree_distinct": False, "ensemble_weight": "0.5", "threshold_single": "1",
        "threshold_acc": "1", "threshold_width": 1, "threshold_top_k": False, "typical_eps": "0.09",
        "typical_delta": "0.3", "typical_fast": True, "exact_match_width": 1}
    assert rule(declared("typical").name(declared("typical").defaults())).name == "typical:0.09"
