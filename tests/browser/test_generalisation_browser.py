"""The generalisation view in a real browser at 1280×720 (and once at 1920×1080): opened from
a link, the second η typed in (and written to the link), a step forward, a regression sample
and a presenter panel; screenshots under tests/screenshots/lab/ (generalise-*.png). Uses
test_browser.py's server."""

import re

from harness import (
    SHOTS,
    SMALLEST_FONT,
    _status,
    charts_drawn,
    open_page,
    player_button,
    pointer_gone,
    run_of,
)
from playwright.sync_api import expect

LAB = SHOTS / "lab"


def _reading(page):
    return page.locator('[data-testid="stMarkdownContainer"]').filter(
        has_text="train–validation gap").first


def _shoot(page, key: str, name: str, block: str = "start") -> None:
    """Scroll the element with key ``key`` to the top (or end) of the screen and shoot."""
    page.locator(f".st-key-{key}").first.evaluate(
        f"e => e.scrollIntoView({{block: '{block}'}})")
    pointer_gone(page, 5, 700)  # no chart toolbar under the pointer after the scroll
    page.screenshot(path=str(LAB / f"{name}.png"))


def test_binary_at_720p_type_a_second_eta_and_step(browser, server):  # noqa: F811
    LAB.mkdir(parents=True, exist_ok=True)
    page = open_page(browser, f"{server}/?sample=moons&view=generalisation&round=10")
    expect(_reading(page)).to_contain_text("By round 10 the train–validation gap (logloss")
    expect(_reading(page)).to_contain_text("with η = 0.3 but")
    _shoot(page, "gen_eta", "generalise-binary-reading-720p")
    _shoot(page, "gen_margins", "generalise-binary-margins-720p", block="end")
    _shoot(page, "gen_gap", "generalise-binary-steps-gap-720p", block="end")

    box = page.locator(".st-key-gen_eta input")
    box.fill("0.1")
    with run_of(page):
        box.press("Enter")
    expect(_reading(page)).to_contain_text("η = 0.1", timeout=60_000)
    expect(page).to_have_url(re.compile(r"[?&]eta2=0\.1(&|$)"))
    with run_of(page):  # the player steps; the view follows at rest
        player_button(page, "step").click()
        expect(_status(page)).to_contain_text("Round 11 of")
    expect(_reading(page)).to_contain_text("By round 11", timeout=60_000)
    expect(page).to_have_url(re.compile(r"[?&]round=11(&|$)"))
    charts_drawn(page)
    _shoot(page, "gen_eta", "generalise-binary-eta-0.1-round-11-720p")
    page.close()


def test_regression_at_720p(browser, server):  # noqa: F811
    page = open_page(browser, f"{server}/?sample=diabetes&view=generalisation&round=30&rounds=60")
    expect(_reading(page)).to_contain_text("By round 30 the train–validation gap (rmse")
    expect(_reading(page)).to_contain_text("median |residual|")
    _shoot(page, "gen_eta", "generalise-regression-reading-720p")
    _shoot(page, "gen_gap", "generalise-regression-steps-gap-720p", block="end")
    page.close()


def test_presenter_panel_at_720p(browser, server):  # noqa: F811
    page = open_page(browser, f"{server}/?sample=noisy_1d&present=1&round=8")
    page.locator(".st-key-right_panel").click()
    with run_of(page):
        page.get_by_role("option", name=re.compile("Why it generalises")).click()
    chart = page.locator(".st-key-gen_margins")
    expect(chart.locator(".js-plotly-plot")).to_be_visible()
    charts_drawn(page)
    box = chart.bounding_box()
    assert box["y"] + box["height"] <= 720 + 1 and box["x"] + box["width"] <= 1280 + 1
    size, text = page.evaluate(SMALLEST_FONT)
    assert size >= 16, f"'{text}' is {size} px"
    pointer_gone(page, 5, 700)  # the chart's toolbar shows only under the mouse
    page.screenshot(path=str(LAB / "generalise-presenter-720p.png"))
    page.close()


def test_binary_at_1080p(browser, server):  # noqa: F811
    page = open_page(browser, f"{server}/?sample=moons&view=generalisation&round=25&rounds=60",
                 1920, 1080)
    expect(_reading(page)).to_contain_text("By round 25")
    _shoot(page, "gen_eta", "generalise-binary-1080p")
    page.close()
