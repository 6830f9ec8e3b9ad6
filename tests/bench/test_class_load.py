"""The class benchmark's arithmetic and settings: percentiles, the steady window, CPU per Step and per new round,
own seeds."""

from __future__ import annotations

import pytest

from bench import class_load, first_visit
from bench.class_load import ClassConfig, Classroom, Monitor, Solo, Wave, figures, pct


def test_percentiles_interpolate_and_say_nothing_for_nothing():
    assert pct([], 0.5) is None
    assert pct([3.0], 0.95) == 3.0
    assert pct([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert pct(list(range(101)), 0.95) == 95


def test_figures_count_only_the_steady_window():
    wave = Wave(students=2, steady_from=10.0, steady_to=20.0, opens=[1.0, 3.0],
                steps=[5.0, 11.0, 12.0, 13.0, 15.0, 16.0, 19.0],  # the first, during the ramp, is left out
                rounds=[(5.0, 9.0), (11.0, 0.1), (15.0, 0.2), (19.0, 0.3)],  # the Steps that asked for a new round
                cpu_s={"app": 0.6, "nginx": 0.1}, rss_before_mb=100, rss_peak_mb=150, rss_after_mb=120)
    f = figures(wave, Solo(open_s=0.1, steps_s=[0.05, 0.05], cpu_ms_per_step=10.0, link=""))
    assert (f["p50"], f["max"], f["solo"]) == ("200", "300", "4.0x")
    assert f["rate"] == "0.6" and f["round_rate"] == "0.3"  # 6 Steps, 3 of them new rounds, in 10 s
    assert f["cores"] == "0.07" and f["nginx"] == "0.01"
    assert f["cpu_step"] == "116.7"  # 0.7 s of server CPU over 6 Steps (the others asked nothing)
    assert f["cpu_round"] == "200"  # 0.6 s of app CPU over 3 new rounds
    assert f["open"] == "2.00" and f["opened"] == "2/2"
    assert f["rss"] == "100 → 150 → 120"


def test_a_wave_with_nothing_measured_prints_dashes():
    f = figures(Wave(students=3), Solo(0.1, [], None, ""))
    assert f["p50"] == f["open"] == f["rate"] == f["cores"] == f["cpu_step"] == f["cpu_round"] == "-"
    assert f["opened"] == "0/3"


def test_own_seeds_change_only_the_seed_of_the_link():
    link = "vocab=a%2Cb&p=1%2C2&q=2%2C1&depth=3&seed=0&step=0"
    room = Classroom(target=None, config=ClassConfig(students=3, own_seeds=True), link=link, static=[], seed=1)
    assert room.query_for(2) == "vocab=a%2Cb&p=1%2C2&q=2%2C1&depth=3&seed=1002&step=0"
    shared = Classroom(target=None, config=ClassConfig(students=3), link=link, static=[], seed=1)
    assert shared.query_for(2) == ""  # the page's own default link


def test_cpu_between_scales_the_nearest_samples_to_the_window():
    monitor = Monitor(target=None)
    monitor.samples = [(0.0, {"app": 1.0}, {"app": 100.0}), (1.0, {"app": 1.5}, {"app": 110.0}),
                       (2.0, {"app": 2.0, "nginx": 0.2}, {"app": 120.0, "nginx": 5.0})]
    assert monitor.cpu_between(0.0, 2.0) == {"app": 1.0, "nginx": 0.2}
    assert monitor.cpu_between(5.0, 6.0) == {}
    assert monitor.rss_peak(0.0, 2.0) == 125.0


@pytest.mark.parametrize("argv", [["--targets", "docker"], ["--targets", "serve:0"], ["--targets", "run:plain"],
                                  ["--students", "0"],
                                  ["--think", "3,1"], ["--think", "1"]])
def test_bad_settings_are_refused(argv, capsys):
    with pytest.raises(SystemExit):
        class_load.parse_args(argv)
    assert "error:" in capsys.readouterr().err


def test_settings_are_read():
    args = class_load.parse_args(["--targets", "run,serve,serve:4,serve:2:plain", "--students", "30,60"])
    assert args.kinds == [("run", 2, True), ("serve", 2, True), ("serve", 4, True), ("serve", 2, False)]
    assert args.sizes == [30, 60] and args.think_s == (1.0, 3.0)


def test_without_chromium_the_pages_own_list_is_a_lower_bound():
    html = ('<link rel="preload" href="./static/media/Font.woff2" as="font" />'
            '<script type="module" crossorigin src="./static/js/index.A1.js"></script>'
            '<link rel="modulepreload" crossorigin href="./static/js/react.B2.js">'
            '<link rel="stylesheet" href="./static/css/index.C3.css"><link rel="shortcut icon" href="./favicon.png" />')
    visit = first_visit.index_files(html)
    assert visit.paths == ["/static/media/Font.woff2", "/static/js/index.A1.js", "/static/js/react.B2.js",
                           "/static/css/index.C3.css", "/favicon.png"]
    assert "lower bound" in visit.how
