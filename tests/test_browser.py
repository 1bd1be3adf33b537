"""A real browser (Playwright driving Debian's Chromium) against ``streamlit run app.py``."""

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "tests" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(env=None):
    """``streamlit run app.py`` on a free loopback port, in a process group of its own (with
    the engine's compile workers, if it starts them): (process, url) once it answers."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url + "/_stcore/health", timeout=2)
            return proc, url
        except OSError:
            time.sleep(0.5)
    stop_server(proc)
    raise RuntimeError("streamlit did not start")


def stop_server(proc):
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=20)


@pytest.fixture(scope="module")
def server():
    proc, url = start_server()
    yield url
    stop_server(proc)


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, headless, once per test module (the other browser tests import it)."""
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def page(server, browser):
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    yield page
    page.close()


def _settled(page):
    """The app has finished the run a click started (give the click time to start it: a
    page between two runs briefly holds both runs' elements)."""
    page.wait_for_timeout(500)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=180_000)


def open_page(browser, url, width=1280, height=720):
    """A new page at ``url``, its run finished and its charts drawn, with no exception or
    error on it."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(url)
    _settled(page)
    page.wait_for_timeout(1500)  # Plotly draws after the script has finished
    assert page.get_by_test_id("stException").count() == 0
    assert not page.get_by_test_id("stAlertContentError").all_inner_texts()
    return page


def _status(page):
    return page.locator("h4").filter(has_text=re.compile(r"Round \d+ of \d+")).first


def test_upload_train_step_and_screenshot(page, server, tmp_path):
    SHOTS.mkdir(exist_ok=True)
    page.goto(server)
    _settled(page)
    expect(_status(page)).to_contain_text("Round 0 of 20", timeout=60_000)

    csv = tmp_path / "hours.csv"
    csv.write_text("hours;score\n" + "\n".join(f"{h / 4:.2f};{(h * 7) % 23}"
                                               for h in range(80)))
    page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(csv))
    _settled(page)
    expect(page.get_by_text("hours.csv", exact=False).first).to_be_visible(timeout=60_000)
    expect(_status(page)).to_contain_text("Round 0 of 20", timeout=60_000)

    assert page.locator(".st-key-train").count() == 0  # small data: live, no Train button
    page.locator(".st-key-step_forward button").click()
    _settled(page)
    expect(_status(page)).to_contain_text("Round 1 of 20", timeout=30_000)
    page.locator(".st-key-step_forward button").click()
    _settled(page)
    expect(_status(page)).to_contain_text("Round 2 of 20", timeout=30_000)
    page.locator(".st-key-step_back button").click()
    _settled(page)
    expect(_status(page)).to_contain_text("Round 1 of 20", timeout=30_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    expect(page).to_have_url(re.compile(r"round=1(&|$)"), timeout=10_000)
    page.screenshot(path=str(SHOTS / "browser-upload.png"), full_page=True)


def test_shared_link_reopens_the_view(page, server):
    page.goto(server + "/?sample=moons&round=7&max_depth=2&eta=0.5")
    _settled(page)
    expect(_status(page)).to_contain_text("Round 7 of 20", timeout=60_000)
    expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(SHOTS / "browser-moons.png"), full_page=True)


def test_clicking_a_tree_node_shows_its_candidates(page, server):
    page.goto(server + "/?sample=four_points&round=1&lambda=0&base_score=0.5&max_depth=2")
    _settled(page)
    tree = page.locator(".st-key-tree_chart")
    expect(tree.locator(".js-plotly-plot")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("worked out")).to_have_count(0)
    # The split markers are the trace with two points (nodes 0 and 2); click node 2.
    traces = tree.locator(".scatterlayer .trace")
    splits = next(traces.nth(i).locator("path.point") for i in range(traces.count())
                  if traces.nth(i).locator("path.point").count() == 2)
    splits.nth(1).click(force=True)
    _settled(page)
    expect(page.get_by_text("Node 2, worked out")).to_be_visible(timeout=30_000)
    expect(page.locator(".st-key-cand_chart .js-plotly-plot")).to_be_visible(timeout=30_000)
    expect(page).to_have_url(re.compile(r"node=2(&|$)"), timeout=10_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(SHOTS / "browser-node.png"), full_page=True)


def test_newton_and_first_order_side_by_side_in_the_browser(page, server):
    page.goto(server + "/?sample=moons&round=1&max_depth=2&view=4&objective=binary:exponential"
              "&subsample=0.8&early_stopping_rounds=5&rounds=100")
    _settled(page)
    expect(page.locator(".st-key-cmp_tree_newton .js-plotly-plot")).to_be_visible(
        timeout=60_000)
    expect(page.locator(".st-key-cmp_tree_first_order .js-plotly-plot")).to_be_visible(
        timeout=60_000)
    expect(page.get_by_text("Early stopping: validation exponential was best")).to_be_visible(
        timeout=30_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(SHOTS / "browser-compare.png"), full_page=True)


@pytest.mark.parametrize("query,widget,shown", [
    ("eta=0&max_depth=99&subsample=-1&view=7", "p_eta", "0.01"),
    ("gamma=1e308&max_bin=nan&tree_method=gpu_hist&view=importance", "p_gamma", "1000.00"),
    ("lambda=%3Cscript%3Ealert(1)%3C/script%3E&rounds=inf&seed=-1&view=tree", "p_lambda",
     "1.00"),
])
def test_hostile_links_open_with_the_values_clamped(page, server, query, widget, shown):
    page.goto(server + "/?sample=moons&" + query)
    _settled(page)
    expect(_status(page)).to_be_visible(timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    note = page.get_by_text("The link was corrected")
    expect(note).to_have_count(1)
    expect(page.locator(f".st-key-{widget} input").first).to_have_value(shown, timeout=10_000)
    assert page.locator("script", has_text="alert(1)").count() == 0
