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
LABELLED = 6  # a query of at most this many documents names each (d1, d2, …) and lists them
CHART = 0.3  # the share of the width the two lists take; the tables the rest


def document(d: int) -> str:
    """A query's document as the chart and the tables name it: d1 is its first row."""
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
    documents' g (listed with them in a small query); ``title`` names the query."""
    n = len(y)
    pos_before = np.empty(n, int)
    pos_before[np.argsort(-before.astype(np.float64), kind="mergesort")] = np.arange(1, n + 1)
    pos_after = np.empty(n, int)
    pos_after[np.argsort(-after.astype(np.float64), kind="mergesort")] = np.arange(1, n + 1)
    named = n <= LABELLED
    font = 16 if large else 13
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
                x=np.full(len(sel), x), y=pos[sel], mode="markers+text" if named else "markers",
                text=[document(d) for d in sel] if named else None, textposition="middle center",
                textfont={"color": "#111111", "size": font},
                marker={"color": "white" if named else color, "size": 2.2 * font if named
                        else (11 if large else 9), "line": {"color": color, "width": 4 if
                                                            named else 0}},
                name=f"relevance {short(grade)}", legendgroup=str(grade),
                showlegend=x == 0 and not named, customdata=np.c_[sel + 1, score[sel]],
                hovertemplate="d%{customdata[0]}<br>score %{customdata[1]:.4g}"
                              f"<br>relevance {short(grade)}<extra></extra>"))
    order = np.argsort(-np.abs(lam), kind="mergesort")[:TOP_PAIRS]
    widest = float(np.abs(lam[order]).max()) if len(order) else 1.0
    for rank, p in enumerate(order):  # the pair as an arc left of the list before the round
        a, b = pos_before[high[p]], pos_before[low[p]]
        bend = -0.1 - 0.06 * rank
        t = np.linspace(0, np.pi, 20)
        traces.append(go.Scatter(
            x=(-0.22 if named else 0.0) + bend * np.sin(t),  # named: from the circles' edge
            y=a + (b - a) * (1 - np.cos(t)) / 2, mode="lines",
            line={"color": "#d55e00", "width": 1 + 5 * abs(float(lam[p])) / widest},
            name="pair λ", legendgroup="pairs", showlegend=rank == 0 and not named,
            hovertemplate=(f"pair: {document(high[p])} (relevance {short(y[high[p]])}) over "
                           f"{document(low[p])} (relevance {short(y[low[p]])})<br>λ = "
                           f"{short(lam[p])} (× norm {short(norm)})<extra></extra>")))
    docs = named and g is not None
    # the two tables share the height by their rows (a table too short for its rows scrolls)
    split = (n + 1) / (len(order) + n + 2) if docs else 0.0
    if len(order):
        traces.append(_pairs_table(order, high, low, lam, delta, sig, swap, font,
                                   [split + 0.02 if docs else 0.0, 1.0]))
    if docs:
        traces.append(_documents_table(y, g, norm, font, [0.0, split - 0.02]))
    return go.Figure(data=traces, layout=layout(
        f"Round {round_idx}: {title}, {n} documents, {len(lam)} pairs"
        + (f" (the {len(order)} of largest |λ|)" if len(order) < len(lam) else ""), large,
        ytitle="position",
        yaxis={"range": [n + 0.6, 0.4], "dtick": 1 if n <= 15 else 5},
        xaxis={"tickvals": [0, 1], "ticktext": [f"after {round_idx - 1}", f"after {round_idx}"],
               "range": [-0.75 if named else -0.5, 1.3], "showgrid": False, "zeroline": False,
               "domain": [0, CHART]},
        showlegend=not named))


def _table(columns: dict, domain_y, font: int, widths) -> go.Table:
    return go.Table(
        domain={"x": [CHART + 0.05, 1.0], "y": domain_y}, columnwidth=widths,
        # bold by the font, not <b>: Plotly measures a header with markup, and in a presenter
        # panel (the chart scaled by CSS, ui/chart.js) through the scale — at 4K (x3) the
        # header grew two rows' height and the last rows scrolled out of the table
        header={"values": list(columns), "align": "left",
                "fill": {"color": "#eeeeee"}, "line": {"color": "#bbbbbb"},
                "font": {"size": font, "color": "#111111", "weight": "bold"},
                "height": font + 12},
        cells={"values": list(columns.values()), "align": "left",
               "fill": {"color": "white"}, "line": {"color": "#dddddd"},
               "font": {"size": font, "color": "#111111"}, "height": font + 10})


def _pairs_table(order, high, low, lam, delta, sig, swap: str, font: int,
                 domain_y) -> go.Table:
    """The drawn pairs, largest |λ| first: which two documents, |ΔZ|, σ(s₊ − s₋) and λ."""
    columns = {"pair": [f"{document(high[p])} › {document(low[p])}" for p in order]}
    if delta is not None:
        columns[f"|{swap}|"] = [_said(delta[p]) for p in order]
    if sig is not None:
        columns["σ(s₊ − s₋)"] = [_said(sig[p]) for p in order]
    columns["λ"] = [_said(lam[p]) for p in order]
    return _table(columns, domain_y, font, [1.05, 1.15, 1.35, 1.1][-len(columns):])


def _documents_table(y, g, norm, font: int, domain_y) -> go.Table:
    """Each document, its relevance and its g: its pairs' ±λ summed, × the query's norm."""
    columns = {"doc": [document(d) for d in range(len(y))],
               "relevance": [short(v) for v in y],
               f"g = Σ ±λ × {_said(norm)}": [_said(v) for v in g]}
    return _table(columns, domain_y, font, [0.6, 1.1, 2.0])
