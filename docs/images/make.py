"""The pictures README.md and docs/ show, made again from the app as it is.

    python docs/images/make.py            # every picture (about two minutes)
    python docs/images/make.py app lab    # only those

How: it starts the app (``streamlit run app.py`` on a free loopback port, with
``tests/browser/harness.py``'s ``start_server``) and writes the offline lesson file
(``python -m ui.lecture --lesson four-points``); it drives Debian's Chromium
(/usr/bin/chromium, headless, through Playwright; ``harness.new_page``) at the size each
picture names (1280×720: a laptop, a projector), waits for what the page shows (the run over,
every chart drawn, the pointer's hover gone; ``harness``'s waits), and saves the window as a
PNG here. A new server trains its first models as plain Python while the engine compiles
(a note says so); the pictures wait until a page opens without that note. A picture over
``LIMIT`` bytes is reduced to a 256-colour palette (screens of flat colours keep their look),
so none passes 200 kB. Nothing is left running.

The pictures:

- ``app.png`` (1280×960): the noisy sine sample at round 5 (hist, max_depth 2), the sidebar
  and the player: the fit, the loss and the round's tree.
- ``presenter.png``: presenter mode on the diabetes data at round 20, the node's worked
  arithmetic beside the fit.
- ``lesson.png``: the four-point lesson, step 2 revealed: every candidate split's gain.
- ``lab.png``: the Lab, max_depth × η on the two moons, cross-validated.
- ``offline.png``: the four-point lesson's offline file, opened from disk, step 2 revealed.
"""

from __future__ import annotations

import io
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "tests" / "browser"))

import harness  # noqa: E402
from PIL import Image  # noqa: E402
from playwright.sync_api import expect, sync_playwright  # noqa: E402

W, H = 1280, 720
LIMIT = 200_000  # bytes a picture may take
PLAIN_PYTHON = "Trained as plain Python while the engine compiles"


def save(page, name: str) -> None:
    """The window as ``name``.png, reduced to a palette if it is over ``LIMIT``."""
    harness.pointer_gone(page, 3, page.viewport_size["height"] - 3)
    png = page.screenshot()
    if len(png) > LIMIT:
        image = Image.open(io.BytesIO(png)).convert("RGB").quantize(256, dither=Image.NONE)
        out = io.BytesIO()
        image.save(out, "PNG", optimize=True)
        png = out.getvalue()
    if len(png) > LIMIT:
        raise SystemExit(f"{name}.png is {len(png):,} bytes, over {LIMIT:,}")
    (HERE / f"{name}.png").write_bytes(png)
    print(f"{name}.png: {len(png) / 1000:.0f} kB")


def compiled(browser, url: str, deadline_s: float = 600) -> None:
    """Wait until the server's engine is compiled: a page of the opening sample no longer
    says it was trained as plain Python (checked every few seconds)."""
    end = time.monotonic() + deadline_s
    while True:
        page = opened(browser, url)
        said = PLAIN_PYTHON in page.locator("body").inner_text()
        page.close()
        if not said:
            return
        if time.monotonic() > end:
            raise SystemExit(f"the engine did not compile within {deadline_s:.0f} s")
        time.sleep(3)


def opened(browser, url: str, width: int = W, height: int = H):
    page = harness.new_page(browser, viewport={"width": width, "height": height})
    page.goto(url)
    harness.idle(page)
    harness.charts_drawn(page, timeout=180_000)
    return page


def press(page, key: str) -> None:
    with harness.run_of(page):
        page.keyboard.press(key)
    harness.charts_drawn(page)


def click(page, key: str) -> None:
    """Click the button of the element ``.st-key-<key>`` and wait for its run and charts."""
    with harness.run_of(page):
        page.locator(f".st-key-{key} button").click()
    harness.charts_drawn(page)


def app(browser, url):
    page = opened(browser, f"{url}/?sample=noisy_1d&round=5&tree_method=hist&max_depth=2",
                  height=960)
    expect(page.locator(f"{harness.PLAYER} .bsp-status")).to_contain_text("Round 5 of 20")
    save(page, "app")


def presenter(browser, url):
    page = opened(browser, f"{url}/?present=1&sample=diabetes&round=20")
    press(page, "3")  # the node's worked arithmetic on the right
    expect(page.locator("body")).to_contain_text("worked out", timeout=60_000)
    harness.charts_drawn(page)
    save(page, "presenter")


def lesson(browser, url):
    page = opened(browser, f"{url}/?lesson=four-points")
    for _ in range(2):  # step 2, then its answer revealed
        click(page, "lesson_next")
    save(page, "lesson")


def lab(browser, url):
    page = opened(browser, f"{url}/?sample=moons&view=lab&lab=max_depth,eta&lab_n=3")
    click(page, "lab_run")
    chart = page.locator(".st-key-lab_chart .js-plotly-plot")
    expect(chart).to_be_visible(timeout=300_000)
    harness.charts_drawn(page)
    chart.evaluate("""e => { e.scrollIntoView({block: 'start'}); let p = e.parentElement;
      while (p && p.scrollHeight <= p.clientHeight) p = p.parentElement;
      if (p) p.scrollBy(0, -150); }""")
    save(page, "lab")


def offline(browser, _url):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "four-points.html"
        subprocess.run([sys.executable, "-m", "ui.lecture", "--lesson", "four-points", "-o",
                        str(path)], cwd=ROOT, check=True)
        page = harness.open_file(browser, path, "() => window.boostscopePlayer?.drawn.length"
                                 " > 0 && !!document.querySelector('.bsp-panel .main-svg')")
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowDown")  # step 2, revealed
        page.wait_for_function("() => window.boostscopePlayer.players.every(p => !p.drawing"
                               " && !p.dirty)")
        save(page, "offline")


PICTURES = {"app": app, "presenter": presenter, "lesson": lesson, "lab": lab,
            "offline": offline}


def main(names: list[str]) -> None:
    unknown = set(names) - set(PICTURES)
    if unknown:
        raise SystemExit(f"unknown pictures {sorted(unknown)}; there are {list(PICTURES)}")
    proc, url = harness.start_server()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=harness.CHROMIUM, headless=True,
                                        args=harness.CHROMIUM_ARGS)
            compiled(browser, url)
            for name in names or PICTURES:
                PICTURES[name](browser, url)
            browser.close()
    finally:
        harness.stop_server(proc)


if __name__ == "__main__":
    main(sys.argv[1:])
