"""Lessons and presenter mode with Streamlit's AppTest: every lesson walked step by step, the
four-point lesson's numbers against the hand computation of the classic worked example,
hostile lesson links, and the user's work kept across presenter mode and lessons."""


import pytest
from apptest import APP, clear_caches, open_app, player, rest_on  # noqa: F401  (clear_caches: autouse)
from streamlit.testing.v1 import AppTest

from boost.params import BY_NAME
from ui.lessons import LESSONS, REGISTRY
from ui.lessons.facts import said
from ui.lessons.steps import Lesson, Step, check
from ui.samples import BY_KEY

_app = open_app


def _said(at) -> str:
    """The lesson's step text (the markdown inside the lesson_say container)."""
    texts = [m.value for m in at.markdown]
    heads = [i for i, t in enumerate(texts) if "· step" in t]
    assert heads, texts
    return texts[heads[0] + 1]


def _walk(at: AppTest, lesson: Lesson) -> list[str]:
    """Press Next until the end; every screen's step text (no exception, no error)."""
    seen = []
    for _ in range(2 * len(lesson.steps) + 1):
        assert not at.exception, at.exception
        assert not at.error, [e.value for e in at.error]
        seen.append(_said(at))
        if at.button(key="lesson_next").disabled:
            break
        at.button(key="lesson_next").click().run()
    return seen


def _hand_four_points() -> dict:
    """The classic worked example by hand: base_score 0.5, lambda 0 (and 1)."""
    r = [-10 - 0.5, 7 - 0.5, 8 - 0.5, -7 - 0.5]

    def sim(rows, lam=0.0):
        return sum(rows) ** 2 / (len(rows) + lam)

    root = sim(r)
    return {"root": root, "left": sim(r[:1]), "right": sim(r[1:]),
            "g15": sim(r[:1]) + sim(r[1:]) - root,
            "g30": sim(r[:3]) + sim(r[3:]) - root,
            "g22": sim(r[:2]) + sim(r[2:]) - root,
            "second": sim(r[1:3]) + sim(r[3:]) - sim(r[1:]),
            "left_lambda1": sim(r[:1], 1.0)}


def test_four_points_lesson_says_the_classic_numbers():
    hand = _hand_four_points()
    assert round(hand["root"], 2) == 4 and round(hand["g15"], 2) == 120.33
    at = _app(lesson="four-points")
    text = " ".join(_walk(at, LESSONS["four-points"]))
    for value in hand.values():  # in the one rule of numbers shown (boost.trace.rounding)
        assert said(value) in text, (said(value), text)
    for shown in ("110.25", "14.08", "120.33", "140.17", "55.13"):
        assert shown in text


@pytest.mark.parametrize("slug", [lesson.slug for lesson in REGISTRY])
def test_every_lesson_walks_to_its_end(slug):
    lesson = LESSONS[slug]
    at = _app(lesson=slug)
    seen = _walk(at, lesson)
    assert len(seen) == len(lesson.steps) + sum(1 for s in lesson.steps if s.ask)
    assert all("could not be read" not in s for s in seen)
    assert at.button(key="lesson_next").disabled


def test_back_unreveals_then_goes_back():
    at = _app(lesson="four-points", step="2")
    first = _said(at)
    at.button(key="lesson_next").click().run()  # reveals step 2's answer
    revealed = _said(at)
    assert revealed != first and "120.33" in revealed
    at.button(key="lesson_back").click().run()
    assert _said(at) == first
    at.button(key="lesson_back").click().run()
    assert "Four drug dosages" in _said(at)


def test_exit_restores_the_data_and_parameters_from_before():
    at = _app(sample="diabetes", eta="0.05")
    at.button(key="lesson_four-points").click().run()
    assert at.session_state["p_lambda"] == 0.0
    assert "· step 1 of" in " ".join(m.value for m in at.markdown)
    at.button(key="lesson_exit").click().run()
    assert not at.exception
    assert at.selectbox(key="sample").value == "diabetes"
    assert at.selectbox(key="target").value == "progression"
    assert at.session_state["p_eta"] == 0.05
    assert at.session_state["p_lambda"] == 1.0


