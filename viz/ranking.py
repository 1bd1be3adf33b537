"""One query's documents ordered by score before and after a round, and the pairs whose
λ-gradients grew that round's tree (LambdaMART), drawn from arrays the view hands over (the
engine's margins and ``boost.ranking.query_pairs``): the documents as two lists joined by
their moves, the largest-|λ| pairs as arcs, and the same pairs as a table of what makes
each λ (|ΔZ|, σ(s₊ − s₋), λ)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .theme import PALETTE, layout, minus, short

TOP_PAIRS = 6  # the pairs drawn and listed: the largest |λ|
LABELLED = 10  # a query of at most this many documents names each (d1, d2, …) on the chart
CHART = 0.42  # the share of the width the two lists take; the table the rest


def document(d: int) -> str:
    """A query's document as the chart and the table name it: d1 is its first row."""
    return f"d{d + 1}"


def _said(x) -> str:
    return minus(short(x))


def make_ranking_figure(before: np.ndarray, after: np.ndarray, y: np.ndarray,
                        high: np.ndarray, low: np.ndarray, lam: np.ndarray, norm: float,
                        round_idx: int, large: bool = False, delta: np.ndarray | None = None,
                        sig: np.ndarray | None = None, swap: str = "ΔNDCG",
                        g: np.ndarray | None = None, title: str = "the query") -> go.Figure:
    """``before``/``after``: the query's margins after rounds r−1 and r; ``y`` the
    relevance; ``high``, ``low``, ``lam``: the pairs of round r's gradients (``high`` the
    better label; rows of the query), ``norm`` the query's normalisation; ``delta`` and
    ``sig`` each pair's |ΔZ| and σ(s_high − s_low) (``swap`` names ΔZ), ``g`` the
    documents' g (written beside them in a small query); ``title`` names the query."""
    n = len(y)
    pos_before = np.empty(n, int)
    pos_before[np.argsort(-before.astype(np.float64), kind="mergesort")] = np.arange(1, n + 1)
    pos_after = np.empty(n, int)
    pos_after[np.argsort(-after.astype(np.float64), kind="mergesort")] = np.arange(1, n + 1)
    named = n <= LABELLED
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
            text = None
            if named:
                text = [document(d) + (f" g {_said(g[d])}" if g is not None and x == 0 else "")
                        for d in sel]
            traces.append(go.Scatter(
                x=np.full(len(sel), x), y=pos[sel], mode="markers+text" if named else "markers",
                text=text, textposition="middle right",
                marker={"color": color, "size": 13 if large else 10},
                name=f"relevance {short(grade)}", legendgroup=str(grade), showlegend=x == 0,
                customdata=np.c_[sel + 1, score[sel]],
                hovertemplate="d%{customdata[0]}<br>score %{customdata[1]:.4g}"
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
            hovertemplate=(f"pair: {document(high[p])} (relevance {short(y[high[p]])}) over "
                           f"{document(low[p])} (relevance {short(y[low[p]])})<br>λ = "
                           f"{short(lam[p])} (× norm {short(norm)})<extra></extra>")))
    if len(order):
        traces.append(_pairs_table(order, high, low, lam, delta, sig, swap, large))
    note = f"a document's g: its pairs' ±λ summed, × {_said(norm)}"
    return go.Figure(data=traces, layout=layout(
        f"Round {round_idx}: {title}'s {n} documents by score, its {len(order)} largest-|λ| "
        "pairs", large, ytitle="position (1 = top)",
        yaxis={"range": [n + 0.7, 0.3], "dtick": 1 if n <= 15 else 5},
        xaxis={"tickvals": [0, 1], "ticktext": [f"after {round_idx - 1}", f"after {round_idx}"],
               "range": [-0.5, 1.75 if named else 1.2], "showgrid": False,
               "zeroline": False, "domain": [0, CHART]},
        annotations=[{"text": note, "xref": "paper", "yref": "paper", "x": CHART + 0.04,
                      "y": 0.0, "xanchor": "left", "yanchor": "bottom", "showarrow": False,
                      "align": "left"}] if len(order) else []))


def _pairs_table(order, high, low, lam, delta, sig, swap: str, large: bool) -> go.Table:
    """The drawn pairs, largest |λ| first: which two documents, |ΔZ|, σ(s₊ − s₋) and λ."""
    columns = {"pair": [f"{document(high[p])} › {document(low[p])}" for p in order]}
    if delta is not None:
        columns[f"|{swap}|"] = [_said(delta[p]) for p in order]
    if sig is not None:
        columns["σ(s₊ − s₋)"] = [_said(sig[p]) for p in order]
    columns["λ"] = [_said(lam[p]) for p in order]
    size = 18 if large else 14
    return go.Table(
        domain={"x": [CHART + 0.04, 1.0], "y": [0.12, 1.0]},
        columnwidth=[1.1] + [1.0] * (len(columns) - 1),
        header={"values": [f"<b>{c}</b>" for c in columns], "align": "left",
                "fill": {"color": "#f0f0f0"}, "font": {"size": size},
                "height": size + 14},
        cells={"values": list(columns.values()), "align": "left", "font": {"size": size},
               "height": size + 12})
