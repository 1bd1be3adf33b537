"""Every lesson walked in a real browser at 1280×720 (a projector): no exception, every chart
inside the viewport, no text under 16 px, and a screenshot of each step under
tests/screenshots/lessons/. Uses test_browser.py's server."""

import re
import string

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
from playwright.sync_api import TimeoutError as PlaywrightTimeout
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


# Every visible text but the lesson's own words (the tree's labels, the node's box and
# arithmetic, the charts' texts, the status line), one string.
ON_SCREEN = """() => {
  const out = [];
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width == 0 || r.height == 0 || r.bottom <= 0 || r.top >= innerHeight
        || r.right <= 0 || r.left >= innerWidth) return false;
    const st = getComputedStyle(el);
    return st.visibility != 'hidden' && st.display != 'none';
  };
  // where on screen a text is, said to a reader: the part of the page that holds it
  const where = (el) => {
    if (el.closest('.bsn-steps, .bsn-title, .bsn-why')) return 'the worked arithmetic';
    if (el.closest('.bsn-table')) return "the node's tables";
    if (el.closest('.bsp-info')) return "the node's box";
    if (el.closest('.bsp-tree')) return 'the tree';
    if (el.closest('.bsp-status')) return 'the status line';
    const gd = el.closest('.js-plotly-plot');
    if (gd) {
      const title = (gd._fullLayout?.title?.text || '').replace(/<[^>]+>/g, '');
      const legend = el.closest('.legend') ? "'s legend" : '';
      return title ? `the chart "${title.slice(0, 40)}"${legend}` : `a chart${legend}`;
    }
    return 'the page';
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const t = walker.currentNode;
    const el = t.parentElement;
    if (!t.textContent.trim()
        || el.closest('.st-key-lesson_say, .st-key-lesson_title, .katex-mathml, .bsp-hover, '
                      + 'math')) continue;
    if (shown(el)) out.push([where(el), t.textContent]);
  }
  // a formula as one text: MathML writes −0.0167 as an operator and a number, two nodes
  for (const m of document.querySelectorAll('math')) {
    if (!m.closest('.st-key-lesson_say, .katex-mathml') && shown(m)) {
      out.push([where(m), m.textContent]);
    }
  }
  return out;
}"""

# The labels' size as drawn: font size times the element's scale on the screen (an SVG
# scaled by its viewBox or a zoomed box draws its text smaller than its font-size says):
# [px, what, text] of the tree's edge labels and, separately, the smallest of any text.
DRAWN_FONTS = """() => {
  const drawn = (el) => {
    const fs = parseFloat(getComputedStyle(el).fontSize);
    if (el instanceof SVGElement) {
      const m = el.getScreenCTM();
      return m ? fs * Math.hypot(m.a, m.b) : fs;
    }
    return el.offsetWidth ? fs * el.getBoundingClientRect().width / el.offsetWidth : fs;
  };
  const inView = (r) => r.width > 0 && r.height > 0 && r.bottom > 0 && r.top < innerHeight
    && r.right > 0 && r.left < innerWidth;
  // the player's edge labels, and Plotly's (viz.tree draws them as a text trace named so)
  const edges = [...document.querySelectorAll('.bsp-edge')];
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    (gd._fullData || []).forEach((t, i) => {
      if (t.name !== 'edge labels') return;
      const layer = gd.querySelectorAll('.scatterlayer .trace')[i];
      if (layer) edges.push(...layer.querySelectorAll('text'));
    });
  }
  return edges.filter((e) => inView(e.getBoundingClientRect()))
    .map((e) => [drawn(e), e.textContent.trim()]);
}"""

# The labels of the tree panels a selected node's box covers: [the box's node, label text].
INFO_COVERS = """() => {
  const out = [];
  for (const box of document.querySelectorAll('[data-testid="boostscope-player"] .bsp-tree')) {
    const info = box.querySelector('.bsp-info');
    if (!info || info.hidden) continue;
    const i = info.getBoundingClientRect();
    for (const t of box.querySelectorAll('.bsp-label tspan, .bsp-edge tspan, .bsp-node')) {
      const r = t.getBoundingClientRect();
      if (r.width && r.right > i.left && r.left < i.right && r.bottom > i.top && r.top < i.bottom) {
        out.push([info.dataset.node, t.textContent || `marker ${t.dataset.node}`]);
      }
    }
  }
  return out;
}"""