@pytest.mark.parametrize("query", [
    {"lesson": "no-such-lesson"}, {"lesson": "<b>x</b>"}, {"lesson": "four-points",
                                                           "step": "999"},
    {"lesson": "four-points", "step": "-3"}, {"lesson": "four-points", "step": "nan"},
    {"present": "2"}, {"present": "yes"}, {"present": "1", "view": "1e308"},
])
def test_hostile_lesson_and_presenter_links_open(query):
    at = _app(**query)
    assert not at.error
    if query.get("lesson") == "four-points":
        assert "· step" in " ".join(m.value for m in at.markdown)
    elif "lesson" in query:
        assert any("is not one of the lessons" in c.value for c in at.caption)


def test_presenter_mode_keeps_the_parameters_and_the_sidebar_comes_back():
    at = _app(sample="noisy_1d", max_depth="5", eta="0.2")
    at.toggle(key="present").set_value(True).run()
    assert not at.sidebar.selectbox  # no sidebar while presenting
    rest_on(at, 1)
    at.button(key="panel_key_3").click().run()  # the number key 3: node arithmetic
    assert at.session_state["right_panel"] == "node"
    at.button(key="leave_present").click().run()
    assert at.session_state["p_max_depth"] == 5 and at.session_state["p_eta"] == 0.2
    assert at.sidebar.slider(key="p_max_depth").value == 5
    assert not [w for w in at.warning if "Stale" in w.value]


def test_presenter_mode_sends_the_player_its_panels_in_projector_type():
    at = _app(sample="noisy_1d", round="3")
    at.toggle(key="present").set_value(True).run()
    trace = player(at)
    assert trace["panels"] == ["fit", "tree"] and trace["large"] and trace["fill"]
    assert trace["goto"]["round"] == 3 and trace["keys"]
    at.selectbox(key="right_panel").set_value("node").run()  # the arithmetic: the page's
    assert player(at)["panels"] == ["fit", "node"]


def test_a_lesson_keeps_the_arrow_keys_for_its_steps():
    at = _app(lesson="four-points")
    assert player(at)["keys"] is False
    assert at.button(key="lesson_next").proto.shortcut.lower() == "right"


def test_a_changed_target_retrains_at_once_on_small_data():
    at = _app(sample="penguins")
    before = at.session_state["app"].model.last_good
    at.selectbox(key="target").set_value("island").run()
    after = at.session_state["app"].model.last_good
    assert before.config["target"] == "species" and after.config["target"] == "island"
    assert list(after.prep.class_names) == ["Biscoe", "Dream", "Torgersen"]
    assert not [w for w in at.warning if "Stale" in w.value]  # live: never stale


def test_lessons_use_table_parameters_in_range():
    for lesson in REGISTRY:
        check(lesson)
        assert lesson.sample in BY_KEY
        for step in lesson.steps:
            assert set(step.params) <= set(BY_NAME)
    bad = Lesson("bad", "Bad", "", "four_points", (Step("x", params={"eta": 5.0}),))
    with pytest.raises(ValueError, match="eta=5.0 is not a value the app accepts"):
        check(bad)


def test_lesson_sentences_match_what_the_screen_draws():
    # pruning step 1: exact's and hist's thresholds differ but divide the four x's alike
    at = _app(lesson="pruning")
    said = _said(at)
    x = [10.0, 20.0, 25.0, 35.0]  # the four points' x (sample_data/four_points.csv)
    import re
    thresholds = [float(t) for t in re.findall(r"x < ([\d.]+)", said)]
    assert thresholds == [15, 30, 20, 35], said
    for exact, hist in ((thresholds[0], thresholds[2]), (thresholds[1], thresholds[3])):
        assert [v < exact for v in x] == [v < hist for v in x]
    # pruning step 3: the trees' ends are counted, not asserted equal
    for _ in range(3):
        at.button(key="lesson_next").click().run()
    assert re.search(r"(Both end with \d+ splits?|exact ends with \d+ splits?, hist with \d+)",
                     _said(at)), _said(at)
    # learning-rate step 4: as many η as the chart draws, and the winner named
    lr = _app(lesson="learning-rate", step="4")
    assert _said(lr).startswith("Four learning rates, 100 rounds each.")
    lr.button(key="lesson_reveal").click().run()
    revealed = " ".join(m.value for m in lr.markdown)
    race = dict(re.findall(r"η = ([\d.]+): ([\d.]+) \(round", revealed))
    assert set(race) == {"0.01", "0.1", "0.3", "1"}, revealed
    winner = min(race, key=lambda k: float(race[k]))
    assert f"η = {winner}, at its best round." in revealed
