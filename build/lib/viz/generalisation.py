"""Why many small steps generalise: two learning rates side by side — where the training and
validation rows' margins sit round by round, how far each round moves them, the
train–validation gap — and two sentences reading those numbers.

A row's *score* is what the margin distribution shows: classification y·margin with y = ±1
(multi-class: the true class's margin minus the best other class's), negative = on the wrong
side; regression the residual y − prediction, 0 = fitted exactly. What walks the rows is the
model's (``booster.trace.margin_summary``, ``margin_histograms``: ``Summary``, ``Histograms``
records of boost/trace/margins.py), once per model; a round's figure only indexes it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from boost.trace.margins import Summary

from .theme import PALETTE, TRAIN, VALID, layout, round_marker

ETA_COLORS = (PALETTE[2], PALETTE[3])  # the model's η, the second η (not train/valid's)

BINS = 48  # bars per histogram, the same edges for both models and every round
SCORE = {"regression": "residual y − prediction",
         "binary": "y·margin (y = ±1)",
         "multiclass": "true class's margin − best other class's"}


def common_edges(summaries, bins: int = BINS) -> np.ndarray:
    """Histogram edges covering every model's, set's and round's TAILS range (and 0), with 0
    on an edge, so the zero line separates two bars."""
    lo = min(min(float(v.min()) for v in s.low.values()) for s in summaries)
    hi = max(max(float(v.max()) for v in s.high.values()) for s in summaries)
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    width = (hi - lo) / bins if hi > lo else 1.0
    first, last = np.floor(lo / width), np.ceil(hi / width)
    return np.arange(first, last + 1) * width


@dataclass(frozen=True)
class Side:
    """One learning rate: its summary and its histograms (on the shared edges:
    ``Histograms.percent``)."""

    eta: float
    summary: Summary
    hist: dict


@dataclass(frozen=True)
class Facts:
    """One learning rate's numbers at one round (``round`` is the model's own: an early
    stopped model ends before the app's round). ``gap``/``valid`` None: no validation set;
    ``step`` None at round 0."""

    eta: float
    task: str
    metric: str
    round: int
    train: float  # train loss
    valid: float | None
    gap: float | None  # valid − train
    step: float | None
    typical_train: float  # misclassified share, or median |residual|
    typical_valid: float | None
    centre_train: float  # mean score (classification), or median |residual|
    centre_valid: float | None


def facts(side: Side, round_idx: int) -> Facts:
    s = side.summary
    r = min(round_idx, s.rounds)
    train = float(s.loss["train"].iloc[r])
    valid = float(s.loss["valid"].iloc[r]) if "valid" in s.loss.columns else None
    has_valid = "valid" in s.typical
    return Facts(side.eta, s.task, s.metric, r, train, valid,
                 None if valid is None else valid - train,
                 None if r == 0 else float(s.step[r]), float(s.typical["train"][r]),
                 float(s.typical["valid"][r]) if has_valid else None,
                 float(s.centre["train"][r]), float(s.centre["valid"][r]) if has_valid else None)


# --------------------------------------------------------------------------- the reading
def _num(x: float) -> str:
    return f"{x:.3g}".replace("-", "−")


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%" if x == 0 or x >= 0.1 else f"{100 * x:.1f}%"


def _eta(f: Facts) -> str:
    return f"η = {f.eta:g}"


def _close(x: float, y: float, floor: float) -> bool:
    """Too close to call one larger: within 5% of the larger, or under ``floor`` apart."""
    return abs(x - y) <= max(0.05 * max(abs(x), abs(y)), floor)


def reading(a: Facts, b: Facts, round_idx: int) -> str:
    """Two sentences on what the figures show at ``round_idx``, from their numbers."""
    if round_idx == 0:
        gap = "" if a.gap is None else f", with the same train–validation gap ({_num(a.gap)})"
        return (f"Round 0 is the baseline: both models give every row the same margin"
                f"{gap}. Step forward to watch {_eta(a)} and {_eta(b)} part.")
    return f"{_gap_sentence(a, b, round_idx)} {_step_sentence(a, b, round_idx)}"


def _stopped(a: Facts, b: Facts, round_idx: int) -> str:
    early = [f"{_eta(f)} stopped at round {f.round}" for f in (a, b) if f.round < round_idx]
    return f" ({' and '.join(early)})" if early else ""


def _gap_sentence(a: Facts, b: Facts, round_idx: int) -> str:
    when = f"By round {round_idx}{_stopped(a, b, round_idx)}"
    if a.gap is None or b.gap is None:
        return (f"{when} the training {a.metric} is {_num(a.train)} with {_eta(a)} and "
                f"{_num(b.train)} with {_eta(b)}; there is no validation set (fewer than 10 "
                "rows), so no gap to read.")
    if _close(a.gap, b.gap, 1e-3):
        return (f"{when} the train–validation gap ({a.metric}, validation − train) is about "
                f"the same for both: {_num(a.gap)} with {_eta(a)} and {_num(b.gap)} with "
                f"{_eta(b)}.")
    wide, narrow = (a, b) if a.gap > b.gap else (b, a)
    head = (f"{when} the train–validation gap ({a.metric}, validation − train) is "
            f"{_num(wide.gap)} with {_eta(wide)} but {_num(narrow.gap)} with {_eta(narrow)}")
    if _close(narrow.valid, wide.valid, 0.0):
        return (f"{head}, with about the same validation {a.metric} ({_num(narrow.valid)} and "
                f"{_num(wide.valid)}).")
    if narrow.valid < wide.valid:
        return (f"{head}, and {_eta(narrow)} also has the lower validation {a.metric} "
                f"({_num(narrow.valid)} against {_num(wide.valid)}).")
    return (f"{head}; yet {_eta(narrow)}'s validation {a.metric} is higher ({_num(narrow.valid)} "
            f"against {_num(wide.valid)}): its small gap means it has not fitted much yet, "
            "not that it generalises better.")


def _typical(f: Facts) -> tuple[str, str]:
    """(train, valid) of the typical score, as text."""
    show = _num if f.task == "regression" else _pct
    return show(f.typical_train), "" if f.typical_valid is None else show(f.typical_valid)


CENTRE = {"binary": "mean y·margin", "multiclass": "mean margin over the best other class",
          "regression": "median |residual|"}


def _spread(f: Facts) -> float:
    """How far the training rows ran ahead of the validation rows: the mean score's
    train − valid (classification, in margin units), median |residual| valid ÷ train
    (regression)."""
    if f.task != "regression":
        return f.centre_train - f.centre_valid
    return f.centre_valid / f.centre_train if f.centre_train > 0 else np.inf


def _centres(f: Facts) -> str:
    return f"{_num(f.centre_train)} and {_num(f.centre_valid)}"


def _step_sentence(a: Facts, b: Facts, round_idx: int) -> str:
    big, small = (a, b) if a.eta > b.eta else (b, a)
    moves = (f"Round {round_idx}'s trees move a training row's margin by {_num(big.step)} on "
             f"average with {_eta(big)}, by {_num(small.step)} with {_eta(small)}")
    if small.step > big.step:
        moves += f" ({_eta(big)} took its big steps early)"
    if a.typical_valid is None or b.typical_valid is None:
        what = "misclassified" if a.task != "regression" else "median |residual| of"
        return (f"{moves}; {what} training rows: {_typical(big)[0]} with {_eta(big)}, "
                f"{_typical(small)[0]} with {_eta(small)}.")
    what = CENTRE[a.task]
    # classification: margin units (log-odds); regression: a ratio, within 5%
    floor, level = (0.1, 0.1) if a.task != "regression" else (0.0, 1.05)
    if max(_spread(a), _spread(b)) <= level:
        return (f"{moves}, and neither has pushed its training rows ahead of its validation "
                f"rows ({what}, train and validation: {_centres(a)} with {_eta(a)}, "
                f"{_centres(b)} with {_eta(b)}).")
    if _close(_spread(a), _spread(b), floor):
        return (f"{moves}, and the validation rows trail the training rows by about as much "
                f"with both ({what}, train and validation: {_centres(a)} with {_eta(a)}, "
                f"{_centres(b)} with {_eta(b)}).")
    ahead, behind = (a, b) if _spread(a) > _spread(b) else (b, a)
    told = (f"{moves}; {_eta(ahead)} has fitted its training rows further ahead of its "
            f"validation rows ({what} {_num(ahead.centre_train)} against "
            f"{_num(ahead.centre_valid)}) than {_eta(behind)} ({_centres(behind)})")
    if ahead is big:
        return (f"{told}: big steps fit the training rows, noise included, faster than they "
                "help new rows.")
    return (f"{told}: on this data it is the smaller η whose training rows run ahead, not "
            "the larger.")


# --------------------------------------------------------------------------- the figures
def _subplot_title(side: Side, round_idx: int) -> str:
    """'η = 0.3: misclassified 1.2% train, 6.7% valid' (one line: the panel may be narrow)."""
    s = side.summary
    r = min(round_idx, s.rounds)
    head, show = (("median |residual|", _num) if s.task == "regression"
                  else ("misclassified", _pct))
    parts = [f"{show(s.typical['train'][r])} train"]
    if "valid" in s.typical:
        parts.append(f"{show(s.typical['valid'][r])} valid")
    stopped = f" (stopped at round {r})" if r < round_idx else ""
    return f"<b>η = {side.eta:g}</b>{stopped}: {head} {', '.join(parts)}"


def _zero_marks(task_name: str, xref: str, yref: str) -> tuple[dict, list[dict]]:
    """The zero line of one subplot and its labels."""
    line = {"type": "line", "x0": 0, "x1": 0, "xref": xref, "y0": 0, "y1": 1,
            "yref": f"{yref} domain", "line": {"color": "#111111", "width": 2, "dash": "dash"}}
    if task_name == "regression":
        words = (("← over-predicted", "right"), ("under-predicted →", "left"))
    else:
        words = (("← wrong side", "right"), ("right side →", "left"))
    notes = [{"x": 0, "xref": xref, "y": 1, "yref": f"{yref} domain", "text": text,
              "showarrow": False, "xanchor": anchor, "yanchor": "top",
              "xshift": -4 if anchor == "right" else 4, "bgcolor": "rgba(255,255,255,0.8)"}
             for text, anchor in words]
    return line, notes


def make_margins_figure(sides: list[Side], edges: np.ndarray, round_idx: int,
                        large: bool = False) -> go.Figure:
    """One row per learning rate, on the same x axis: the % of training rows (bars) and
    validation rows (outline) in each score bar after ``round_idx`` rounds, 0 marked."""
    centers, width = (edges[:-1] + edges[1:]) / 2, float(edges[1] - edges[0])
    outline_x = np.repeat(edges, 2)[1:-1]
    kind = sides[0].summary.task
    traces, shapes, notes, axes = [], [], [], {}
    rows = [(0.55, 1.0), (0.0, 0.45)]  # the gap holds the lower row's title
    # one y scale for both rows (Plotly's autorange fails with matched axes), with headroom
    # for the zero line's labels
    top = 1.18 * max(float(h[min(round_idx, side.summary.rounds)].max())
                     for side in sides for h in side.hist.values())
    for i, side in enumerate(sides):
        x, y = ("x", "y") if i == 0 else (f"x{i + 1}", f"y{i + 1}")
        r = min(round_idx, side.summary.rounds)
        traces.append(go.Bar(
            x=centers, y=side.hist["train"][r], width=width, xaxis=x, yaxis=y,
            name="training rows", legendgroup="train", showlegend=i == 0, opacity=0.6,
            marker={"color": TRAIN, "line": {"width": 0}},
            hovertemplate="%{x:.3g}: %{y:.1f}% of training rows<extra></extra>"))
        if "valid" in side.hist:
            traces.append(go.Scatter(
                x=outline_x, y=np.repeat(side.hist["valid"][r], 2), xaxis=x, yaxis=y,
                mode="lines", name="validation rows", legendgroup="valid", showlegend=i == 0,
                line={"color": VALID, "width": 3},
                hovertemplate="%{x:.3g}: %{y:.1f}% of validation rows<extra></extra>"))
        line, labels = _zero_marks(kind, x, y)
        shapes.append(line)
        notes += labels
        notes.append({"x": 0, "xref": "paper", "y": rows[i][1], "yref": "paper",
                      "xanchor": "left", "yanchor": "bottom", "yshift": 4, "showarrow": False,
                      "text": _subplot_title(side, round_idx),
                      "font": {"size": 18 if large else 15}})
        last = i == len(sides) - 1
        axes[f"xaxis{i + 1 if i else ''}"] = {
            "anchor": y, "range": [float(edges[0]), float(edges[-1])], "showticklabels": last,
            "title": {"text": SCORE[kind] if last else ""}, "gridcolor": "#E5E5E5",
            "zeroline": False, "automargin": True}
        axes[f"yaxis{i + 1 if i else ''}"] = {
            "anchor": x, "domain": list(rows[i]), "title": {"text": "% of rows"},
            "gridcolor": "#E5E5E5", "automargin": True, "range": [0, top]}
    title = ("Residuals" if kind == "regression" else "Margins") + f" after round {round_idx}"
    spec = layout(title, large, height=520, barmode="overlay", bargap=0, shapes=shapes,
                  annotations=notes, margin={"t": 92 if large else 78, "b": 100 if large else 90},
                  legend={"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom",
                          "xanchor": "left", "x": 0})
    spec.update(axes)
    return go.Figure(data=traces, layout=spec)


def _rounds_layout(title: str, ytitle: str, round_idx: int, large: bool, **extra) -> dict:
    return layout(title, large, height=360, xtitle="round", ytitle=ytitle,
                  shapes=[round_marker(round_idx), *extra.pop("shapes", [])],
                  margin={"b": 105 if large else 95},
                  legend={"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom",
                          "xanchor": "left", "x": 0}, **extra)


def make_steps_figure(sides: list[Side], round_idx: int, large: bool = False) -> go.Figure:
    """Each round's mean |η·f_r(x)| over the training rows, both learning rates; a log axis
    when the steps span more than 30×."""
    traces, values = [], []
    for i, side in enumerate(sides):
        step = side.summary.step[1:]
        rounds = np.arange(1, len(step) + 1)
        values.append(step[step > 0])
        traces.append(go.Scatter(
            x=rounds, y=step, mode="lines", name=f"η = {side.eta:g}",
            line={"color": ETA_COLORS[i], "width": 3},
            hovertemplate=f"η = {side.eta:g}, round %{{x}}: mean |step| %{{y:.3g}}<extra></extra>"))
        r = min(round_idx, len(step))
        if r >= 1:
            traces.append(go.Scatter(x=[r], y=[step[r - 1]], mode="markers", showlegend=False,
                                     marker={"color": ETA_COLORS[i], "size": 12,
                                             "line": {"width": 2, "color": "white"}},
                                     hoverinfo="skip"))
    positive = np.concatenate(values) if values else np.array([])
    log = positive.size > 0 and positive.max() > 30 * positive.min()
    axis = ({"type": "log", "tickvals": _log_ticks(positive.min(), positive.max()),
             "tickformat": "~g"} if log else {"rangemode": "tozero"})
    return go.Figure(data=traces, layout=_rounds_layout(
        "Size of each round's step", "mean |η·f(x)|, training rows", round_idx, large,
        yaxis=axis))


def _log_ticks(lo: float, hi: float) -> list[float]:
    """1, 2, 5 × 10^k between lo and hi (only the powers of ten when that makes too many):
    every label at full size, unlike Plotly's small minor digits."""
    powers = range(int(np.floor(np.log10(lo))), int(np.ceil(np.log10(hi))) + 1)
    ticks = [(m, m * 10.0**k) for k in powers for m in (1, 2, 5)
             if lo / 1.5 <= m * 10.0**k <= hi * 1.5]
    return [t for m, t in ticks if len(ticks) <= 8 or m == 1]


