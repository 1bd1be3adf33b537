"""The Lab in a real browser at 1280×720 (and once at 1920×1080): a 1-D sweep and a click on
one of its points, a 2-D heatmap and a click on a cell (the model is loaded: its parameters in
the sidebar and the address bar), the tuning-order guide walked to its end and its model
loaded. Screenshots under tests/screenshots/lab/. Uses test_browser.py's server."""

import re
from contextlib import contextmanager
from urllib.parse import parse_qs, urlparse

import pytest
from harness import SHOTS, SMALLEST_FONT, charts_drawn, idle, new_page, pointer_gone, run_of
from playwright.sync_api import expect

from ui import guide

LAB_SHOTS = SHOTS / "lab"
# Where a data value of a trace sits on the page (x, y in the axes' linear units).
PLACE = """(gd, [lx, ly]) => {const l = gd._fullLayout; const r = gd.getBoundingClientRect();
  return [r.left + l.xaxis._offset + l.xaxis.l2p(lx), r.top + l.yaxis._offset + l.yaxis.l2p(ly)];
}"""




@pytest.fixture()
def page(browser):  # noqa: F811
    page = new_page(browser, viewport={"width": 1280, "height": 720})
    yield page
    page.close()


def _opened(page):
    """A page just opened: its first run over and its charts drawn."""
    idle(page)
    charts_drawn(page)


@contextmanager
def _ran(page):
    """The run the block's click starts, over, and the charts it drew drawn."""
    with run_of(page):
        yield
    charts_drawn(page)


def _query(page) -> dict:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


# The 2-D chart outlines the cell at (x0, y0) with a dashed line.
LOADED_CELL = """([x0, y0]) => (document.querySelector('.st-key-lab_chart .js-plotly-plot')
  ?.layout?.shapes || []).some(s => s.line?.dash === 'dash'
    && Math.abs(s.x0 - x0) < 0.005 && Math.abs(s.y0 - y0) < 0.005)"""


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
    # the pointer off the charts (in the sidebar): a point it clicked keeps its hover label
    pointer_gone(page, 5, page.viewport_size["height"] - 5)
    size, text = page.evaluate(SMALLEST_FONT)
    assert size >= 14, f"{name}: '{text}' is {size} px"
    LAB_SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(LAB_SHOTS / f"{name}.png"))


def _run(page, server, query: str):  # noqa: F811
    page.goto(f"{server}/?{query}")
    _opened(page)
    with _ran(page):
        page.locator(".st-key-lab_run button").click()
    expect(page.locator(".st-key-lab_chart .js-plotly-plot")).to_be_visible(timeout=120_000)
    charts_drawn(page)


def test_1d_sweep_and_a_click_on_a_point_loads_it(page, server):  # noqa: F811
    _run(page, server, "sample=noisy_1d&view=lab&lab=eta&lab_n=5")
    _shoot(page, "lab_chart", "lab-1d")
    chart = page.locator(".st-key-lab_chart .js-plotly-plot")
    legend = chart.evaluate("gd => gd.data.map(t => t.name)")
    assert legend[:3] == ["train", "validation ± fold std", "gap: valid − train"]
    # noisy_1d's 160 training rows: 5-fold cross-validation; the paired verdict said under
    # the chart and drawn on it alike (a star and "wins", or rings and "No clear winner")
    tied = "within one standard error of the lowest (no winner)" in legend
    assert tied != ("winner" in legend)
    said = "No clear winner" if tied else " wins"
    expect(page.locator("p").filter(has_text=said).filter(has_text="paired")).to_be_visible()
    assert chart.evaluate("gd => gd._fullLayout.xaxis.type") == "log"
    valid = chart.evaluate("gd => Array.from(gd._fullData[1].y)")  # eta 0.01, 0.0316, 0.1, 0.3, 1
    with _ran(page):
        page.mouse.click(*chart.evaluate(PLACE, [-1.0, valid[2]]))  # log axis: log10(0.1)
    expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text("Loaded eta = 0.1")
    assert _query(page)["eta"] == "0.1"
    _shoot(page, "lab_chart", "lab-1d-loaded", top=chart)  # the note under the chart


