"""Every lesson walked in a real browser at 1280×720 (a projector): no exception, every chart
inside the viewport, no text under 16 px, and a screenshot of each step under
tests/screenshots/lessons/. Uses test_browser.py's server."""

import re

import pytest
from harness import (
    CHROMIUM,
    CHROMIUM_ARGS,
    SHOTS,
    SMALLEST_FONT,
    charts_drawn,
    idle,
    pointer_gone,
    run_of,
)
from playwright.sync_api import expect, sync_playwright

from ui.lessons import REGISTRY

LESSON_SHOTS = SHOTS / "lessons"
W, H = 1280, 720

CHART_BOXES = """() => [...document.querySelectorAll('.js-plotly-plot')]
  .map(e => e.getBoundingClientRect()).filter(r => r.width > 0)
  .map(r => [r.left, r.top, r.right, r.bottom])"""


@pytest.fixture(scope="module")
def projector(server):  # noqa: F811
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": W, "height": H})
        yield page
        browser.close()


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


def _check_screen(page, name: str) -> str:
    assert page.get_by_test_id("stException").count() == 0, name
    errors = page.get_by_test_id("stAlertContentError").all_inner_texts()
    assert not errors, (name, errors)
    boxes = page.evaluate(CHART_BOXES)
    assert boxes, f"{name}: no chart on screen"
    for left, top, right, bottom in boxes:
        assert left >= -1 and top >= -1 and right <= W + 1 and bottom <= H + 1, \
            (name, (left, top, right, bottom))
    size, text = page.evaluate(SMALLEST_FONT)
    assert size >= 16, f"{name}: '{text}' is {size} px"
    page.screenshot(path=str(LESSON_SHOTS / f"{name}.png"))
    return page.locator(".st-key-lesson_say").inner_text()


@pytest.mark.parametrize("lesson", REGISTRY, ids=[lesson.slug for lesson in REGISTRY])
def test_walk_every_lesson_at_720p(projector, server, lesson):  # noqa: F811
    LESSON_SHOTS.mkdir(parents=True, exist_ok=True)
    page = projector
    page.goto(f"{server}/?lesson={lesson.slug}")
    # the page says "initial" until its first run, which on a fresh server imports the engine
    idle(page)
    charts_drawn(page, timeout=180_000)
    said = []
    for i in range(2 * len(lesson.steps) + 1):
        said.append(_check_screen(page, f"{lesson.slug}-{i + 1:02d}"))
        if page.locator(".st-key-lesson_next button").is_disabled():
            break
        # Next (reveals, then goes on), clicked once it can take a click: a press of its
        # key (→) once started no run at all on a busy machine (the keys are walked in
        # test_presenter_mode_at_720p_on_the_keyboard)
        with run_of(page):
            page.locator(".st-key-lesson_next button").click()
        charts_drawn(page)
        pointer_gone(page, 5, H - 5)  # off the button: the screenshot shows it at rest
    assert len(said) == len(lesson.steps) + sum(1 for s in lesson.steps if s.ask)
    step = re.search(r"step (\d+) of (\d+)", page.locator("body").inner_text())
    assert step and step.group(1) == step.group(2)
    if lesson.slug == "four-points":
        text = " ".join(said)
        for number in ("4", "110.25", "14.08", "120.33", "140.17", "55.125"):
            assert re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", text), number


def test_presenter_mode_at_720p_on_the_keyboard(projector, server):  # noqa: F811
    page = projector
    page.goto(f"{server}/?present=1&sample=four_points&round=1&node=0")
    _wait(page)
    assert page.get_by_test_id("stSidebar").count() == 0  # no sidebar while presenting
    counter = page.locator(".st-key-round_counter")
    expect(counter).to_have_text("Round 1 / 20")
    size, _ = page.evaluate(SMALLEST_FONT)
    assert size >= 16
    _press(page, "3")  # the third panel on the right: the node's arithmetic
    expect(page.locator("body")).to_contain_text("Node 0 of round 1, worked out")
    _press(page, "ArrowRight")
    expect(counter).to_have_text("Round 2 / 20")
    _press(page, "End")
    expect(counter).to_have_text("Round 20 / 20")
    charts_drawn(page)
    for _left, _top, right, bottom in page.evaluate(CHART_BOXES):
        assert right <= W + 1 and bottom <= H + 1
    size, text = page.evaluate(SMALLEST_FONT)
    assert size >= 16, text
    page.screenshot(path=str(SHOTS / "presenter-720p.png"))