def make_gap_figure(sides: list[Side], round_idx: int, large: bool = False) -> go.Figure:
    """validation − train loss by round for both learning rates, the current round marked."""
    traces = []
    metric = sides[0].summary.metric
    for i, side in enumerate(sides):
        loss = side.summary.loss
        gap = (loss["valid"] - loss["train"]).to_numpy()
        traces.append(go.Scatter(
            x=loss.index.to_numpy(), y=gap, mode="lines", name=f"η = {side.eta:g}",
            line={"color": ETA_COLORS[i], "width": 3},
            hovertemplate=f"η = {side.eta:g}, round %{{x}}: gap %{{y:.4g}}<extra></extra>"))
        r = min(round_idx, len(gap) - 1)
        traces.append(go.Scatter(x=[r], y=[gap[r]], mode="markers", showlegend=False,
                                 marker={"color": ETA_COLORS[i], "size": 12,
                                         "line": {"width": 2, "color": "white"}},
                                 hoverinfo="skip"))
    zero = {"type": "line", "x0": 0, "x1": 1, "xref": "paper", "y0": 0, "y1": 0, "yref": "y",
            "line": {"color": "#111111", "width": 1}}
    return go.Figure(data=traces, layout=_rounds_layout(
        f"Train–validation gap ({metric})", f"validation − train {metric}", round_idx, large,
        shapes=[zero]))
