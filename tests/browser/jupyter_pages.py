"""Driving Jupyter's pages in Chromium, shared by the notebook widget's browser test
(test_notebook_browser.py) and its benchmark (benchmarks/bench_notebook.py): one Jupyter
server on a free loopback port, which serves both front ends the project is tested in
(JupyterLab 4 at ``/lab/tree/<path>``, Notebook 7 at ``/notebooks/<path>``: each is a
server extension of the same server); a notebook opened in either and every cell run; and a
kernel client for the kernel of a notebook the page opened."""

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

from jupyter_client import BlockingKernelClient

# a notebook's page in each front end, by its path under the server's root
HOSTS = {"lab": "/lab/tree/", "notebook7": "/notebooks/"}
HOST_NAMES = {"lab": "JupyterLab 4", "notebook7": "Notebook 7"}


def start(tmp: Path, port: int, pythonpath: list[Path], timeout_s: float = 180):
    """A Jupyter server (``python -m jupyterlab``) on 127.0.0.1:``port`` serving ``tmp/work``,
    no token, its settings, runtime and data files under ``tmp`` (JupyterLab's news feed and
    update check off), kernels importing ``pythonpath``. Its output goes to ``tmp/jupyter.log``.
    Returns the process (in a group of its own: ``stop`` ends it with its kernels) once the
    server answers; its kernels' connection files are in ``tmp/runtime``."""
    settings = tmp / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, pythonpath)),
           "JUPYTER_RUNTIME_DIR": str(tmp / "runtime"), "JUPYTER_CONFIG_DIR": str(tmp / "config"),
           "JUPYTER_DATA_DIR": str(tmp / "data")}
    log = tmp / "jupyter.log"
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--allow-root", "--no-browser",
         f"--ServerApp.port={port}", "--ServerApp.port_retries=0", "--ServerApp.ip=127.0.0.1",
         "--ServerApp.token=", "--ServerApp.password=", f"--ServerApp.root_dir={tmp / 'work'}",
         # the tests' own REST calls (a kernel shut down) carry no XSRF cookie
         "--ServerApp.disable_check_xsrf=True",
         # both front ends read the same user settings (the news feed off)
         f"--LabApp.user_settings_dir={tmp / 'settings'}",
         f"--JupyterNotebookApp.user_settings_dir={tmp / 'settings'}",
         f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
         f"--JupyterNotebookApp.workspaces_dir={tmp / 'workspaces'}",
         "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        env=env, stdout=open(log, "wb"), stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        if proc.poll() is not None:
            break
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status", timeout=2)
            return proc
        except OSError:
            time.sleep(0.5)
    stop(proc)
    raise RuntimeError(f"the Jupyter server did not start on port {port}: "
                       + log.read_text()[-2000:])


