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

# What the server tells the page about its runs, counted as each message arrives (before
# Streamlit's own handler sees it): ``started`` and ``ended`` count the session's "script is
# running" turning on and off, ``finished`` the script_finished messages, and ``running`` is
# the server's last word. The page's ``data-test-script-state`` cannot be trusted for this:
# it is React state, and when the messages of a short run (the status turning on, the
# deltas, script_finished, the status turning off) are handled before React renders, React
# batches RUNNING and NOT_RUNNING into one render that changes nothing, so no
# MutationObserver hears of the run (benchmarks/lost_press.py: about 1 press in 150 on a
# busy machine). Installed before the page loads (``new_page``); a ForwardMsg's top-level
# fields are read by hand (ForwardMsg.proto: 6 script_finished, 9 session_status_changed
# whose field 2 is script_is_running).
WATCH_SOCKET = r"""(() => {
  if (window.__bsSocket) return;
  const watch = window.__bsSocket = {started: 0, ended: 0, finished: 0, running: false,
                                     sent: 0, log: []};
  const varint = (b, i) => {
    let v = 0, m = 1;
    for (;;) { const x = b[i++]; v += (x & 127) * m; m *= 128; if (x < 128) return [v, i]; }
  };
  const fields = (b, each) => {  // each(field, wireType, value or [start, end])
    let i = 0;
    while (i < b.length) {
      let key; [key, i] = varint(b, i);
      const f = Math.floor(key / 8), w = key & 7;
      if (w === 0) { let v; [v, i] = varint(b, i); each(f, w, v); }
      else if (w === 2) { let n; [n, i] = varint(b, i); each(f, w, [i, i + n]); i += n; }
      else if (w === 1) i += 8;
      else if (w === 5) i += 4;
      else return;
    }
  };
  const heard = (data) => {
    if (!(data instanceof ArrayBuffer)) return;
    const b = new Uint8Array(data);
    fields(b, (f, w, v) => {
      const state = document.querySelector('[data-testid="stApp"]')
        ?.getAttribute('data-test-script-state');
      if (f === 6 && w === 0) {
        watch.finished += 1;
        watch.finishedAfterSend = watch.sent > 0;
        watch.log.push([performance.now(), 'finished', state]);
      } else if (f === 9 && w === 2) {
        let on = false;
        fields(b.subarray(v[0], v[1]), (g, u, x) => { if (g === 2 && u === 0) on = !!x; });
        if (on && !watch.running) watch.started += 1;
        if (!on && watch.running) watch.ended += 1;
        watch.running = on;
        watch.log.push([performance.now(), on ? 'running' : 'notRunning', state]);
      }
    });
    if (watch.log.length > 40) watch.log.splice(0, watch.log.length - 40);
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(url, protocols) {
      super(url, protocols);
      if (!String(url).includes('_stcore/stream')) return;
      this.addEventListener('message', (e) => heard(e.data));  // before Streamlit's
      const send = this.send;
      this.send = (d) => { watch.sent += 1; return send.call(this, d); };
    }
  };
})()"""


# What the pages of the current test did that they must not: a request to any host but the
# app's (a lecture hall may have no network) and an error in the console or an uncaught
# one. ``conftest.py`` empties it before each test and fails the test if it is not empty.
OFFENCES: list[str] = []
LOCAL = ("http://127.0.0.1", "http://localhost", "ws://127.0.0.1", "ws://localhost", "data:",
         "blob:", "about:", "file:")


def watch(page) -> None:
    """Record ``page``'s requests to other hosts and its console errors in ``OFFENCES``."""
    page.on("request", lambda r: None if r.url.startswith(LOCAL)
            else OFFENCES.append(f"request to another host: {r.url}"))
    page.on("console", lambda m: OFFENCES.append(
        f"console error: {m.text} ({m.location.get('url', '')})") if m.type == "error" else None)
    page.on("pageerror", lambda e: OFFENCES.append(f"uncaught error: {e}"))


