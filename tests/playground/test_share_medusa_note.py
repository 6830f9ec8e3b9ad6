"""An old link or file with typical:EPS opens Medusa's default δ = 0.3 and says in one line that δ changed."""

from specviz.playground import presets, share


def _link(verification: str) -> dict[str, str]:
    scenario = presets.preset_scenario("close", 5, 2, False).with_changes(verification=verification)
    return share.scenario_to_query(scenario)


def test_an_old_typical_link_opens_with_a_note_that_delta_changed():
    old = {key: value for key, value in _link("typical:0.05").items() if key != share.STEP_KEY}  # step= from 0
    opened = share.scenario_from_query({**old, "verification": "typical:0.05", "step": "3"})
    assert opened[0].verification == "typical:0.05" and opened[1] == 3
    assert opened.notes == ("‘typical:0.05’ now uses Medusa's default δ = 0.3, as medusa_generate does (it was "
                            "√ε ≈ 0.2236); ‘typical:0.05,sqrt’ keeps δ = √ε",)


def test_a_link_written_now_names_delta_and_opens_without_a_note():
    for name in ("typical:0.05", "typical-sample:0.2", "typical:0.05,sqrt", "typical:0.05,0.2", "token", "block"):
        query = _link(name)
        assert query.get("verification", "token") == (name + ",0.3" if name in ("typical:0.05", "typical-sample:0.2")
                                                       else name)
        opened = share.scenario_from_query(query)
        assert opened[0].verification == name and opened.notes == ()