# The trees that fold a subtree ("+ N hidden", a collapsed marker): [px free below the
# tree's lowest text in its panel, label]; the player's tree panels and Python's trees.
FOLDED = """() => {
  const out = [];
  for (const box of document.querySelectorAll('[data-testid="boostscope-player"] .bsp-tree')) {
    const texts = [...box.querySelectorAll('.bsp-label, .bsp-edge, .bsp-node')];
    const folded = texts.filter(t => /\\+ ?\\d+( hidden)?$/.test(t.textContent.trim()));
    if (!folded.length) continue;
    const low = Math.max(...texts.map(t => t.getBoundingClientRect().bottom));
    out.push([box.getBoundingClientRect().bottom - low, folded[0].textContent]);
  }
  for (const gd of document.querySelectorAll('.js-plotly-plot')) {
    const labels = (gd._fullData || []).find(t => t.name === 'node labels');
    if (!labels) continue;
    const folded = (labels.text || []).filter(t => /\\+ ?\\d+( hidden)?$/.test(t));
    if (!folded.length) continue;
    const svg = gd.querySelector('.main-svg').getBoundingClientRect();
    const low = Math.max(...[...gd.querySelectorAll('.scatterlayer text')]
      .map(t => t.getBoundingClientRect().bottom));
    const bottom = Math.min(innerHeight, gd.closest('[data-testid="stVerticalBlock"]')
      ?.getBoundingClientRect().bottom ?? innerHeight);
    out.push([Math.min(innerHeight, bottom) - low, folded[0], svg.bottom]);
  }
  return out;
}"""

FOLD_ROOM = 60  # px free below a folded tree that would have held another level


# A number as a lesson's text writes it (boost.trace.rounding's rule, a typographic minus)
NUMBER = re.compile(r"[−-]?\d[\d,]*(?:\.\d+)?(?:e-\d+)?")


def _named(template: str, shown: str) -> dict[str, list[str]]:
    """The numbers the engine put into ``template``'s fields, read from ``shown`` (the text
    on screen): the template's words matched, each field's text taken apart into numbers;
    {field: its numbers}."""
    pattern, names = "", []
    for literal, field, _, _ in string.Formatter().parse(template):
        pattern += re.escape(re.sub(r"\s+", " ", literal)).replace("\\ ", r"\s+")
        if field is not None:  # never ending inside a number ("140" of "140.17.")
            pattern += r"(.+?(?![.,]?\d))"
            names.append(field)
    if not names:
        return {}
    if re.search(r"\}\s*$", template):  # a field last: up to the next space or the end
        pattern += r"(?=\s|$)"
    found = re.search(pattern, " ".join(shown.split()))
    assert found, (template, shown)
    named = {}
    for name, value in zip(names, found.groups(), strict=True):
        named.setdefault(name, []).extend(NUMBER.findall(value))
    return named


def _numbers_shown(page, name: str, said: str, templates: list[str]) -> None:
    """Every number a template's field put into the lesson's text is on screen elsewhere
    too (the tree, the node's box or arithmetic, a chart, the status line), written the
    same way."""
    texts = [(place, text.replace("−", "-")) for place, text in page.evaluate(ON_SCREEN)]
    for template in templates:
        for field, numbers in _named(template, said).items():
            for number in numbers:
                plain = number.replace("−", "-")
                at = re.compile(rf"(?<![\d.,]){re.escape(plain)}(?![\d]|\.\d)")
                places = sorted({place for place, text in texts if at.search(text)})
                assert places, f"{name}: {number} ({field}), which the text names, is not on screen"
                FOUND.append((name, number, field, places))


# Each number a step's text names and where the walk found it on screen: written to
# LESSON_SHOTS/numbers.md at the end of the walk (the list a closing note cites).
FOUND: list[tuple[str, str, str, list[str]]] = []


@pytest.fixture(scope="module", autouse=True)
def numbers_found():
    yield
    if FOUND:
        lines = ["| step | number | the text's field | where on screen |", "|---|---|---|---|"]
        rows = dict.fromkeys(f"| {step} | {number} | {field} | {'; '.join(places)} |"
                             for step, number, field, places in FOUND)  # once each, in order
        lines += list(rows)
        (LESSON_SHOTS / "numbers.md").write_text("\n".join(lines) + "\n")


