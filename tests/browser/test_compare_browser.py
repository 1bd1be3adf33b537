"""A/B pins in a real browser at 1280×720: pin the model, change η, train, open the compare
view; every chart inside the window's width, no exception, the pin in the address bar; the
screens saved under tests/screenshots/lab/ (compare-*.png). Uses test_browser.py's server."""

import re

from harness import SHOTS, charts_drawn, idle, new_page, pointer_gone, run_of
from playwright.sync_api import expect

LAB_SHOTS = SHOTS / "lab"
CHART_BOXES = """() => [...document.querySelectorAll('.js-plotly-plot')]
  .map(e => e.getBoundingClientRect()).filter(r => r.width > 0)
  .map(r => [r.left, r.right])"""


def _wait(page):
    idle(page)
    charts_drawn(page)


def _click(page, key: str) -> None:
    """Click the button with ``key`` (a button with an icon and help text holds a second,
    hidden copy of its label as a button), wait for its run and the charts it draws."""
    with run_of(page):
        page.locator(f".st-key-{key} button:visible").first.click()
    charts_drawn(page)


def _shoot(page, selector: str, name: str) -> None:
    """Scroll ``selector`` to the top of the window and save the screen."""
    page.locator(selector).first.evaluate("e => e.scrollIntoView({block: 'start'})")
    # no tooltip or chart toolbar left over from the last click: the pointer in the window's
    # bottom-right corner (beside the charts at 720p and at 1080p)
    size = page.viewport_size
    pointer_gone(page, size["width"] - 5, size["height"] - 5)
    page.screenshot(path=str(LAB_SHOTS / f"{name}.png"))


def test_pin_change_eta_and_compare_at_720p(browser, server):  # noqa: F811
    LAB_SHOTS.mkdir(parents=True, exist_ok=True)
    page = new_page(browser, viewport={"width": 1280, "height": 720})
    page.goto(server + "/?sample=noisy_1d&round=1")
    _wait(page)
    _click(page, "side_pin")
    pinned = page.get_by_text(re.compile(r"^pin 1: ")).first
    expect(pinned).to_be_visible(timeout=30_000)
    said = pinned.inner_text()  # its own parameters: the label stays as the knobs move
    page.locator(".st-key-p_eta").scroll_into_view_if_needed()  # drawn once in view
    slider = page.locator('.st-key-p_eta input[type="range"]')
    slider.focus()
    for hundredths in range(29, 9, -1):  # 0.3 -> 0.1 in steps of 0.01; live: each retrains
        # one press at a time, its run over: a press made while a run is under way can be
        # undone by that run (the slider set back to the value the run started with)
        with run_of(page):
            page.keyboard.press("ArrowLeft")
        expect(slider).to_have_attribute("aria-valuetext", f"0.{hundredths:02d}")
    expect(page.get_by_text(said, exact=True).first).to_be_visible(timeout=30_000)
    _click(page, "side_compare")
    # the view opens in the window (below the stage, it was out of sight at 720p)
    page.wait_for_function("""() => { const r = document.querySelector('.st-key-cmp_pin_loss')
        ?.getBoundingClientRect(); return r && r.top >= 0 && r.top < innerHeight / 2; }""",
                           timeout=30_000)
    for key in ("cmp_pin_loss", "cmp_pin_fit", "cmp_pin_tree_left", "cmp_pin_tree_right",
                "cmp_pin_leaves"):
        expect(page.locator(f".st-key-{key} .js-plotly-plot")).to_be_visible(timeout=60_000)
    expect(page).to_have_url(re.compile(r"view=compare"), timeout=10_000)
    expect(page).to_have_url(re.compile(r"[?&]pin=defaults(&|$)"))  # eta 0.3 is the default
    expect(page).to_have_url(re.compile(r"[?&]eta=0.1(&|$)"))
    assert page.get_by_test_id("stException").count() == 0
    assert page.get_by_test_id("stAlertContentError").count() == 0
    for left, right in page.evaluate(CHART_BOXES):
        assert left >= 0 and right <= 1280 + 1, (left, right)
    _shoot(page, ".st-key-cmp_pin", "compare-720p-pins-and-loss")
    _shoot(page, ".st-key-cmp_pin_fit", "compare-720p-fits")
    # Round 1 grows both trees from the same baseline: the same splits, every leaf's η·w
    # three times larger in the pin (η 0.3 against 0.1).
    expect(page.get_by_text("8 × leaf value moved")).to_be_visible()
    _shoot(page, ".st-key-cmp_pin_tree_left", "compare-720p-trees")
    _shoot(page, ".st-key-cmp_pin_leaves", "compare-720p-leaves")
    page.close()


def test_a_shared_compare_link_at_1080p(browser, server):  # noqa: F811
    LAB_SHOTS.mkdir(parents=True, exist_ok=True)
    page = new_page(browser, viewport={"width": 1920, "height": 1080})
    page.goto(server + "/?sample=diabetes&view=compare&round=1&max_depth=3"
              "&pin=min_child_weight-20&pin=lambda-20&pin=max_depth-4~eta-0.1")
    _wait(page)
    expect(page.locator(".st-key-cmp_pin_tree_right .js-plotly-plot")).to_be_visible(
        timeout=60_000)
    assert page.get_by_test_id("stException").count() == 0
    for name in ("pin 1: min_child_weight 20", "pin 2: lambda 20",
                 "pin 3: eta 0.1, max_depth 4"):
        expect(page.get_by_text(name).first).to_be_visible(timeout=10_000)
    # min_child_weight 20 changes two splits of round 1 and stops one branch
    expect(page.get_by_text("2 × another split, 1 × a branch only one has")).to_be_visible()
    _shoot(page, ".st-key-cmp_pin_fit", "compare-1080p-diabetes")
    page.close()
