"""The notebook widget (ui/notebook.py) in JupyterLab 4, headless on loopback: the example
notebook (examples/notebook.ipynb) opened and run in Debian's Chromium. Each of its two
widgets (a BoostScope model and an XGBoost model of the same data) says "Round r of 20";
→ steps it with no message to the kernel until the page rests, and then ``w.round`` read from
the kernel is the round on screen; a click on a node draws its details from the record the
kernel sent, and ``w.node`` follows. Nothing the page asks leaves the machine: every request
to another host is blocked and recorded, and none may be. One server and one notebook run
per test run (a module fixture); screenshots at 1280×720 and 1920×1080 go under
tests/screenshots/notebook/.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.request

import pytest
from harness import LOCAL, ROOT, SHOTS, _free_port
from jupyter_client import BlockingKernelClient
from playwright.sync_api import expect

WIDGETS = "[data-testid=boostscope-widget]"
ROUNDS = 20
# the players of the page's widgets, in the notebook's order
PLAYER = "(i) => document.querySelectorAll('[data-testid=boostscope-widget]')[i]" \
         ".querySelector('.bsw-player').boostscopePlayer"


def _lab(tmp):
    """``jupyter lab`` on a free loopback port serving ``tmp`` (a copy of the example), its
    settings and runtime files there too (the news feed off), kernels importing this
    checkout: (process, url, runtime dir)."""
    port = _free_port()
    settings = tmp / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    runtime = tmp / "runtime"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JUPYTER_RUNTIME_DIR": str(runtime),
           "JUPYTER_CONFIG_DIR": str(tmp / "config"), "JUPYTER_DATA_DIR": str(tmp / "data")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--allow-root", "--no-browser",
         f"--ServerApp.port={port}", "--ServerApp.ip=127.0.0.1", "--ServerApp.token=",
         "--ServerApp.password=", f"--ServerApp.root_dir={tmp / 'work'}",
         f"--LabApp.user_settings_dir={tmp / 'settings'}",
         f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        env=env, stdout=open(tmp / "lab.log", "wb"), stderr=subprocess.STDOUT,
        start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url + "/api/status", timeout=2)
            return proc, url, runtime
        except OSError:
            time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGKILL)
    raise RuntimeError("jupyter lab did not start: " + (tmp / "lab.log").read_text()[-2000:])


def _run_all(page, drawn: str, timeout_s: float = 900) -> None:
    """Every cell run, then wait until ``drawn`` (a JS expression) holds. JupyterLab asks which
    kernel to start when it opened the notebook before it had the list of kernels (a busy
    machine): the notebook's own, Python 3, is the dialog's choice."""
    deadline = time.time() + timeout_s
    # the first code cell run until it has its number (a run asked for while the kernel is
    # still starting is lost), then every cell from there in turn (Shift+Enter: run, next)
    first = page.locator(".jp-Notebook .jp-CodeCell").first.locator(".jp-InputPrompt")
    while not re.search(r"\[\d+\]", first.text_content()):
        if "*" not in first.text_content():
            first.click()  # command mode on this cell
            page.keyboard.press("Control+Enter")
        dialog = page.locator(".jp-Dialog .jp-mod-accept")
        if dialog.count():
            dialog.click()
        if time.time() > deadline:
            raise TimeoutError(f"the kernel did not run a cell in {timeout_s:.0f} s")
        page.wait_for_timeout(2000)
    first.click()
    for _ in range(page.locator(".jp-Notebook .jp-Cell").count()):
        page.keyboard.press("Shift+Enter")
    while not page.evaluate(f"() => !!({drawn})"):
        dialog = page.locator(".jp-Dialog .jp-mod-accept")
        if dialog.count():
            dialog.click()
        if time.time() > deadline:
            raise TimeoutError(f"the notebook did not show its widgets in {timeout_s:.0f} s")
        page.wait_for_timeout(500)


@pytest.fixture(scope="module")
def lab(browser, tmp_path_factory):
    """The example notebook run in JupyterLab in Chromium: (page, kernel client, what the
    page sent to the kernel, the requests blocked)."""
    tmp = tmp_path_factory.mktemp("lab")
    (tmp / "work").mkdir()
    shutil.copy(ROOT / "examples" / "notebook.ipynb", tmp / "work" / "notebook.ipynb")
    proc, url, runtime = _lab(tmp)
    blocked, sent, errors = [], [], []
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 720})

        def route(r):  # nothing but the machine's own server
            if r.request.url.startswith(LOCAL):
                r.continue_()
            else:
                blocked.append(r.request.url)
                r.abort()
        page.route("**/*", route)
        page.add_init_script(WATCH_SENT)
        page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(
            f if isinstance(f, bytes) else f.encode())))
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url + "/lab/tree/notebook.ipynb")
        page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
        _run_all(page, "[...document.querySelectorAll('[data-testid=boostscope-widget]')]"
                       ".filter(w => w.querySelector('.bsp-tree-svg')).length === 2")
        # the notebook's last cell has run (the offline file written)
        page.wait_for_function("() => document.querySelectorAll('.jp-Cell "
                               ".jp-InputPrompt').length > 0 && ![...document"
                               ".querySelectorAll('.jp-InputPrompt')].some(p => "
                               "p.textContent.includes('*'))", timeout=300_000)
        kernel = BlockingKernelClient(
            connection_file=str(next(runtime.glob("kernel-*.json"))))
        kernel.load_connection_file()
        kernel.start_channels()
        kernel.wait_for_ready(timeout=60)
        yield page, kernel, sent, blocked, errors
        kernel.stop_channels()
        page.close()
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=20)


def _ask(kernel, expression: str):
    """The value of ``expression`` in the notebook's kernel (its JSON, printed)."""
    out = []
    reply = kernel.execute_interactive(
        f"import json as _j; print(_j.dumps({expression}))", timeout=60,
        output_hook=lambda m: out.append(m["content"].get("text", ""))
        if m["msg_type"] == "stream" else None)
    assert reply["content"]["status"] == "ok", reply["content"]
    return json.loads("".join(out))


