"""The notebook widget (ui/notebook.py) in both Jupyter front ends it is tested in, JupyterLab 4
and Notebook 7, headless on loopback: the example notebook (examples/notebook.ipynb) opened
and run in Debian's Chromium in each. Each of its two widgets (a BoostScope model and an
XGBoost model of the same data) says "Round r of 20"; → steps it with no message to the
kernel until the page rests, and then ``w.round`` read from the kernel is the round on screen;
a click on a node draws its details from the record the kernel sent, and ``w.node`` follows.
Nothing the page asks leaves the machine: every request to another host is blocked and
recorded, and none may be. One Jupyter server per test run serves both front ends (a module
fixture; jupyter_pages.py); each front end opens its own copy of the notebook (its own
kernel, shut down before the next opens). Screenshots at 1280×720 and 1920×1080 go under
tests/screenshots/notebook/.
"""

import json
import re
import shutil

import jupyter_pages
import pytest
from harness import LOCAL, ROOT, SHOTS, _free_port
from playwright.sync_api import expect

WIDGETS = "[data-testid=boostscope-widget]"
ROUNDS = 20
# the players of the page's widgets, in the notebook's order
PLAYER = "(i) => document.querySelectorAll('[data-testid=boostscope-widget]')[i]" \
         ".querySelector('.bsw-player').boostscopePlayer"
# Notebook 7.6's own races on opening a notebook (any notebook, an empty one too), thrown in
# its own bundle, not the widget's: its shortcuts plugin reads a settings schema the registry
# does not hold yet (jupyter/notebook issue 7862), and on a busy machine its router can ask
# for the file browser's "open path" command, which the notebook's page does not have. The
# only page errors a Notebook 7 page may have.
NOTEBOOK7_OWN = ("Cannot read properties of undefined (reading 'schema')",
                 "Command 'filebrowser:open-path' not registered.")


def _notebook7_own(error: str) -> bool:
    """``error`` (its message, then its stack) is one of Notebook 7's own, thrown wholly in
    its bundle (``/static/notebook/``)."""
    message, _, stack = error.partition("\n")
    frames = re.findall(r"https?://\S+?\.js", stack)
    return message in NOTEBOOK7_OWN and bool(frames) and all(
        "/static/notebook/" in f for f in frames)


DRAWN = ("[...document.querySelectorAll('[data-testid=boostscope-widget]')]"
         ".filter(w => w.querySelector('.bsp-tree-svg')).length === 2")


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory):
    """One Jupyter server on a free loopback port serving a copy of the example notebook per
    front end (``lab/notebook.ipynb``, ``notebook7/notebook.ipynb``): (url, runtime dir)."""
    tmp = tmp_path_factory.mktemp("jupyter")
    for host in jupyter_pages.HOSTS:
        (tmp / "work" / host).mkdir(parents=True)
        shutil.copy(ROOT / "examples" / "notebook.ipynb", tmp / "work" / host / "notebook.ipynb")
    port = _free_port()
    proc = jupyter_pages.start(tmp, port, [ROOT])
    try:
        yield f"http://127.0.0.1:{port}", tmp / "runtime"
    finally:
        jupyter_pages.stop(proc)


@pytest.fixture(scope="module", params=list(jupyter_pages.HOSTS))
def notebook(request, jupyter, browser):
    """The example notebook run in one front end in Chromium: (front end, page, kernel
    client, the requests blocked, the page's errors)."""
    host, (url, runtime) = request.param, jupyter
    path = f"{host}/notebook.ipynb"
    blocked, errors = [], []
    page = browser.new_page(viewport={"width": 1280, "height": 720})

    def route(r):  # nothing but the machine's own server
        if r.request.url.startswith(LOCAL):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()
    page.route("**/*", route)
    page.add_init_script(WATCH_SENT)
    page.on("pageerror", lambda e: errors.append(f"{e.message}\n{e.stack}"))
    try:
        jupyter_pages.open_notebook(page, url, path, host)
        jupyter_pages.run_all(page, DRAWN)
        kernel = jupyter_pages.kernel_of(url, runtime, path)
        yield host, page, kernel, blocked, errors
        kernel.stop_channels()
    finally:
        page.close()
        jupyter_pages.shut_down_kernel(url, path)


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
def test_widget_steps_reports_and_draws_a_node(notebook, i, name):
    host, page, kernel, blocked, errors = notebook
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
    shot = name if host == "lab" else f"{host}-{name}"
    page.screenshot(path=SHOTS / "notebook" / f"{shot}-tree-1280x720.png")
    widget.locator(".bsp-status").scroll_into_view_if_needed()
    page.screenshot(path=SHOTS / "notebook" / f"{shot}-1280x720.png")
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.wait_for_timeout(1500)
    widget.locator(".bsp-status").scroll_into_view_if_needed()
    page.screenshot(path=SHOTS / "notebook" / f"{shot}-1920x1080.png")
    page.set_viewport_size({"width": 1280, "height": 720})
    page.wait_for_timeout(1000)

    # the kernel moves the page
    _ask(kernel, f"{name}.goto(2, node=0) or 0")
    expect(status).to_have_text(re.compile(rf"^Round 2 of {ROUNDS}\b"))
    assert not [e for e in errors if not (host == "notebook7" and _notebook7_own(e))], errors
    assert not blocked, f"requests to other hosts: {blocked}"
