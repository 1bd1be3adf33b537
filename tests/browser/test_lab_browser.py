"""The Lab in a real browser at 1280×720 (and once at 1920×1080): a 1-D sweep and a click on
one of its points, a 2-D heatmap and a click on a cell (the model is loaded: its parameters in
the sidebar and the address bar), the tuning-order guide walked to its end and its model
loaded. Screenshots under tests/screenshots/lab/. Uses test_browser.py's server."""

import re
from urllib.parse import parse_qs, urlparse

import pytest
from harness import SHOTS, SMALLEST_FONT, _settled  # noqa: F401

from ui import guide

LAB_SHOTS = SHOTS / "lab"
# Where a data value of a trace sits on the page (x, y in the axes' linear units).
PLACE = """(gd, [lx, ly]) => {const l = gd._fullLayout; const r = gd.getBoundingClientRect();
  return [r.left + l.xaxis._offset + l.xaxis.l2p(lx), r.top + l.yaxis._offset + l.yaxis.l2p(ly)];
}"""




@pytest.fixture()
def page(browser):  # noqa: F811
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    yield page
    page.close()


def _wait(page):
    _settled(page)
    page.wait_for_timeout(1200)  # Plotly draws after the script has finished


def _query(page) -> dict:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


# An element at the top of the screen, below Streamlit's header bar.
TO_TOP = """e => { e.scrollIntoView({block: 'start'}); let p = e.parentElement;
  while (p && p.scrollHeight <= p.clientHeight) p = p.parentElement; if (p) p.scrollBy(0, -70); }"""


def _shoot(page, key: str, name: str, top=None) -> None:
    """The element of ``key`` scrolled into view (or ``top`` to the top of the screen); no
    exception, no error, no text under 14 px on screen; a screenshot."""
    assert page.get_by_test_id("stException").count() == 0, name
    assert not page.get_by_test_id("stAlertContentError").all_inner_texts(), name
    page.locator(f".st-key-{key}").first.scroll_into_view_if_needed()
    if top is not None:
        top.evaluate(TO_TOP)
    page.wait_for_timeout(400)
    size, text = page.evaluate(SMALLEST_FONT)
    assert size >= 14, f"{name}: '{text}' is {size} px"
    LAB_SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(LAB_SHOTS / f"{name}.png"))


def _run(page, server, query: str):  # noqa: F811
    page.goto(f"{server}/?{query}")
    _wait(page)
    page.locator(".st-key-lab_run button").click()
    _wait(page)


def test_1d_sweep_and_a_click_on_a_point_loads_it(page, server):  # noqa: F811
    _run(page, server, "sample=noisy_1d&view=lab&lab=eta&lab_n=5")
    _shoot(page, "lab_chart", "lab-1d")
    chart = page.locator(".st-key-lab_chart .js-plotly-plot")
    legend = chart.evaluate("gd => gd.data.map(t => t.name)")
    assert legend[:4] == ["train", "validation", "gap: valid − train", "best value"]
    assert chart.evaluate("gd => gd._fullLayout.xaxis.type") == "log"
    valid = chart.evaluate("gd => Array.from(gd._fullData[1].y)")  # eta 0.01, 0.0316, 0.1, 0.316, 1
    page.mouse.click(*chart.evaluate(PLACE, [-1.0, valid[2]]))  # log axis: log10(0.1)
    _wait(page)
    assert _query(page)["eta"] == "0.1"
    assert "Loaded eta = 0.1" in page.get_by_test_id("stAlertContentSuccess").inner_text()
    _shoot(page, "lab_chart", "lab-1d-loaded")


def test_2d_heatmap_and_a_click_on_a_cell_loads_that_model(page, server):  # noqa: F811
    _run(page, server, "sample=moons&view=lab&lab=max_depth,min_child_weight&lab_n=4")
    _shoot(page, "lab_chart", "lab-2d")
    chart = page.locator(".st-key-lab_chart .js-plotly-plot")
    xs, ys = chart.evaluate("gd => [gd.data[0].x, gd.data[0].y]")
    assert xs == ["1", "4", "7", "10"] and ys == ["0", "0.1", "3.16", "100"]
    page.mouse.click(*chart.evaluate(PLACE, [3, 2]))  # max_depth 10, min_child_weight 3.16
    _wait(page)
    query = _query(page)
    assert (query["max_depth"], query["min_child_weight"]) == ("10", "3.16")
    slider = page.locator(".st-key-p_max_depth [data-testid=stSliderThumbValue]")
    assert slider.inner_text() == "10"  # the sidebar shows the loaded model
    shapes = chart.evaluate("gd => gd.layout.shapes.map(s => [s.line.dash, s.x0, s.y0])")
    assert ["dash", pytest.approx(2.52), pytest.approx(1.52)] in shapes  # the loaded cell
    _shoot(page, "lab_chart", "lab-2d-loaded")


def test_the_guide_walked_to_its_end_and_its_model_loaded(page, server):  # noqa: F811
    page.goto(f"{server}/?sample=moons&view=lab&guide=1")
    _wait(page)
    best = []
    for i in range(len(guide.STEPS)):
        heading = page.locator("h4").filter(has_text="Tuning-order guide").inner_text()
        assert f"step {i + 1} of {len(guide.STEPS)}" in heading
        assert _query(page)["guide"] == str(i + 1)
        best.append(page.locator("p").filter(has_text=re.compile("^Best: ")).inner_text())
        _shoot(page, f"guide_{i}", f"guide-{i + 1}", top=page.locator("h4").filter(
            has_text="Tuning-order guide"))
        if i < len(guide.STEPS) - 1:
            page.locator(".st-key-guide_next button").click()
            _wait(page)
    _shoot(page, "guide_summary", "guide-summary")
    found = page.locator("p").filter(has_text="The model found:").inner_text()
    rounds = re.search(r"num_boost_round = (\d+)", found).group(1)
    page.locator(".st-key-guide_load button").click()
    _wait(page)
    assert _query(page)["rounds"] == rounds and _query(page)["early_stopping_rounds"] == "0"
    assert "This model is loaded" in page.get_by_test_id("stAlertContentSuccess").inner_text()
    assert re.search(rf"Round \d+ of {rounds}\b", page.locator("body").inner_text())
    page.goto(f"{server}/?sample=moons&view=lab&guide=4")  # a link to step 4: the same numbers
    _wait(page)
    assert page.locator("p").filter(has_text=re.compile("^Best: ")).inner_text() == best[3]


def test_2d_heatmap_at_1080p(browser, server):  # noqa: F811
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    _run(page, server, "sample=moons&view=lab&lab=max_depth,min_child_weight&lab_n=4")
    _shoot(page, "lab_chart", "lab-2d-1080p")
    page.close()
