"""Every lesson walked in a real browser at 1280×720 (a projector): no exception, every chart
inside the viewport, no text under 16 px, and a screenshot of each step under
tests/screenshots/lessons/. Uses test_browser.py's server."""

import re

import pytest
from harness import (
    PLAYER,
    SHOTS,
    SMALLEST_FONT,
    _status,
    charts_drawn,
    click_node,
    idle,
    new_page,
    player_drawn,
    pointer_gone,
    run_of,
)
from playwright.sync_api import expect

from ui.lessons import REGISTRY

LESSON_SHOTS = SHOTS / "lessons"
PRESENT_SHOTS = SHOTS / "present"
W, H = 1280, 720

CHART_BOXES = """() => [...document.querySelectorAll('.js-plotly-plot, .bsp-tree-svg')]
  .map(e => e.getBoundingClientRect()).filter(r => r.width > 0)
  .map(r => [r.left, r.top, r.right, r.bottom])"""


@pytest.fixture(scope="module")
def projector(server, browser):  # noqa: F811
    page = new_page(browser, viewport={"width": W, "height": H})
    yield page
    page.close()


def _wait(page):
    """The page's run over and its charts drawn (Plotly draws after the script has
    finished)."""
    idle(page)
    charts_drawn(page)


def _press(page, key: str) -> None:
    """A key press and the run it starts, its charts drawn."""
    with run_of(page):
        page.keyboard.press(key)
    charts_drawn(page)


# Each number the lesson's text names (a decimal, as "55.125") that the node's worked
# arithmetic holds, and whether one of its places there is in view (inside the panel's box
# and the window; a folded earlier step's copy is not): [number, in view].
NAMED_IN_PANEL = """(said) => {
  const panel = document.querySelector('[data-testid="boostscope-player"] .bsp-node');
  if (!panel) return [];
  const box = panel.getBoundingClientRect();
  const out = [];
  for (const number of new Set(said.match(/\\d+\\.\\d+/g) || [])) {
    const where = [...panel.querySelectorAll('.bsn-step mn')]
      .filter(e => e.textContent.trim() === number).map(e => e.getBoundingClientRect());
    if (where.length) {
      out.push([number, where.some(r => r.height > 0 && r.top >= Math.max(0, box.top) - 1
        && r.bottom <= Math.min(innerHeight, box.bottom) + 1)]);
    }
  }
  return out;
}"""


def _check_screen(page, name: str) -> str:
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    assert page.get_by_test_id("stException").count() == 0, name
    errors = page.get_by_test_id("stAlertContentError").all_inner_texts()
    assert not errors, (name, errors)
    boxes = page.evaluate(CHART_BOXES)
    assert boxes, f"{name}: no chart on screen"
    for left, top, right, bottom in boxes:
        assert left >= -1 and top >= -1 and right <= width + 1 and bottom <= height + 1, \
            (name, (left, top, right, bottom))
    size, text = page.evaluate(SMALLEST_FONT)
    assert size >= 16, f"{name}: '{text}' is {size} px"
    said = page.locator(".st-key-lesson_say").inner_text()
    page.screenshot(path=str(LESSON_SHOTS / f"{name}.png"))
    for number, in_view in page.evaluate(NAMED_IN_PANEL, said):
        assert in_view, f"{name}: {number}, which the text names, is out of view"
    return said


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080)], ids=["720p", "1080p"])
@pytest.mark.parametrize("lesson", REGISTRY, ids=[lesson.slug for lesson in REGISTRY])
def test_walk_every_lesson(projector, server, lesson, size):  # noqa: F811
    """Every step of every lesson at 720p and 1080p: nothing out of the window, no text
    under 16 px, the numbers the text names in view."""
    LESSON_SHOTS.mkdir(parents=True, exist_ok=True)
    page = projector
    page.set_viewport_size({"width": size[0], "height": size[1]})
    suffix = "" if size == (1280, 720) else "-1080p"
    page.goto(f"{server}/?lesson={lesson.slug}")
    # the page says "initial" until its first run, which on a fresh server imports the engine
    idle(page)
    charts_drawn(page, timeout=180_000)
    said = []
    for i in range(2 * len(lesson.steps) + 1):
        said.append(_check_screen(page, f"{lesson.slug}-{i + 1:02d}{suffix}"))
        if page.locator(".st-key-lesson_next button").is_disabled():
            break
        # Next (reveals, then goes on), clicked once it can take a click: a press of its
        # key (→) once started no run at all on a busy machine (the keys are walked in
        # test_presenter_mode_at_720p_on_the_keyboard)
        with run_of(page):
            page.locator(".st-key-lesson_next button").click()
        charts_drawn(page)
        pointer_gone(page, 5, size[1] - 5)  # off the button: the screenshot shows it at rest
    assert len(said) == len(lesson.steps) + sum(1 for s in lesson.steps if s.ask)
    step = re.search(r"step (\d+) of (\d+)", page.locator("body").inner_text())
    assert step and step.group(1) == step.group(2)
    if lesson.slug == "four-points":
        text = " ".join(said)
        for number in ("4", "110.25", "14.08", "120.33", "140.17", "55.125"):
            assert re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", text), number