def new_page(browser, **options):
    """``browser.new_page(**options)`` with the socket watch (``WATCH_SOCKET``) installed
    before anything loads (``run_of`` then knows of every run the server made) and its
    requests and console watched (``watch``)."""
    page = browser.new_page(**options)
    page.add_init_script(WATCH_SOCKET)
    watch(page)
    return page


# Counts the changes of the app's script state since ``window.__bsRuns`` was last set to 0
# (set at rest: any change is a run starting, rerunRequested or running), and resets the
# socket watch's counts. The MutationObserver is told of every state React commits, but
# React may commit none for a short run (above): on a page with the socket watch the
# server's messages decide.
_WATCH_RUNS = """() => {
  window.__bsRuns = 0;
  const s = window.__bsSocket;
  if (s) { s.started = 0; s.ended = 0; s.finished = 0; s.sent = 0; s.finishedAfterSend = false; }
  if (window.__bsWatch) return;
  window.__bsWatch = new MutationObserver(records => { window.__bsRuns += records.length; });
  window.__bsWatch.observe(document.body, {subtree: true, attributes: true,
                                           attributeFilter: ['data-test-script-state']});
}"""
# A run started since the watch was reset and none is in progress: by the server's word
# where the page has the socket watch, else by the page's script state.
_RAN_AND_IDLE = """() => {
  const state = document.querySelector('[data-testid="stApp"]')
    ?.getAttribute('data-test-script-state');
  const s = window.__bsSocket;
  // a run started and finished since the action; or the action's request went out while a
  // run was going (started before the count), which Streamlit restarts with the new values
  // without saying "running" again: a run finished after the request
  if (s) return (s.started > 0 || s.finishedAfterSend) && s.finished > 0 && !s.running
    && state === 'notRunning';
  return window.__bsRuns > 0 && state === 'notRunning';
}"""
# No run in progress: the page says notRunning and, with the socket watch, so did the
# server last (a run whose RUNNING React has not rendered yet is still a run).
NO_RUN = """() => document.querySelector('[data-testid="stApp"]')
  ?.getAttribute('data-test-script-state') === 'notRunning' && !window.__bsSocket?.running"""
