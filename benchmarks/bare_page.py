"""A bare Streamlit page for ``bench_app.py --floor``: a fragment with a Step button, a
heading that names the step and ``?charts=N`` small Plotly scatters (200 points each, SVG)
that change at every step — what any Streamlit app redraws when a button is pressed, without
BoostScope. Served as ``app.py`` from a temporary directory."""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

CHARTS = int(st.query_params.get("charts", "0"))
st.session_state.setdefault("n", 0)


@st.fragment
def stage() -> None:
    if st.button("Step", key="step"):
        st.session_state.n += 1
    n = st.session_state.n
    st.markdown(f"#### Step {n}")
    rng = np.random.default_rng(n)
    columns = st.columns(max(CHARTS, 1))
    for i in range(CHARTS):
        figure = go.Figure(go.Scatter(x=np.arange(200), y=rng.normal(size=200),
                                      mode="markers"))
        figure.update_layout(height=300, margin={"l": 40, "r": 10, "t": 30, "b": 30},
                             title=f"chart {i + 1}, step {n}")
        columns[i].plotly_chart(figure, key=f"chart{i}")


stage()