def test_2d_heatmap_and_a_click_on_a_cell_loads_that_model(page, server):  # noqa: F811
    _run(page, server, "sample=moons&view=lab&lab=max_depth,min_child_weight&lab_n=4")
    _shoot(page, "lab_chart", "lab-2d")
    chart = page.locator(".st-key-lab_chart .js-plotly-plot")
    xs, ys = chart.evaluate("gd => [gd.data[0].x, gd.data[0].y]")
    # max_depth up to 7 (a fold's 128 rows), with the 3 on screen and XGBoost's 6;
    # min_child_weight with the 1 on screen (XGBoost's default too)
    assert xs == ["1", "3", "5", "6", "7"] and ys == ["0", "0.1", "1", "3.16", "100"]
    with _ran(page):
        page.mouse.click(*chart.evaluate(PLACE, [4, 3]))  # max_depth 7, min_child_weight 3.16
    expect(page).to_have_url(re.compile(r"[?&]min_child_weight=3\.16(&|$)"))
    query = _query(page)
    assert (query["max_depth"], query["min_child_weight"]) == ("7", "3.16")
    slider = page.locator(".st-key-p_max_depth [data-testid=stSliderThumbValue]")
    expect(slider).to_have_text("7")  # the sidebar shows the loaded model
    # the loaded cell, outlined once Plotly has drawn the new figure
    page.wait_for_function(LOADED_CELL, arg=[3.52, 2.52], timeout=30_000)
    _shoot(page, "lab_chart", "lab-2d-loaded")


def test_the_guide_walked_to_its_end_and_its_model_loaded(page, server):  # noqa: F811
    page.goto(f"{server}/?sample=moons&view=lab&guide=1")
    _opened(page)
    best = []
    for i in range(len(guide.STEPS)):
        heading = page.locator("h4").filter(has_text="Tuning-order guide")
        expect(heading).to_contain_text(f"step {i + 1} of {len(guide.STEPS)}", timeout=120_000)
        charts_drawn(page)
        expect(page).to_have_url(re.compile(rf"[?&]guide={i + 1}(&|$)"))
        best.append(page.locator("p").filter(has_text=" — validation ").inner_text())
        if i == 0:  # one η: no "best" out of one value
            assert "(the only value this step tries)" in best[0] and "Best" not in best[0]
        _shoot(page, f"guide_{i}", f"guide-{i + 1}", top=page.locator("h4").filter(
            has_text="Tuning-order guide"))
        if i < len(guide.STEPS) - 1:
            with _ran(page):
                page.locator(".st-key-guide_next button").click()
    _shoot(page, "guide_summary", "guide-summary")
    found = page.locator("p").filter(has_text="The model found:").inner_text()
    rounds = re.search(r"num_boost_round = (\d+)", found).group(1)
    with _ran(page):
        page.locator(".st-key-guide_load button").click()
    expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text("This model is loaded")
    assert _query(page)["rounds"] == rounds and _query(page)["early_stopping_rounds"] == "0"
    expect(page.locator("body")).to_contain_text(re.compile(rf"Round \d+ of {rounds}\b"))
    page.goto(f"{server}/?sample=moons&view=lab&guide=4")  # a link to step 4: the same numbers
    _opened(page)
    expect(page.locator("p").filter(has_text=" — validation ")).to_have_text(best[3])


def test_2d_heatmap_at_1080p(browser, server):  # noqa: F811
    page = new_page(browser, viewport={"width": 1920, "height": 1080})
    _run(page, server, "sample=moons&view=lab&lab=max_depth,min_child_weight&lab_n=4")
    _shoot(page, "lab_chart", "lab-2d-1080p")
    page.close()


def test_the_marked_cells_of_an_honest_heatmap(page, server):  # noqa: F811
    # η = 0.01 has not converged in the 500 rounds a sweep trains: its cells carry ▼
    _run(page, server, "sample=moons&view=lab&lab=max_depth,eta&lab_n=3")
    chart = page.locator(".st-key-lab_chart .js-plotly-plot")
    marks = chart.evaluate("gd => gd._fullData.find(t => t.name === 'still improving').x.length")
    assert marks >= 1
    title = chart.evaluate("gd => gd._fullLayout.title.text")
    assert "(▼ still improving)" in title
    verdict = page.locator("p").filter(has_text=re.compile(r"( wins — |^No clear winner)"))
    expect(verdict).to_be_visible()
    _shoot(page, "lab_chart", "lab-2d-marked")
