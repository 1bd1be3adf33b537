"""Never a traceback on a lecturer's screen: a part of the page drawn inside ``guarded``
says what failed and that the model is kept, and a model without its training rows (an
opened model's sample) says what it lacks. A fragment's exception stops at the fragment, so
every fragment that draws from the model is guarded itself."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

import boost


def guarded(draw: Callable[[], None], what: str, instead: str) -> None:
    """``draw()``; on an error, "``what`` could not be drawn (the error). ``instead``; the
    trained model is kept." in its place."""
    try:
        draw()
    except boost.NoTrainingTrace as exc:
        lacks(exc)
    except Exception as exc:
        st.error(f"{what} could not be drawn ({type(exc).__name__}: {exc}). {instead}; the "
                 "trained model is kept.")


def lacks(exc: boost.NoTrainingTrace) -> None:
    """What a model without its training rows cannot show, and how to get it."""
    st.info(str(exc), icon=":material/info:")
