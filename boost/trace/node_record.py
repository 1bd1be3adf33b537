"""The node record: everything a screen shows of one node, as one JSON-able dict
(docs/player.md, "The node record"), built from the trace's answers about the node
(``NodeDetail``) — its numbers, why a leaf is a leaf, its chosen split, the best split of
each feature, its best candidates, each feature's gain curve (thinned to a screen) and its
worked arithmetic (``arithmetic.worked_arithmetic``: formulas, numbers, LaTeX). The app's
node part, the page and the offline files all read it; the tables it holds are made here
and nowhere else (``best_per_feature``, ``top_candidates``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .arithmetic import steps_csv, steps_latex, worked_arithmetic
from .plain import plain

VERSION = 1


def feature_order(features: pd.Series) -> list[str]:
    """The distinct features of a candidates' ``Feature`` column, in order of first
    appearance (the search's feature order), without a Python loop over millions of rows."""
    return features.drop_duplicates().tolist()


def split_labels(cand: pd.DataFrame, ranges: dict | None = None) -> list[str]:
    """``feature < threshold`` for each candidate; for hist/approx (a ``Bin`` column and
    ``ranges`` = ``NodeDetail.bin_ranges``) with the training values of the bin just
    left of the cut: ``x < 22.5 (bin [20, 22])``. Bin -1 sends every present value right."""
    labels = []
    bins = cand.Bin.to_numpy() if ranges is not None and "Bin" in cand.columns else None
    for i, (feature, threshold) in enumerate(zip(cand.Feature, cand.Threshold, strict=True)):
        text = f"{feature} < {threshold:.6g}"
        if bins is not None and feature in ranges:
            b = int(bins[i])
            lo, hi = ranges[feature]
            if b < 0 or b >= len(lo):
                text += " (no bin left)"
            elif np.isnan(lo[b]):
                text += " (bin empty)"
            else:
                text += (f" (bin [{lo[b]:.6g}])" if lo[b] == hi[b]
                         else f" (bin [{lo[b]:.6g}, {hi[b]:.6g}])")
        labels.append(text)
    return labels


# The candidate table's columns: the split and its gain first (on screen at 1280 px), then
# where missing values go and both children's sums.
TABLE_COLUMNS = {"Gain": "Gain", "Missing": "Missing", "SumGradLeft": "G left",
                 "SumHessLeft": "H left", "SumGradRight": "G right", "SumHessRight": "H right",
                 "SimilarityLeft": "S left", "SimilarityRight": "S right", "Note": "Note"}
NOTES = {"chosen": "★", "refused": "★ refused", "blocked": "blocked"}  # short: on screen
NOTES_HELP = ("★ the node's split (refused: γ refused it before growing, hist/approx); "
              "blocked: a child's H < min_child_weight, so it cannot be chosen")
# what a hist/approx threshold means in the candidates' Split column
BINS_HELP = ("hist/approx: a threshold is a cut between bins; [a, b] is the range of the "
             "training values in the bin just left of it")


def _notes(cand: pd.DataFrame, refused: bool) -> np.ndarray:
    """``NOTES``: the node's split, a candidate min_child_weight blocks, else ""."""
    mark = NOTES["refused" if refused else "chosen"]
    return np.where(cand.Best, mark, np.where(cand.Valid, "", NOTES["blocked"]))


def top_candidates(cand: pd.DataFrame, n: int = 15, ranges: dict | None = None,
                   refused: bool = False) -> pd.DataFrame:
    """The ``n`` best valid candidates (all features), then blocked ones if there is room,
    with the columns a student needs: Split (``split_labels``), Gain, then the rest
    (``TABLE_COLUMNS``; Note: the chosen split, or why a candidate was blocked); with column
    sampling, only the features the node drew (what the search could choose from)."""
    if "Sampled" in cand.columns and not cand.Sampled.all():
        cand = cand[cand.Sampled]
    valid, gain = cand.Valid.to_numpy(), cand.Gain.to_numpy()
    best = np.flatnonzero(valid)
    if len(best) > n:
        best = best[np.argpartition(-gain[best], n - 1)[:n]]
    best = best[np.argsort(-gain[best], kind="stable")]
    top = cand.iloc[np.r_[best, np.flatnonzero(~valid)[:n - len(best)]]]
    columns = {"Split": split_labels(top, ranges)}
    for name, label in TABLE_COLUMNS.items():
        columns[label] = (np.where(top.DefaultLeft, "left", "right") if name == "Missing"
                          else _notes(top, refused) if name == "Note"
                          else top[name].to_numpy())
    return pd.DataFrame(columns)


def best_per_feature(cand: pd.DataFrame, ranges: dict | None = None,
                     refused: bool = False, counts: pd.Series | None = None) -> pd.DataFrame:
    """One row per feature: its best valid split (the first of its largest gains in scan
    order, the search's tie rule), the gain, how many candidates it had, and ``Chosen``
    (★ on the node's split; ``refused``: γ refused it before growing, hist/approx). With
    column sampling a column ``Drawn`` says which features the node could split on.
    Sorted by gain, features without a valid split last. ``cand``: the whole table, or a
    ``CandidateSummary``'s with its ``counts`` (candidates per feature)."""
    codes, names = pd.factorize(cand.Feature, sort=False)  # features in scan order
    features = [str(f) for f in names]
    gain = cand.Gain.to_numpy(dtype=float)
    usable = np.flatnonzero(cand.Valid.to_numpy() & ~np.isinf(gain))
    # per feature, the first row of its largest gain: sorted by feature, gain down, row
    usable = usable[np.lexsort((usable, -gain[usable], codes[usable]))]
    firsts = usable[np.r_[True, codes[usable][1:] != codes[usable][:-1]]] if len(usable) else usable
    labels = np.full(len(features), "no valid split", dtype=object)
    labels[codes[firsts]] = split_labels(cand.iloc[firsts], ranges)
    gains = np.full(len(features), np.nan)
    gains[codes[firsts]] = gain[firsts]
    chosen = np.zeros(len(features), dtype=bool)
    chosen[codes[cand.Best.to_numpy()]] = True
    summary = pd.DataFrame({
        "Feature": features, "Best split": labels, "Gain": gains,
        "Candidates": (np.bincount(codes, minlength=len(features)) if counts is None
                       else counts.reindex(features).to_numpy()),
        "Chosen": np.where(chosen, NOTES["refused" if refused else "chosen"], "")})
    if "Sampled" in cand.columns and not cand.Sampled.all():
        drawn = np.zeros(len(features), dtype=bool)
        drawn[codes[cand.Sampled.to_numpy()]] = True
        summary["Drawn"] = drawn
    # by gain, largest first, features without a valid split last, ties in scan order
    order = np.argsort(np.where(np.isnan(gains), np.inf, -gains), kind="stable")
    return summary.iloc[order].reset_index(drop=True)


# --------------------------------------------------------------------------- the record
# Why a node of the tree as grown is what it is, by its Reason (trees_to_dataframe), said to
# a student; {depth}, {gamma}, {mcw}, {leaves} are the node's and the model's numbers.
WHY = {
    "max_depth": "a leaf: it sits at max_depth = {depth}, so it was never searched",
    "no positive gain": "a leaf: no candidate split had a gain above 1e-6",
    "min_child_weight": "a leaf: splits with gain existed, but each left a child with "
                        "H < min_child_weight = {mcw}",
    "max_leaves": "a leaf: the tree already had max_leaves = {leaves} leaves",
}
PRUNED = ("pruned: its gain, or a gain above it, is below γ = {gamma}, and no split below it "
          "was kept")
REFUSED = ("a leaf: its best split's gain is below γ = {gamma}, so it was refused before "
           "growing it (hist and approx decide before growing)")


PRUNED_TO_LEAF = ("a leaf: its split was grown, then pruned: its gain is below γ = {gamma} and "
                  "no split below it was kept")


def refused(frame):
    """Where γ refused a split before growing it (hist/approx): a leaf that keeps the split it
    declined (a feature, no children). Works on the tree table and on one of its rows."""
    return (frame.Feature != "Leaf") & pd.isna(frame.Yes) & np.logical_not(frame.Pruned)


def why(numbers: pd.Series, params) -> str:
    """Why the node is a leaf, or was pruned or refused; "" for a split the model keeps."""
    facts = {"depth": int(numbers.Depth), "gamma": f"{float(params.gamma):g}",
             "mcw": f"{float(params.min_child_weight):g}", "leaves": int(params.max_leaves)}
    if bool(numbers.Pruned):
        return PRUNED.format(**facts)
    if bool(refused(numbers)):
        return REFUSED.format(**facts)
    if numbers.Feature != "Leaf":  # a split kept, or a split pruned away below this leaf
        return PRUNED_TO_LEAF.format(**facts) if bool(numbers.Leaf) else ""
    return WHY.get(str(numbers.Reason), "a leaf").format(**facts)


def _table(frame: pd.DataFrame) -> dict:
    """A table as {"columns": names, "rows": lists}, JSON values (made column by column:
    a column's numbers at once, not a row's values one at a time)."""
    columns = [plain(frame[c].to_numpy()) for c in frame.columns]
    return {"columns": [str(c) for c in frame.columns],
            "rows": [list(row) for row in zip(*columns, strict=True)] if columns else []}


# A gain curve's columns in the record (``NodeDetail.curves``), under the names the page
# reads: what the chart draws and its hover says.
CURVE_COLUMNS = {"Threshold": "threshold", "Gain": "gain", "DefaultLeft": "default_left",
                 "Valid": "valid", "Best": "best", "SumGradLeft": "g_left",
                 "SumHessLeft": "h_left", "SumGradRight": "g_right", "SumHessRight": "h_right",
                 "CountLeft": "n_left", "CountRight": "n_right"}


def _curve(curve: pd.DataFrame) -> dict:
    """A gain curve's columns (``CURVE_COLUMNS``) and ``s_node``, the similarity of the node
    its gains are measured from (gain = S_L + S_R - s_node)."""
    return {**{name: plain(curve[column].to_numpy()) for column, name in CURVE_COLUMNS.items()},
            "s_node": plain(float(curve.SimilarityParent.iloc[0]) if len(curve) else None)}


def build(detail, params, base_margin: float, curve_features=None) -> dict:
    """The node record of ``detail`` (``NodeDetail``) of a model with ``params``
    (``Booster.search_params``) and base margin ``base_margin`` (the node's class's).
    ``curve_features``: the features whose gain curves it holds (default: the chosen
    split's feature, else the first with candidates — what the node's chart opens on)."""
    numbers = detail.numbers
    summary = detail.summary
    table = summary.table
    declined = bool(refused(numbers))
    features = detail.features
    drawn = feature_order(table.Feature[table.Sampled]) if len(table) else []
    total = int(summary.counts.sum())
    if curve_features is None:
        curve_features = ([detail.best.Feature] if detail.best is not None
                          else features[:1]) if total else []
    best = detail.best
    steps = ([] if detail.on_sample else
             worked_arithmetic(numbers, best, params, base_margin, rows=detail.rows))
    return {
        "version": VERSION,
        "round": detail.round_idx, "node": detail.node_id, "class": detail.class_idx,
        "on_sample": detail.on_sample,
        "numbers": plain({
            "feature": None if numbers.Feature == "Leaf" else numbers.Feature,
            "split": numbers.Split, "default": None if pd.isna(numbers.Missing) else
            ("yes" if numbers.Missing == numbers.Yes else "no"),
            "depth": numbers.Depth, "parent": numbers.Parent, "gain": numbers.Gain,
            "cover": numbers.Cover, "sum_grad": numbers.SumGrad, "sum_hess": numbers.SumHess,
            "similarity": numbers.Similarity, "weight": numbers.Weight,
            "value": numbers.Value, "leaf": numbers.Leaf, "pruned": numbers.Pruned,
            "refused": declined, "reason": numbers.Reason}),
        "why": why(numbers, params),
        "best": None if best is None else plain({
            "feature": best.Feature, "threshold": best.Threshold,
            "default_left": best.DefaultLeft, "n_left": best.CountLeft,
            "n_right": best.CountRight, "g_left": best.SumGradLeft,
            "h_left": best.SumHessLeft, "g_right": best.SumGradRight,
            "h_right": best.SumHessRight, "s_left": best.SimilarityLeft,
            "s_right": best.SimilarityRight, "s_node": best.SimilarityParent,
            "gain": best.Gain}),
        "features": list(features), "drawn": list(drawn), "candidates": total,
        "per_feature": _table(best_per_feature(table, detail.bin_ranges, declined,
                                               counts=summary.counts)) if total else None,
        "top": _table(top_candidates(table, ranges=detail.bin_ranges,
                                     refused=declined)) if total else None,
        "curves": {f: _curve(detail.curves[f]) for f in curve_features},
        "rows": None if detail.rows is None else _table(detail.rows.head(ROWS)),
        "n_rows": None if detail.rows is None else len(detail.rows),
        "arithmetic": [plain({"name": s.name, "value": s.value, "formula": s.formula,
                               "numbers": s.numbers, "latex": s.latex, "verdict": s.verdict})
                       for s in steps],
        "notes": f"Note: {NOTES_HELP}." + (f" {BINS_HELP}." if detail.bin_ranges is not None
                                           else ""),
        "downloads": None if not steps else {
            "tex": steps_latex(steps, f"BoostScope round {detail.round_idx}, node "
                                      f"{detail.node_id}"),
            "csv": steps_csv(steps)},
    }


ROWS = 50  # the node's rows a record lists (its arithmetic lists at most 8)
