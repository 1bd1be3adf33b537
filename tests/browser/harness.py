"""What every browser walk shares: a ``streamlit run app.py`` server on a free loopback port,
Debian's Chromium and its flags, waiting for a run to finish, and reading the page."""

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
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


def _server_log(port):
    """Where a server's output goes (read it when a walk fails)."""
    return open(Path(tempfile.gettempdir()) / f"boostscope-server-{port}.log", "wb")


def start_server(env=None):
    """``streamlit run app.py`` on a free loopback port, in a process group of its own (with
    the engine's compile workers, if it starts them): (process, url) once it answers."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1",
         "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=_server_log(port), stderr=subprocess.STDOUT,
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


NOT_RUNNING = '[data-testid="stApp"][data-test-script-state="notRunning"]'

# Counts the changes of the app's script state since ``window.__bsRuns`` was last set to 0
# (set at rest: any change is a run starting, rerunRequested or running). A MutationObserver
# is told of every state the page commits, however briefly it holds it.
_WATCH_RUNS = """() => {
  window.__bsRuns = 0;
  if (window.__bsWatch) return;
  window.__bsWatch = new MutationObserver(records => { window.__bsRuns += records.length; });
  window.__bsWatch.observe(document.body, {subtree: true, attributes: true,
                                           attributeFilter: ['data-test-script-state']});
}"""
_RAN_AND_IDLE = """() => window.__bsRuns > 0 && document.querySelector(
  '[data-testid="stApp"]')?.getAttribute('data-test-script-state') === 'notRunning'"""

# Every chart component on the page and every panel of the player drawn by Plotly (it has
# its layout and at least one trace group on its SVG), and no run in progress.
_CHARTS_DRAWN = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (app?.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const charts = [...document.querySelectorAll(
    '.boostscope-chart, [data-testid="boostscope-player"] .bsp-plot')];
  return charts.length > 0 && charts.every(c => c.classList.contains('js-plotly-plot')
    && c._fullLayout && c._fullData && c.querySelector('.main-svg'));
}"""

# Nothing left over from the pointer on screen: no Plotly hover label, no Streamlit
# tooltip, every chart's hover toolbar faded out (Plotly fades it over 0.3 s).
_POINTER_GONE = """() => {
  if ([...document.querySelectorAll('.hoverlayer')].some(h => h.childElementCount)) return false;
  if (document.querySelector('[data-testid="stTooltipContent"]')) return false;
  return [...document.querySelectorAll('.modebar--hover > :not(.watermark)')]
    .every(b => getComputedStyle(b).opacity === '0');
}"""


def idle(page, timeout=180_000):
    """No run in progress. After ``page.goto`` the page says "initial" until its first run,
    so this also waits for that run to end."""
    page.wait_for_selector(NOT_RUNNING, timeout=timeout)


@contextmanager
def run_of(page, timeout=180_000):
    """Wait for the run the ``with`` block's action starts (a click, a key press, an upload)
    to finish: the app's script state leaves notRunning and comes back to it. (A page
    between two runs briefly holds both runs' elements, so wait for what the run shows
    too.)"""
    idle(page, timeout)
    page.evaluate(_WATCH_RUNS)
    yield
    try:
        page.wait_for_function(_RAN_AND_IDLE, timeout=timeout)
    except Exception as error:
        raise AssertionError(f"no run: {page.evaluate(_WHAT_THE_PAGE_HOLDS)}") from error


# What a page that started no run holds: the focused element and the app's script state.
_WHAT_THE_PAGE_HOLDS = """() => {
  const a = document.activeElement;
  return {runs: window.__bsRuns,
          state: document.querySelector('[data-testid="stApp"]')
            ?.getAttribute('data-test-script-state'),
          focus: a ? a.outerHTML.slice(0, 300) : null,
          focusConnected: a ? a.isConnected : null,
          focusKey: a?.closest('[class*="st-key-"]')?.className.match(/st-key-\\S+/)?.[0] ?? null,
          connection: document.querySelector('[data-testid="stStatusWidget"]')?.innerText ?? null};
}"""


def charts_drawn(page, timeout=60_000):
    """Every chart on the page drawn by Plotly, after the run (Plotly draws after the
    script has finished)."""
    page.wait_for_function(_CHARTS_DRAWN, timeout=timeout, polling="raf")


def pointer_gone(page, x, y, timeout=10_000):
    """Move the pointer to (x, y), off every chart, and wait until the last one's hover
    toolbar, hover label or tooltip has gone from the screen."""
    page.mouse.move(x, y)
    page.wait_for_function(_POINTER_GONE, timeout=timeout, polling="raf")


def open_page(browser, url, width=1280, height=720):
    """A new page at ``url``, its run finished and its charts drawn, with no exception or
    error on it."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(url)
    idle(page)
    charts_drawn(page, timeout=180_000)
    assert page.get_by_test_id("stException").count() == 0
    assert not page.get_by_test_id("stAlertContentError").all_inner_texts()
    return page


PLAYER = '[data-testid="boostscope-player"]'


def _status(page):
    """The player's status line ("Round r of n — train rmse …")."""
    return page.locator(f"{PLAYER} .bsp-status").first


def player_button(page, act):
    """The player's transport button ``act``: first, back, play, step or last."""
    return page.locator(f"{PLAYER} .bsp-bar button[data-act={act}]").first


def player_drawn(page, timeout=60_000):
    """The page's player (the last one mounted) has drawn its tree and is not drawing."""
    page.wait_for_function("""() => {
      const p = window.boostscopePlayer?.players.at(-1);
      return !!p && p.root.isConnected && window.boostscopePlayer.drawn.length > 0
        && !!p.root.querySelector('.bsp-tree .main-svg') && !p.drawing;
    }""", timeout=timeout, polling="raf")


def click_node(page, node: int):
    """Click ``node`` of the player's tree where it is drawn on the screen (scrolled into
    the window first)."""
    box = page.evaluate("""(id) => {
      const reg = window.boostscopePlayer;
      const player = reg.players.filter(p => p.root.isConnected).at(-1);
      const first = reg.nodeCenter(id, player);
      if (first && (first.y < 0 || first.y > innerHeight)) {
        player.root.querySelector('.bsp-tree').scrollIntoView({block: 'start'});
      }
      return reg.nodeCenter(id, player);
    }""", node)
    assert box, f"node {node} is not drawn"
    assert 0 <= box["y"] <= page.viewport_size["height"], box
    page.mouse.click(box["x"], box["y"])


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