# Every chart component on the page and every panel of the player drawn (a Plotly chart has
# its layout and at least one trace group on its SVG; the tree is its own SVG), and no run in
# progress.
_CHARTS_DRAWN = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (app?.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const charts = [...document.querySelectorAll(
    '.boostscope-chart, [data-testid="boostscope-player"] .bsp-plot')];
  // a node panel: its record drawn (its arithmetic, or a note), not one on its way
  return charts.length > 0 && charts.every(c => !c.closest('.bsn-wait') && (
    c.querySelector(':scope > .bsp-tree-svg, :scope > .bsn-panel > *, :scope > .bsn-note')
    || (c.classList.contains('js-plotly-plot') && c._fullLayout && c._fullData
        && c.querySelector('.main-svg'))));
}"""

# Nothing left over from the pointer on screen: no Plotly hover label, no Streamlit
# tooltip, every chart's hover toolbar faded out (Plotly fades it over 0.3 s).
_POINTER_GONE = """() => {
  if ([...document.querySelectorAll('.hoverlayer')].some(h => h.childElementCount)) return false;
  if ([...document.querySelectorAll('.bsp-hover')].some(h => !h.hidden)) return false;
  if (document.querySelector('[data-testid="stTooltipContent"]')) return false;
  return [...document.querySelectorAll('.modebar--hover > :not(.watermark)')]
    .every(b => getComputedStyle(b).opacity === '0');
}"""


def idle(page, timeout=180_000):
    """No run in progress. After ``page.goto`` the page says "initial" until its first run,
    so this also waits for that run to end."""
    page.wait_for_function(NO_RUN, timeout=timeout)


# The next frame's work done: what React was asked to render by the last message is on the
# page (it renders in a task of its own after the message's).
_SETTLED = """() => new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)))"""


@contextmanager
def run_of(page, timeout=180_000):
    """Wait for the run the ``with`` block's action starts (a click, a key press, an upload)
    to finish: on a page made by ``new_page``, the server said a run started and ended (its
    script_finished and its session status), else the app's script state left notRunning
    and came back to it. (A page between two runs briefly holds both runs' elements, so
    wait for what the run shows too.)"""
    idle(page, timeout)
    page.evaluate(_WATCH_RUNS)
    yield
    try:
        page.wait_for_function(_RAN_AND_IDLE, timeout=timeout)
    except Exception as error:
        raise AssertionError(f"no run: {page.evaluate(_WHAT_THE_PAGE_HOLDS)}") from error
    page.evaluate(_SETTLED)


# What a page that started no run holds: the focused element and the app's script state.
_WHAT_THE_PAGE_HOLDS = """() => {
  const a = document.activeElement;
  return {runs: window.__bsRuns,
          state: document.querySelector('[data-testid="stApp"]')
            ?.getAttribute('data-test-script-state'),
          focus: a ? a.outerHTML.slice(0, 300) : null,
          focusConnected: a ? a.isConnected : null,
          focusKey: a?.closest('[class*="st-key-"]')?.className.match(/st-key-\\S+/)?.[0] ?? null,
          connection: document.querySelector('[data-testid="stStatusWidget"]')?.innerText ?? null,
          // the socket watch: frames the page sent since the action, the server's runs
          socket: window.__bsSocket ? {...window.__bsSocket, log: window.__bsSocket.log.slice(-6)}
            : null};
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
    page = new_page(browser, viewport={"width": width, "height": height})
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
      const p = window.boostscopePlayer?.players?.at(-1);
      return !!p && p.root.isConnected && window.boostscopePlayer.drawn.length > 0
        && !!p.root.querySelector('.bsp-tree .bsp-tree-svg') && !p.drawing;
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


def open_file(browser, path, ready: str, width=1280, height=720, timeout=30_000):
    """An offline file (``path``) opened from disk in a new page, once ``ready`` (a JS
    predicate) holds; the page's ``requests`` (every URL it asked for but the ``blob:`` URLs of
    its own modules, made in the page by ``viz.page_js.loader``) and ``errors`` (page errors
    and console errors) are kept on it."""
    page = browser.new_page(viewport={"width": width, "height": height})
    requests, errors = [], []
    page.on("request", lambda r: None if r.url.startswith("blob:") else requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(path.as_uri())
    page.wait_for_function(ready, timeout=timeout)
    page.requests, page.errors = requests, errors
    return page


def presses_in_one_go(page, key: str, n: int) -> None:
    """``n`` presses of ``key`` given to the page in one task (as a held key's repeats come),
    so that no rest — the player's ~300 ms without a step — can fall between two of them
    however slowly a busy machine delivers Playwright's presses one by one."""
    page.evaluate("""([key, n]) => { for (let i = 0; i < n; i++) window.dispatchEvent(
        new KeyboardEvent('keydown', {key, bubbles: true, cancelable: true})); }""", [key, n])


def module_page(browser, tmp_path, entry, expose, body="", name="page"):
    """A page from disk with the packaged plotly.min.js and ``entry`` (a page module) loaded
    by viz.page_js.loader; ``expose``: JS run after it, with ``entry`` (the module's
    namespace) in scope. Its errors (page errors, console errors) are kept on it."""
    from ui.routes import PLOTLY_JS
    from viz.page_js import loader

    path = tmp_path / f"{name}.html"
    path.write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><script>"
        + PLOTLY_JS.read_text(encoding="utf-8") + "</script></head><body>" + body
        + "<script type='module'>" + loader(entry, export_default=False) + expose
        + "\nwindow.ready = true;</script></body></html>", encoding="utf-8")
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    page.goto(path.as_uri())
    page.wait_for_function("() => window.ready === true")
    return page
