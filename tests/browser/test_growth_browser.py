"""The Growth order view in a real browser at 1280×720: depth-wise and leaf-wise trees of the
same round side by side, replayed split by split with ◀ and the slider, and in a presenter
panel; screenshots under tests/screenshots/growth/. Uses test_browser.py's server."""

import re

from harness import SHOTS, SMALLEST_FONT, charts_drawn, open_page, pointer_gone, run_of
from playwright.sync_api import expect

GROWTH = SHOTS / "growth"
LINK = "/?sample=diabetes&view=growth-order&round=3&tree_method=hist&max_leaves=8&max_depth=0"


def _chart(page):
    return page.locator(".st-key-growth_chart")


def _shoot(page, name: str) -> None:
    page.locator(".st-key-growth_step").first.evaluate("e => e.scrollIntoView({block: 'start'})")
    pointer_gone(page, 5, 700)  # the chart's toolbar shows only under the mouse
    page.screenshot(path=str(GROWTH / f"{name}.png"))


def test_replay_both_trees_at_720p(browser, server):  # noqa: F811
    GROWTH.mkdir(parents=True, exist_ok=True)
    page = open_page(browser, server + LINK)
    chart = _chart(page)
    expect(chart).to_contain_text("depth-wise", timeout=60_000)
    expect(chart).to_contain_text("7 of 7 splits, 8 leaves")
    box = chart.bounding_box()
    assert box["width"] <= 1280 and box["height"] <= 720
    _shoot(page, "growth-finished-720p")
    for left in (6, 5, 4, 3):  # four splits back
        with run_of(page):
            page.locator(".st-key-growth_back button").first.click()
        expect(chart).to_contain_text(f"{left} of 7 splits, {left + 1} leaves", timeout=60_000)
    expect(chart).to_contain_text("split 3:")
    _shoot(page, "growth-step-3-720p")
    with run_of(page):
        page.locator(".st-key-growth_forward button").first.click()
    expect(chart).to_contain_text("4 of 7 splits, 5 leaves", timeout=60_000)
    page.close()


def test_presenter_panel_at_720p(browser, server):  # noqa: F811
    page = open_page(browser, server + LINK + "&present=1")
    page.locator(".st-key-right_panel").click()
    with run_of(page):
        page.get_by_role("option", name=re.compile("Growth order")).click()
    chart = _chart(page)
    expect(chart.locator(".js-plotly-plot")).to_be_visible(timeout=60_000)
    charts_drawn(page)
    box = chart.bounding_box()
    assert box["y"] + box["height"] <= 720 + 1 and box["x"] + box["width"] <= 1280 + 1
    size, text = page.evaluate(SMALLEST_FONT)
    assert size >= 16, f"'{text}' is {size} px"
    pointer_gone(page, 5, 700)
    page.screenshot(path=str(GROWTH / "growth-presenter-720p.png"))
    page.close()
