"""One query's documents ordered by score before and after a round, and the pairs whose
λ-gradients grew that round's tree (LambdaMART), drawn from arrays the view hands over (the
engine's margins and ``boost.ranking.query_pairs``)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .theme import PALETTE, layout, short

TOP_PAIRS = 6  # the pairs drawn: the largest |λ|


def make_ranking_figure(before: np.ndarray, after: np.ndarray, y: np.ndarray,
                        high: np.ndarray, low: np.ndarray, lam: np.ndarray, norm: float,
                        round_idx: int, large: bool = False) -> go.Figure:
    """``before``/``after``: the query's margins after rounds r−1 and r; ``y`` the
    relevance; ``high``, ``low``, ``lam``: the pairs of round r's gradients (``high`` the
    better label; rows of the query), ``norm`` the query's normalisation."""
    n = len(y)
    pos_before = np.empty(n, int)
    pos_before[np.argsort(-before.astype(np.float64), kind="mergesort")] = np.arange(1, n + 1)
    pos_after = np.empty(n, int)
    pos_after[np.argsort(-after.astype(np.float64), kind="mergesort")] = np.arange(1, n + 1)
    grades = np.unique(y)
    traces = []
    for d in range(n):  # each document's move between the two lists
        traces.append(go.Scatter(x=[0, 1], y=[pos_before[d], pos_after[d]], mode="lines",
                                 line={"color": "#bbb", "width": 1}, hoverinfo="skip",
                                 showlegend=False))
    for k, grade in enumerate(grades):
        sel = np.flatnonzero(y == grade)
        color = PALETTE[k % len(PALETTE)]
        for x, pos, score in ((0, pos_before, before), (1, pos_after, after)):
            traces.append(go.Scatter(
                x=np.full(len(sel), x), y=pos[sel], mode="markers",
                marker={"color": color, "size": 11 if large else 9},
                name=f"relevance {short(grade)}", legendgroup=str(grade), showlegend=x == 0,
                customdata=np.c_[sel, score[sel]],
                hovertemplate="document %{customdata[0]}<br>score %{customdata[1]:.4g}"
                              f"<br>relevance {short(grade)}<extra></extra>"))
    order = np.argsort(-np.abs(lam), kind="mergesort")[:TOP_PAIRS]
    widest = float(np.abs(lam[order]).max()) if len(order) else 1.0
    for rank, p in enumerate(order):  # the pair as an arc left of the list before the round
        a, b = pos_before[high[p]], pos_before[low[p]]
        bend = -0.12 - 0.05 * rank
        t = np.linspace(0, np.pi, 20)
        traces.append(go.Scatter(
            x=bend * np.sin(t), y=a + (b - a) * (1 - np.cos(t)) / 2, mode="lines",
            line={"color": "#d55e00", "width": 1 + 5 * abs(float(lam[p])) / widest},
            name="pair λ", legendgroup="pairs", showlegend=rank == 0,
            hovertemplate=(f"pair: document {high[p]} (relevance {short(y[high[p]])}) over "
                           f"{low[p]} (relevance {short(y[low[p]])})<br>λ = "
                           f"{short(lam[p])} (× norm {short(norm)})<extra></extra>")))
    return go.Figure(data=traces, layout=layout(
        f"Round {round_idx}: the query's documents by score, and its {len(order)} "
        "largest-|λ| pairs", large, ytitle="position (1 = top)",
        yaxis={"range": [n + 0.7, 0.3], "dtick": 1 if n <= 15 else 5},
        xaxis={"tickvals": [0, 1], "ticktext": [f"after round {round_idx - 1}",
                                                f"after round {round_idx}"],
               "range": [-0.5, 1.2], "showgrid": False, "zeroline": False}))