def _check_screen(page, name: str, templates: list[str] = ()) -> str:
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    assert page.get_by_test_id("stException").count() == 0, name
    errors = page.get_by_test_id("stAlertContentError").all_inner_texts()
    assert not errors, (name, errors)
    # the charts inside the window once the page has settled (a resize to the next size
    # reaches the player's panels a few frames later on a loaded machine: CI-43 saw the fit
    # 24 px below the window at 1080p right after the switch from 720p)
    try:
        page.wait_for_function(f"""() => ({CHART_BOXES})().every(([l, t, r, b]) =>
            l >= -1 && t >= -1 && r <= innerWidth + 1 && b <= innerHeight + 1)""",
            timeout=5_000)
    except PlaywrightTimeout:
        pass  # said below, with the box
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
    for px, text in page.evaluate(DRAWN_FONTS):
        assert px >= 16 - 0.01, f"{name}: the edge label '{text}' is drawn at {px:.1f} px"
    covered = page.evaluate(INFO_COVERS)
    assert not covered, f"{name}: the node's box covers {covered}"
    for free, label, *_ in page.evaluate(FOLDED):
        assert free < FOLD_ROOM, \
            f"{name}: '{label}' folded with {free:.0f} px free below"
    _numbers_shown(page, name, said, templates)
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
    step, revealed = 0, False
    for i in range(2 * len(lesson.steps) + 1):
        now = lesson.steps[step]
        templates = [now.say] + ([now.reveal if revealed else now.ask] if now.ask else [])
        said.append(_check_screen(page, f"{lesson.slug}-{i + 1:02d}{suffix}",
                                  [t for t in templates if t]))
        if page.locator(".st-key-lesson_next button").is_disabled():
            break
        step, revealed = (step, True) if now.ask and not revealed else (step + 1, False)
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
        for number in ("4", "110.25", "14.08", "120.33", "140.17", "55.13"):
            assert re.search(rf"(?<![\d.]){re.escape(number)}(?![\d])", text), number


# The player's transport: its width against the window's, whether its controls sit in one
# line (every control's top above the first one's bottom) and inside the bar
TRANSPORT = """() => {
  const bar = document.querySelector('[data-testid="boostscope-player"] .bsp-bar');
  const box = bar.getBoundingClientRect();
  const kids = [...bar.children].map((c) => c.getBoundingClientRect());
  return {share: box.width / innerWidth, oneLine: kids.every((r) => r.top < kids[0].bottom - 1),
          inside: kids.every((r) => r.left >= box.left - 1 && r.right <= box.right + 1)};
}"""


def test_a_lessons_transport_is_one_line_at_2160p(projector, server):  # noqa: F811
    """A lesson's player beside its text on a 4K projector: the transport stays one line (the
    speed list wrapped under the buttons: the type grows with the window, not the player)."""
    page = projector
    page.set_viewport_size({"width": 3840, "height": 2160})
    page.goto(f"{server}/?lesson=ranking")
    _wait(page)
    player_drawn(page)
    PRESENT_SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(PRESENT_SHOTS / "lesson-ranking-3840x2160.png"))
    bar = page.evaluate(TRANSPORT)
    assert bar["share"] < 0.6 and bar["oneLine"] and bar["inside"], bar


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


# The presenter's bar's type as drawn (font size times a zoom's scale): the title and the
# panel choices, [px, text], and the player's status line's px.
BAR_FONTS = """() => {
  const drawn = (el) => parseFloat(getComputedStyle(el).fontSize)
    * (el.offsetWidth ? el.getBoundingClientRect().width / el.offsetWidth : 1);
  const bar = document.querySelector('.st-key-presenter_bar');
  const texts = [...bar.querySelectorAll('p, input')].filter(e => e.offsetWidth)
    .map(e => [drawn(e), (e.value ?? e.textContent).trim()]);
  return [texts, drawn(document.querySelector('[data-testid="boostscope-player"] .bsp-status'))];
}"""


@pytest.mark.parametrize("size", [(1280, 720), (1920, 1080), (3840, 2160)],
                         ids=["720p", "1080p", "2160p"])
def test_presenter_screenshots(projector, server, size):  # noqa: F811
    """The presenter's screen (fit and tree, a node selected) at a projector's sizes: the
    panels fill the window's height, nothing reaches out of it, no text under 16 px, the
    bar's type as large as the player's."""
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
    assert bottom - top >= 0.85 * height, f"the panels fill {(bottom - top) / height:.1%}"
    # the bar's type grows with the window as the player's does (a zoom of 0.7 from 1600 px
    # kept it at 21 px at 1080p and 34 px at 2160p, under the status line's 26 and 51)
    texts, status = page.evaluate(BAR_FONTS)
    assert len(texts) == 3, texts  # the model's name and the two panel choices
    for px, text in texts:
        assert px >= max(16, 0.9 * status), f"the bar's '{text}' is {px:.1f} px ({status} px)"
    if size == (1280, 720):
        smallest, text = page.evaluate(SMALLEST_FONT)
        assert smallest >= 16, f"'{text}' is {smallest} px"
    page.close()
