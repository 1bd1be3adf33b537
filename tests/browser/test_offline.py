"""The offline lecture files of ``python -m ui.lecture`` in Chromium, from disk (file://, no
server): a model's file steps with → and its status line says the engine's loss; a lesson's
file walks every step with → (the texts with the engine's numbers, Reveal's answers, the
player at each step's round), ← ↓ are Back and Reveal, Space/End still drive the rounds; the
page asks the network for nothing. A screenshot of the lesson at 1280×720 goes under
tests/screenshots/offline/."""

import pytest
from harness import SHOTS, SMALLEST_FONT, open_file

from boost.trace.rounding import rounded
from ui import lecture
from ui.lecture import main

READY = ("() => window.boostscopePlayer?.drawn.length > 0"
         " && !!document.querySelector('.bsp-panel .main-svg')")
STATUS = ".bsp-status"
# {number: whether it is drawn inside the arithmetic panel and the window} of the node panel's
# numbers (a folded step's are not drawn)
IN_VIEW = """() => {
  const panel = document.querySelector('.bsp-node .bsn-panel');
  const box = panel.getBoundingClientRect();
  const out = {};
  for (const mn of panel.querySelectorAll('.bsn-step mn')) {
    const r = mn.getBoundingClientRect();
    const inside = r.height > 0 && r.top >= box.top - 1 && r.bottom <= Math.min(box.bottom,
      innerHeight) + 1 && r.right <= Math.min(box.right, innerWidth) + 1;
    out[mn.textContent] = out[mn.textContent] || inside;
  }
  return out;
}"""
ROUNDS = 12


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    out = tmp_path_factory.mktemp("offline")
    model, lesson = out / "diabetes.html", out / "four-points.html"
    assert main(["--sample", "diabetes", "--param", "max_depth=3", "--param", "eta=0.1",
                 "--rounds", str(ROUNDS), "-o", str(model)]) == 0
    assert main(["--lesson", "four-points", "-o", str(lesson)]) == 0
    return {"model": model, "lesson": lesson}


def _open(browser, path, width=1280, height=720):
    return open_file(browser, path, READY, width, height)


def _at_rest(page):
    page.wait_for_function("() => window.boostscopePlayer.players.every(p => !p.drawing"
                           " && !p.dirty)")
    page.wait_for_timeout(350)


def _offline(page):
    assert not page.errors, page.errors
    assert page.requests and all(u.startswith(("file:", "data:"))
                                 for u in page.requests), page.requests


def test_the_model_file_steps_with_the_arrow(browser, files):
    page = _open(browser, files["model"])
    assert page.inner_text(STATUS).startswith(f"Round 0 of {ROUNDS} — ")
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    _at_rest(page)
    # the engine's loss after round 3, formatted as the app's status line
    table = lecture.sample_table("diabetes")
    config = lecture.table_config(table, lecture.model_params(
        {}, ["max_depth=3", "eta=0.1"], ROUNDS), "progression")
    history = lecture.train(config, table).booster.loss_history()
    assert list(history.columns) == ["train", "valid"]
    want = (f"Round 3 of {ROUNDS} — train rmse {rounded(history['train'].iloc[3])}, "
            f"valid rmse {rounded(history['valid'].iloc[3])}")
    assert page.inner_text(STATUS) == want
    title = page.text_content(".bsp-tree .bsp-title")
    assert title == "Tree of round 3"
    # the root's details under the player, then node 1's on a click: from the file's records
    details = page.locator('[data-testid="boostscope-node"]')
    details.wait_for()
    assert details.get_attribute("data-node") == "0" and details.get_attribute("data-round") == "3"
    c = page.evaluate("() => window.boostscopePlayer.nodeCenter(1)")
    page.mouse.click(c["x"], c["y"])
    page.wait_for_function("() => document.querySelector('[data-testid=boostscope-node]')"
                           ".dataset.node === '1'")
    trained = lecture.train(config, table)
    booster = trained.booster
    row = booster.trace.trees().query("Round == 3 and Node == 1").iloc[0]
    text = details.inner_text()
    # the node's gain in its tables, by the rounding rule as the arithmetic writes it
    assert text.startswith("Node 1 of round 3") and f"\t{rounded(row.Gain)}\t" in text
    assert details.locator(".bsn-plot .main-svg").count() >= 1
    # its worked arithmetic as a LaTeX file: the engine's, made when the link is clicked
    with page.expect_download() as got:
        details.get_by_text("⬇ LaTeX").click()
    assert got.value.suggested_filename == "round3_node1.tex"
    tex = booster.trace.node_record(3, 1, X=trained.prep.X_train)["downloads"]["tex"]
    assert open(got.value.path(), encoding="utf-8").read() == tex
    _offline(page)
    page.close()


