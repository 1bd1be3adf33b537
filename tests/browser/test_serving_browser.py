"""A class on a server whose numba threading layer is not thread-safe (``workqueue``, what
numba falls back to without the system's libgomp): three browser sessions training at the
same moment, twice; the server lives, every page shows its model, and its log names the
layer and how to get a thread-safe one."""

import os
import tempfile
import time
from pathlib import Path

from harness import _status, new_page, start_server, stop_server
from playwright.sync_api import expect


def _log(url: str) -> str:
    port = url.rsplit(":", 1)[1]
    return (Path(tempfile.gettempdir()) / f"boostscope-server-{port}.log").read_text(
        errors="replace")


def test_a_workqueue_server_survives_three_sessions_training_at_once(browser):  # noqa: F811
    proc, url = start_server(env={**os.environ, "NUMBA_THREADING_LAYER": "workqueue"})
    try:
        pages = [new_page(browser, viewport={"width": 1280, "height": 720}) for _ in range(3)]
        for depth in (4, 6):  # each session its own model, all three asked at once
            for i, page in enumerate(pages):
                page.goto(f"{url}/?sample=diabetes&tree_method=hist&rounds=150"
                          f"&max_depth={depth}&eta=0.{i + 1}&round=150", wait_until="commit")
            for page in pages:
                expect(_status(page)).to_contain_text("Round 150 of 150", timeout=180_000)
                assert page.get_by_test_id("stException").count() == 0
            assert proc.poll() is None  # the process lives
        deadline = time.time() + 120  # the layer is logged once the warm-up is over
        while "numba threading layer" not in _log(url) and time.time() < deadline:
            time.sleep(1)
        log = _log(url)
        assert "numba threading layer 'workqueue'" in log, log[-2000:]
        assert "engine calls take turns" in log and "apt-get install libgomp1" in log
        assert "terminating" not in log
        for page in pages:
            page.close()
    finally:
        stop_server(proc)