def stop(proc: subprocess.Popen) -> None:
    """The server and its kernels ended."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=20)


def open_notebook(page, url: str, path: str, host: str = "lab") -> None:
    """The notebook at ``path`` (under the server's root) opened in ``host``'s page, its
    kernel started first (``start_kernel``): the page joins it."""
    start_kernel(url, path)
    response = page.goto(url + HOSTS[host] + urllib.parse.quote(path))
    if not response or not response.ok:  # e.g. Notebook 7 not installed: no /notebooks/
        raise RuntimeError(f"{HOST_NAMES[host]} did not serve {path} "
                           f"({response.status if response else 'no answer'}): is it installed "
                           "(requirements-dev.txt)?")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)


def start_kernel(url: str, path: str) -> str:
    """A session for the notebook at ``path`` with a Python 3 kernel, made through the
    server's REST API before a page opens it; its kernel's id. The page joins the session
    (``run_all`` asks again for a first cell asked while the kernel starts). Left to the
    page on a busy machine (load 12), the front end started a kernel, asked which kernel to
    use before it had the list, started a second on the answer and shut the first down
    while the page's websocket was joining it (the server's log: two "Kernel started", a
    500 on the first one's channels): no cell ever ran, and bench_notebook's smoke run hung
    (twice in CI)."""
    asked = urllib.request.Request(
        url + "/api/sessions", method="POST", headers={"Content-Type": "application/json"},
        data=json.dumps({"path": path, "name": path, "type": "notebook",
                         "kernel": {"name": "python3"}}).encode())
    return json.load(urllib.request.urlopen(asked, timeout=60))["kernel"]["id"]


def _accept_dialog(page) -> None:
    """The front end asks which kernel to start when it opened the notebook before it had the
    list of kernels (a busy machine): the notebook's own, Python 3, is the dialog's choice."""
    dialog = page.locator(".jp-Dialog .jp-mod-accept")
    if dialog.count():
        dialog.click()


STALLED_S = 60  # s a queued first cell may wait for the kernel before the page is reloaded


def run_all(page, drawn: str, timeout_s: float = 900) -> None:
    """Every cell of the open notebook run, then wait until ``drawn`` (a JS expression)
    holds and no cell is still running. Both front ends are made of JupyterLab's notebook
    panel: the same cells, prompts, dialogs and keys."""
    deadline = time.time() + timeout_s
    # the first code cell run until it has its number (a run asked for while the kernel is
    # still starting is lost), then every cell from there in turn (Shift+Enter: run, next)
    first = page.locator(".jp-Notebook .jp-CodeCell").first.locator(".jp-InputPrompt")
    asked = time.time()
    while not re.search(r"\[\d+\]", first.text_content()):
        if "*" not in first.text_content():
            first.click()  # command mode on this cell
            page.keyboard.press("Control+Enter")
        elif time.time() - asked > STALLED_S:
            # queued and never run: the page's kernel connection was lost as it opened (seen
            # on a busy machine: the server's websocket handler had no kernel yet); a reload
            # connects again and the run is asked for anew
            page.reload()
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
            asked = time.time()
            continue
        _accept_dialog(page)
        if time.time() > deadline:
            raise TimeoutError(f"the kernel did not run a cell in {timeout_s:.0f} s")
        page.wait_for_timeout(2000)
    first.click()
    for _ in range(page.locator(".jp-Notebook .jp-Cell").count()):
        page.keyboard.press("Shift+Enter")
    done = ("![...document.querySelectorAll('.jp-Notebook .jp-InputPrompt')]"
            ".some(p => p.textContent.includes('*'))")
    checked = time.time()
    while not page.evaluate(f"() => !!({drawn}) && {done}"):
        _accept_dialog(page)
        if time.time() > deadline:
            raise TimeoutError(f"the notebook did not show its widgets in {timeout_s:.0f} s")
        if time.time() - checked > RERUN_S:
            _run_the_skipped(page)
            checked = time.time()
        page.wait_for_timeout(500)


RERUN_S = 15  # s with nothing running before a code cell that never ran is run again


def _run_the_skipped(page) -> None:
    """With no cell running, each code cell that never ran (its prompt "[ ]": a Shift+Enter
    lost while a dialog had the keys, seen on a busy machine as a widget that never drew and
    a bench that hung) run again, in order."""
    prompts = page.locator(".jp-Notebook .jp-CodeCell .jp-InputPrompt")
    texts = prompts.all_text_contents()
    if any("*" in t for t in texts):
        return
    for i, text in enumerate(texts):
        if not re.search(r"\[\d+\]", text):
            prompts.nth(i).click()
            page.keyboard.press("Control+Enter")
            page.wait_for_timeout(200)


def kernel_of(url: str, runtime: Path, path: str, timeout_s: float = 60) -> BlockingKernelClient:
    """A client of the kernel the server started for the notebook at ``path`` (its session),
    its channels started and the kernel ready."""
    sessions = json.load(urllib.request.urlopen(url + "/api/sessions", timeout=10))
    kernel_id = next(s["kernel"]["id"] for s in sessions if s["path"] == path)
    kernel = BlockingKernelClient(connection_file=str(runtime / f"kernel-{kernel_id}.json"))
    kernel.load_connection_file()
    kernel.start_channels()
    kernel.wait_for_ready(timeout=timeout_s)
    return kernel


def shut_down_kernel(url: str, path: str) -> None:
    """The session of the notebook at ``path`` deleted (its kernel shut down): its memory
    back before the next page opens."""
    sessions = json.load(urllib.request.urlopen(url + "/api/sessions", timeout=10))
    for s in sessions:
        if s["path"] == path:
            urllib.request.urlopen(urllib.request.Request(
                f"{url}/api/sessions/{s['id']}", method="DELETE"), timeout=30)