def _status(page, i):
    return page.locator(WIDGETS).nth(i).locator(".bsp-status")


def _rest(page, i):
    page.wait_for_function(f"() => {{ const p = ({PLAYER})({i}); return !p.drawing && !p.dirty"
                           " && p.reported === p.r; }", timeout=30_000)


# Every state change the page sends the kernel, with the time it was sent (the page's clock)
WATCH_SENT = """
const send = WebSocket.prototype.send;
window.__updates = [];
WebSocket.prototype.send = function (data) {
  if (typeof data === "string" || data instanceof ArrayBuffer) {
    const text = typeof data === "string" ? data : new TextDecoder().decode(data);
    if (text.includes('"method":"update"')) window.__updates.push({t: performance.now(), text});
  }
  return send.call(this, data);
};"""


def _updates(page, model_id: str) -> list[float]:
    """When the page sent the kernel a state change of one widget (its comm)."""
    return page.evaluate("(id) => window.__updates.filter(u => u.text.includes(id))"
                         ".map(u => u.t)", model_id)


@pytest.mark.parametrize("i, name", [(0, "stage"), (1, "xgb_stage")])
def test_widget_steps_reports_and_draws_a_node(lab, i, name):
    page, kernel, sent, blocked, errors = lab
    widget = page.locator(WIDGETS).nth(i)
    widget.scroll_into_view_if_needed()
    status = _status(page, i)
    expect(status).to_have_text(re.compile(rf"^Round \d+ of {ROUNDS}\b"))
    r0 = int(re.match(r"Round (\d+)", status.text_content()).group(1))
    assert r0 == _ask(kernel, f"{name}.round")

    # → steps in the page (the keys typed in the widget: a press on its status line gives
    # it them) and nothing reaches the kernel until the page rests
    # (the page's prefetch of the round's records at rest, messages of its own, off here)
    page.evaluate("() => { window.boostscopePlayer.prefetch = false; }")
    status.click()
    _rest(page, i)
    page.wait_for_timeout(500)
    model_id = _ask(kernel, f"{name}.model_id")
    before = len(_updates(page, model_id))
    key, r1 = ("ArrowLeft", r0 - 1) if r0 == ROUNDS else ("ArrowRight", r0 + 1)
    page.keyboard.press(key)
    expect(status).to_have_text(re.compile(rf"^Round {r1} of {ROUNDS}\b"))
    _rest(page, i)
    page.wait_for_timeout(500)
    step = page.evaluate("() => window.boostscopePlayer.timings.filter(t => t.key).at(-1)")
    sent_at = _updates(page, model_id)[before:]
    assert step["round"] == r1 and len(sent_at) == 1, sent_at  # the round at rest, once
    # drawn before anything was sent, and sent at rest (300 ms after the key), not per step
    assert step["start"] + step["ms"] < sent_at[0] and sent_at[0] >= step["start"] + 290
    assert _ask(kernel, f"{name}.round") == r1
    page.evaluate("() => { window.boostscopePlayer.prefetch = true; }")

    # a node clicked: its details drawn from the kernel's record; w.node follows at rest
    node = 1
    widget.locator(".bsp-tree").scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    box = page.evaluate(f"(i) => window.boostscopePlayer.nodeCenter({node}, ({PLAYER})(i))", i)
    assert box and 0 <= box["y"] <= page.viewport_size["height"], box
    page.mouse.click(box["x"], box["y"])
    details = widget.locator(".bsw-details")
    expect(details).to_contain_text(f"Node {node} of round {r1}")
    record = _ask(kernel, f"__import__('ui.nodes').nodes.page_node({name}.booster, {name}.X, "
                          f"{r1}, {node})['numbers']")
    expect(details).to_contain_text(record["feature"])
    _rest(page, i)
    page.wait_for_timeout(400)
    assert _ask(kernel, f"[{name}.round, {name}.node]") == [r1, node]
    SHOTS.joinpath("notebook").mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / "notebook" / f"{name}-tree-1280x720.png")
    widget.locator(".bsp-status").scroll_into_view_if_needed()
    page.screenshot(path=SHOTS / "notebook" / f"{name}-1280x720.png")
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.wait_for_timeout(1500)
    widget.locator(".bsp-status").scroll_into_view_if_needed()
    page.screenshot(path=SHOTS / "notebook" / f"{name}-1920x1080.png")
    page.set_viewport_size({"width": 1280, "height": 720})
    page.wait_for_timeout(1000)

    # the kernel moves the page
    _ask(kernel, f"{name}.goto(2, node=0) or 0")
    expect(status).to_have_text(re.compile(rf"^Round 2 of {ROUNDS}\b"))
    assert not errors, errors
    assert not blocked, f"requests to other hosts: {blocked}"
