"""The browser walks' fixtures (one server and one Chromium per test process: started once,
shared by the modules that process runs), and the ``browser`` marker on every test in this
folder: ``pytest -m "not browser"`` runs the rest."""

import pytest
from harness import CHROMIUM, CHROMIUM_ARGS, OFFENCES, start_server, stop_server
from playwright.sync_api import expect, sync_playwright

# What a page shows after a click can take seconds on a machine whose cores are shared (the
# server, Chromium and other work): every ``expect`` waits up to 30 s unless told otherwise.
expect.set_options(timeout=30_000)


def pytest_collection_modifyitems(items):
    here = __file__.rsplit("/", 1)[0]
    for item in items:
        if str(item.path).startswith(here):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def server():
    """``streamlit run app.py``, shared by the modules of this test process (a walk whose
    server must not have served others has a fixture of its own)."""
    proc, url = start_server()
    yield url
    stop_server(proc)


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, headless, once per test process (each walk opens its own pages)."""
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(autouse=True)
def no_network_and_no_console_error():
    """Every walk: no request leaves the machine and the console holds no error (the pages
    made by ``harness.new_page``)."""
    OFFENCES.clear()
    yield
    found, OFFENCES[:] = list(OFFENCES), []
    assert not found, "\n".join(dict.fromkeys(found))