def _bar(page):
    return page.inner_text(".bsl-where")


def _said(page):
    return page.inner_text(".bsl-say")


def test_the_lesson_file_walks_every_step(browser, files):
    data = lecture.lesson_data("four-points")  # the models the file was built from (cached)
    steps = data["steps"]
    page = _open(browser, files["lesson"])
    seen = []
    for k, step in enumerate(steps):
        _at_rest(page)
        assert _bar(page) == f"Four points by hand · step {k + 1} of {len(steps)}"
        text = _said(page)
        assert text.startswith(step["say"]), (text, step["say"])
        assert page.inner_text(STATUS).startswith(f"Round {step['at']['round']} of ")
        if step["ask"]:
            assert step["ask"] in text and not page.locator(".bsl-answer").count()
            page.keyboard.press("ArrowDown")  # Reveal
            _at_rest(page)
            reveal = page.inner_text(".bsl-answer")
            assert reveal == step["revealed"]["reveal"]
            assert page.inner_text(STATUS).startswith(
                f"Round {step['revealed']['at']['round']} of ")
            text = _said(page)
            assert page.locator("button[data-act=reveal]").is_disabled()
        seen.append(text)
        page.keyboard.press("ArrowRight")
    _at_rest(page)
    assert page.locator("button[data-act=next]").is_disabled()
    assert _bar(page).endswith(f"step {len(steps)} of {len(steps)}")
    walked = "\n".join(seen)
    # the classic worked example's numbers (tests/app/test_lessons.py's hand computation)
    for shown in ("−10.5, 6.5, 7.5 and −7.5", "= 4.", "gain 120.33", "110.25", "14.08",
                  "140.17", "55.13", "62.49"):
        assert shown in walked, shown
    assert len(set(seen)) == len(seen)  # every step says something new
    _offline(page)
    page.close()


def test_lesson_keys_back_reveal_and_the_rounds(browser, files):
    page = _open(browser, files["lesson"])
    page.keyboard.press("ArrowRight")
    _at_rest(page)
    assert "step 2 of" in _bar(page) and page.inner_text(STATUS).startswith("Round 0 of")
    page.keyboard.press("ArrowRight")  # Next on a question reveals it first
    _at_rest(page)
    assert "step 2 of" in _bar(page) and "120.33" in page.inner_text(".bsl-answer")
    assert page.inner_text(STATUS).startswith("Round 1 of")
    # the step's node: its candidates and worked arithmetic, from the record in the file
    arithmetic = page.locator(".bsp-node .bsn-panel")
    assert arithmetic.inner_text().startswith("Node 0 of round 1, worked out")
    assert page.locator(".bsp-candidates .js-plotly-plot").count() == 1
    page.keyboard.press("ArrowLeft")  # Back hides the answer, then goes back
    _at_rest(page)
    assert not page.locator(".bsl-answer").count() and "step 2 of" in _bar(page)
    # Space, Home and End still drive the rounds; the arrows stay the lesson's
    page.keyboard.press("End")
    _at_rest(page)
    assert page.inner_text(STATUS).startswith("Round 10 of 10")
    assert "step 2 of" in _bar(page)
    page.keyboard.press("ArrowLeft")
    _at_rest(page)
    assert "step 1 of" in _bar(page)  # the baseline: round 1's fit would answer step 2
    assert page.inner_text(STATUS).startswith("Round 0 of")
    page.click("button[data-act=next]")
    _at_rest(page)
    assert "step 2 of" in _bar(page)
    _offline(page)
    page.close()


def test_lesson_screenshot(browser, files):
    width, height = 1280, 720
    page = _open(browser, files["lesson"], width, height)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowDown")  # step 2, revealed: the longest text and two panels
    _at_rest(page)
    page.mouse.move(2, height - 2)
    page.wait_for_timeout(400)
    smallest, text = page.evaluate(SMALLEST_FONT)
    assert smallest >= 16, f"{smallest} px: {text!r}"
    # the root's similarities and gain, the numbers the step's text names, in view: the
    # arithmetic fits its panel (earlier steps folded), nothing scrolled or cut off
    shown = page.evaluate(IN_VIEW)
    for number in ("110.25", "14.08", "120.33"):
        assert shown.get(number), (number, shown)
    out = SHOTS / "offline"
    out.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out / f"lesson_{width}x{height}.png"))
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    assert page.evaluate("() => document.documentElement.scrollHeight") <= height
    _offline(page)
    page.close()
