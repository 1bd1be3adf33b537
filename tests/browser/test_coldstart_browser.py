"""A server started with an empty numba cache, as on a fresh clone: the first screen comes
from the plain-Python engine and says so; data it does not take says that its kernels are
being compiled. (How long each takes: benchmarks/bench_cold.py.)"""

import os
import re

import pytest
from harness import (
    SHOTS,
    _status,
    charts_drawn,
    idle,
    new_page,
    player_button,
    pointer_gone,
    run_of,
    start_server,
    stop_server,
)
from playwright.sync_api import expect


@pytest.fixture(scope="module")
def cold_server(tmp_path_factory):
    cache = tmp_path_factory.mktemp("numba-cache")  # empty: nothing compiled yet
    proc, url = start_server(env={**os.environ, "NUMBA_CACHE_DIR": str(cache)})
    yield url
    stop_server(proc)  # and its compile workers


def test_the_first_screen_does_not_wait_for_the_compile(cold_server, browser):  # noqa: F811
    page = new_page(browser, viewport={"width": 1280, "height": 720})
    page.goto(cold_server)
    idle(page)
    expect(_status(page)).to_contain_text("Round 0 of 20", timeout=60_000)
    expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=30_000)
    note = page.get_by_text("Trained as plain Python while the engine compiles")
    expect(note).to_be_visible()
    assert "the same numbers, bit for bit" in note.inner_text()
    with run_of(page):  # the page steps; the app hears of the round at rest
        player_button(page, "step").click()
        expect(_status(page)).to_contain_text("Round 1 of 20")
    expect(page).to_have_url(re.compile(r"round=1(&|$)"))
    assert page.get_by_test_id("stException").count() == 0
    charts_drawn(page)
    pointer_gone(page, 1275, 715)
    page.screenshot(path=str(SHOTS / "coldstart-720p.png"))
    page.close()


def test_larger_data_says_it_compiles_for_it(cold_server, browser):  # noqa: F811
    page = new_page(browser, viewport={"width": 1280, "height": 720})
    page.goto(cold_server + "/?sample=diabetes")
    spinner = page.get_by_test_id("stSpinner")
    expect(spinner).to_contain_text("Compiling the engine for this data (first start only",
                                    timeout=30_000)
    page.screenshot(path=str(SHOTS / "coldstart-waiting-720p.png"))
    assert page.get_by_test_id("stException").count() == 0
    page.close()
