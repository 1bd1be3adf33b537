"""What every browser walk shares: a ``streamlit run app.py`` server on a free loopback port,
Debian's Chromium and its flags, waiting for a run to finish, and reading the page."""

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import expect  # noqa: F401

ROOT = Path(__file__).resolve().parents[2]
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


# The smallest visible text in the viewport (KaTeX's zero-width struts and its hidden
# MathML copy are not text a reader sees).
SMALLEST_FONT = """() => {
  let min = [1e9, ''];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const t = walker.currentNode;
    if (!t.textContent.replace(/[\\u200b\\s]/g, '')) continue;
    const el = t.parentElement;
    if (el.closest('.katex-mathml')) continue;
    const r = el.getBoundingClientRect();
    if (r.width == 0 || r.height == 0) continue;
    if (r.bottom <= 0 || r.top >= innerHeight || r.right <= 0 || r.left >= innerWidth) continue;
    const st = getComputedStyle(el);
    if (st.visibility == 'hidden' || st.display == 'none') continue;
    const fs = parseFloat(st.fontSize);
    if (fs < min[0]) min = [fs, t.textContent.trim().slice(0, 40)];
  }
  return min;
}"""