def test_presenter_mode_at_720p_on_the_keyboard(projector, server):  # noqa: F811
    page = projector
    page.set_viewport_size({"width": W, "height": H})
    page.goto(f"{server}/?present=1&sample=four_points&round=1&node=0")
    _wait(page)
    assert page.get_by_test_id("stSidebar").count() == 0  # no sidebar while presenting
    expect(_status(page)).to_contain_text("Round 1 of 20")
    size, _ = page.evaluate(SMALLEST_FONT)
    assert size >= 16
    _press(page, "3")  # the third panel on the right: the node's arithmetic
    expect(page.locator("body")).to_contain_text("Node 0 of round 1, worked out")
    # the player steps at once; the arithmetic beside it follows at rest
    _press(page, "ArrowRight")
    expect(_status(page)).to_contain_text("Round 2 of 20")
    expect(page.locator("body")).to_contain_text("Node 0 of round 2, worked out")
    _press(page, "End")
    expect(_status(page)).to_contain_text("Round 20 of 20")
    expect(page.locator("body")).to_contain_text("Node 0 of round 20, worked out")
    charts_drawn(page)
    for _left, _top, right, bottom in page.evaluate(CHART_BOXES):
        assert right <= W + 1 and bottom <= H + 1
    size, text = page.evaluate(SMALLEST_FONT)
    assert size >= 16, text
    pointer_gone(page, 5, H - 5)
    page.screenshot(path=str(SHOTS / "presenter-720p.png"))


def test_presenter_keys_after_choosing_a_panel(projector, server):  # noqa: F811
    """A panel chosen in the Right panel dropdown, then → steps the player (the closed
    dropdown keeps the focus; the player's keys still work)."""
    page = projector
    page.goto(f"{server}/?present=1&sample=four_points&round=1")
    _wait(page)
    expect(_status(page)).to_contain_text("Round 1 of 20")
    page.locator(".st-key-right_panel").click()
    with run_of(page):
        page.get_by_role("option", name="5 · Loss").click()
    charts_drawn(page)
    expect(page.locator(f"{PLAYER} .bsp-loss .main-svg").first).to_be_visible()
    expect(page.locator(f"{PLAYER} .bsp-tree")).to_have_count(0)
    with run_of(page):  # at rest the round comes back to the app
        page.keyboard.press("ArrowRight")
        expect(_status(page)).to_contain_text("Round 2 of 20")
    page.keyboard.press("ArrowRight")
    expect(_status(page)).to_contain_text("Round 3 of 20")
    page.keyboard.press("ArrowLeft")
    expect(_status(page)).to_contain_text("Round 2 of 20")
    # the loss chart's marker is on round 2
    page.wait_for_function("""() => document.querySelector(
        '[data-testid="boostscope-player"] .bsp-loss .js-plotly-plot').data[1].x[0] === 2""")
    assert page.get_by_test_id("stException").count() == 0


# The panels' extent on the page: the player's panels and the Python panels beside them.
PANEL_BOX = """() => {
  const boxes = [...document.querySelectorAll('[data-testid="boostscope-player"] .bsp-panel')]
    .map(e => e.getBoundingClientRect()).filter(r => r.width > 0);
  return [Math.min(...boxes.map(r => r.top)), Math.max(...boxes.map(r => r.bottom)),
          Math.min(...boxes.map(r => r.left)), Math.max(...boxes.map(r => r.right))];
}"""


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (3840, 2160)],
                         ids=["720p", "1080p", "2160p"])
def test_presenter_screenshots(projector, server, size):  # noqa: F811
    """The presenter's screen (fit and tree, a node selected) at a projector's sizes: the
    panels fill the window's height, nothing reaches out of it, no text under 16 px."""
    width, height = size
    PRESENT_SHOTS.mkdir(parents=True, exist_ok=True)
    page = new_page(projector.context.browser, viewport={"width": width, "height": height})
    page.goto(f"{server}/?present=1&sample=moons&round=4&max_depth=3")
    _wait(page)
    player_drawn(page)
    expect(_status(page)).to_contain_text("Round 4 of 20")
    click_node(page, 1)  # the page's alone: no run
    expect(page.locator(f"{PLAYER} .bsp-tree .bsp-info")).to_contain_text("node 1")
    charts_drawn(page)
    player_drawn(page)
    pointer_gone(page, 2, height - 2)
    page.screenshot(path=str(PRESENT_SHOTS / f"present-{width}x{height}.png"))
    assert page.get_by_test_id("stException").count() == 0
    top, bottom, left, right = page.evaluate(PANEL_BOX)
    assert left >= 0 and right <= width + 1 and bottom <= height + 1, (top, bottom, left, right)
    for box_left, _top, box_right, box_bottom in page.evaluate(CHART_BOXES):
        assert box_left >= -1 and box_right <= width + 1 and box_bottom <= height + 1
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    if size == (1920, 1080):
        assert bottom - top >= 0.85 * height, f"the panels fill {(bottom - top) / height:.0%}"
    if size == (1280, 720):
        smallest, text = page.evaluate(SMALLEST_FONT)
        assert smallest >= 16, f"'{text}' is {smallest} px"
    page.close()
