"""What the AppTest files share: the app's path, opening it from a link, clean caches."""

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


@pytest.fixture(autouse=True)
def clear_caches():
    """Streamlit's caches are per process: each test starts without the last one's models."""
    st.cache_data.clear()
    st.cache_resource.clear()
    yield


def open_app(**query) -> AppTest:
    """The app opened with ``query`` as its URL's values, run once, without an exception."""
    at = AppTest.from_file(APP, default_timeout=180)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def status(at) -> str:
    """The status line over the charts ("#### Round r of n — train rmse ...")."""
    return next(m.value for m in at.markdown if m.value.startswith("#### Round"))
