"""One question per node: ``node_detail(round, node, class)`` — the node's numbers, its rows,
its candidate splits summarised, its gain curves at a screen's resolution and its bins'
value ranges, as one record.

The candidates are recomputed on demand from the node's rows and the round's gradients
(``candidates``: exact enumerates sorted columns; hist/approx replay the node's histogram
bit for bit). Every answer is kept in the model's byte-bounded cache, so a node clicked
twice, or asked by two views, is computed once.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np
import pandas as pd
from numba import njit

from .. import objectives
from . import candidates, node_record
from .candidates import CandidateSummary

CURVE_POINTS = 600  # per series of a gain curve (big nodes have one candidate per value):
# 300 runs' smallest and largest gains, about 2 px a run in a half-width chart at 1280 px
TOP = 15  # candidates a feature keeps in a summary (its best gains, its first blocked)


# --------------------------------------------------------------------------- reductions
def thin(frame: pd.DataFrame, points: int = CURVE_POINTS) -> pd.DataFrame:
    """At most about ``points`` rows of a series sorted by threshold: cut into
    ``points // 2`` runs of neighbours, each keeping its smallest and largest gain (the
    curve's shape at the screen's resolution), plus the chosen split and the candidates
    where min_child_weight's blocking starts or ends (the table lists every candidate)."""
    return frame.iloc[_thinned(frame.Gain.to_numpy(dtype=float), frame.Best.to_numpy(),
                               frame.Valid.to_numpy(), points)]


def _thinned(gains: np.ndarray, best: np.ndarray, valid: np.ndarray, points: int
             ) -> np.ndarray:
    """``thin``'s rows (positions, in order) of one series of gains."""
    if len(gains) <= points:
        return np.arange(len(gains))
    high, low = np.nan_to_num(gains, nan=-np.inf), np.nan_to_num(gains, nan=np.inf)
    keep = best.copy()
    changes = np.flatnonzero(valid[1:] != valid[:-1])
    keep[changes] = keep[changes + 1] = True
    edges = np.linspace(0, len(gains), points // 2 + 1).astype(np.int64)
    _extremes(high, low, edges, keep)
    return np.flatnonzero(keep)


@njit(cache=True, nogil=True)
def _extremes(high, low, edges, keep):
    """Marks in ``keep`` the first largest ``high`` and the first smallest ``low`` of each run
    ``edges[i]..edges[i + 1]`` (none empty): 300 runs by NumPy calls cost ~3 ms a curve."""
    for i in range(edges.shape[0] - 1):
        a, b = edges[i], edges[i + 1]
        top = bottom = a
        for j in range(a + 1, b):
            if high[j] > high[top]:
                top = j
            if low[j] < low[bottom]:
                bottom = j
        keep[top] = True
        keep[bottom] = True


def gain_curve(cand: pd.DataFrame, feature: str) -> pd.DataFrame:
    """The candidates a gain chart draws for ``feature`` (``curve_rows``). Small: what a
    cache keeps of a node's millions of candidates."""
    return cand.iloc[curve_rows(
        cand.Threshold.to_numpy(), cand.CountLeft.to_numpy(), cand.CountRight.to_numpy(),
        cand.Gain.to_numpy(dtype=float), cand.Best.to_numpy(), cand.Valid.to_numpy(),
        cand.DefaultLeft.to_numpy(), (cand.Feature == feature).to_numpy())]


def curve_rows(threshold, count_left, count_right, gain, best, valid, default_left,
               where=None) -> np.ndarray:
    """The positions of the candidates a gain chart draws (of those ``where`` marks): those
    that split the node's rows, by threshold, each default direction thinned to the screen's
    resolution (``thin``). Chosen on the columns, so that the rows are taken once (a frame
    filtered three times cost milliseconds a click) or a table made of them alone."""
    splits = (count_left > 0) & (count_right > 0)
    rows = np.flatnonzero(splits if where is None else splits & where)
    rows = rows[np.argsort(threshold[rows], kind="stable")]
    gain = np.asarray(gain, dtype=float)
    sides = [rows[default_left[rows] == side] for side in (True, False)]
    kept = np.concatenate([side[_thinned(gain[side], best[side], valid[side], CURVE_POINTS)]
                           for side in sides])
    return kept[np.argsort(threshold[kept], kind="stable")]


def sorted_present(values: np.ndarray) -> np.ndarray:
    """A feature's values without the missing ones, sorted: sorted once per model, then
    every node's bins are read from it by ``bin_value_ranges``."""
    values = np.asarray(values)
    return np.sort(values[~np.isnan(values)])


def bin_value_ranges(sorted_values: np.ndarray, cuts: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(smallest, largest) value of each bin of a feature, NaN for an empty bin. Bin i holds
    the values in [cuts[i-1], cuts[i]) (bin 0: below cuts[0]), as ``Booster.cuts`` says;
    ``sorted_values`` is ``sorted_present`` of the feature (in the engine's float32, so a
    value on a cut falls in the bin the engine put it in)."""
    cuts = np.asarray(cuts, dtype=sorted_values.dtype)
    ends = np.searchsorted(sorted_values, cuts, side="left")  # values below each cut
    starts = np.r_[0, ends[:-1]]
    lo = np.full(len(cuts), np.nan)
    hi = np.full(len(cuts), np.nan)
    full = ends > starts
    lo[full] = sorted_values[starts[full]]
    hi[full] = sorted_values[ends[full] - 1]
    return lo, hi


# --------------------------------------------------------------------------- the record
class GainCurves(Mapping):
    """{feature: its gain curve at the node} (``gain_curve``), each computed when first read
    (exact enumerates only that feature's candidates) and kept in the model's cache."""

    def __init__(self, trace, round_idx: int, node_id: int, class_idx: int,
                 features: tuple[str, ...]) -> None:
        self._ask = (trace, round_idx, node_id, class_idx)
        self._features = features

    def __getitem__(self, feature: str) -> pd.DataFrame:
        if feature not in self._features:
            raise KeyError(feature)
        trace, r, node, k = self._ask
        return trace.gain_curve(r, node, k, feature)

    def __iter__(self) -> Iterator[str]:
        return iter(self._features)

    def __len__(self) -> int:
        return len(self._features)


@dataclass(frozen=True)
class NodeDetail:
    """Everything a screen shows of one node of one round's tree (``Trace.node_detail``).

    ``numbers``: the node's row of ``trees_to_dataframe(include_pruned=True)`` (G, H, cover,
    gain, similarity, w, η·w, split, default direction, pruned or refused and why).
    ``rows``: the rows the tree was grown on that reach the node, as they stood at the start
    of the round (``node_rows``); None on a data sample (its draws are not known).
    ``summary``: each feature's best, top and first blocked candidates, and each feature's
    number of candidates; ``best`` the chosen (or γ-refused) candidate, None for a leaf
    that had none. ``curves``: each feature's gain curve, thinned to a screen.
    ``bin_ranges``: hist/approx, {feature: (lo, hi) value of each bin of the round's cuts}
    (None for exact, or when the values are not at hand). ``on_sample``: the candidates
    were recomputed on a data sample attached to a model file."""

    round_idx: int
    node_id: int
    class_idx: int
    numbers: pd.Series
    rows: pd.DataFrame | None
    summary: CandidateSummary
    best: pd.Series | None
    curves: GainCurves = field(repr=False)
    bin_ranges: dict | None
    on_sample: bool

    @property
    def features(self) -> list[str]:
        """The features with candidates at this node, in the search's order."""
        return list(self.curves)


class NodeQuestions:
    """Mixed into ``Trace``: ``self.booster`` is the model, ``self.cache`` its answers."""

    def trees(self) -> pd.DataFrame:
        """The trees as grown (``trees_to_dataframe(include_pruned=True)``), once a model."""
        return self.cache.keep(("trees",),
                              lambda: self.booster.trees_to_dataframe(include_pruned=True))

    def node_numbers(self, tree_idx: int, node_id: int) -> pd.Series | None:
        """Node ``node_id`` of tree ``tree_idx``: its row of ``trees()``, or None if the tree
        has no such node. By position (a map kept once a model): a filter of the whole
        table on Tree and Node costs ~0.7 ms, three times a click."""
        trees = self.trees()
        at = self.cache.keep(("tree rows",), lambda: {
            (int(t), int(n)): i for i, (t, n) in enumerate(zip(trees.Tree, trees.Node,
                                                              strict=True))})
        i = at.get((int(tree_idx), int(node_id)))
        # (kept: a click asks for its node's row three times, and a row of this table of
        # many types is slow to make — its text columns are Arrow's)
        return None if i is None else self.cache.get(("tree row", i), lambda: trees.iloc[i])

    def node_detail(self, round_idx: int, node_id: int, class_idx: int = 0, X=None
                    ) -> NodeDetail:
        """The node's record (``NodeDetail``). ``X``: the training features, which a hist
        model keeps only as bin codes — without them its ``bin_ranges`` is None."""
        b = self.booster
        t = b.tree_index(round_idx, class_idx)
        node_id = self._check_node(t, node_id)
        numbers = self.node_numbers(t, node_id)
        summary = self.candidate_summary(round_idx, node_id, class_idx, TOP)
        table = summary.table
        best = table[table.Best]
        features = tuple(summary.counts.index[summary.counts > 0]) or tuple(b.feature_names)
        return NodeDetail(
            round_idx=round_idx, node_id=node_id, class_idx=class_idx, numbers=numbers,
            rows=None if b.on_sample else self.node_rows(round_idx, node_id, class_idx),
            summary=summary, best=best.iloc[0] if len(best) else None,
            curves=GainCurves(self, round_idx, node_id, class_idx, features),
            bin_ranges=self.bin_ranges(round_idx, class_idx, X), on_sample=b.on_sample)

    def node_record(self, round_idx: int, node_id: int, class_idx: int = 0, X=None,
                    curve_features=None) -> dict:
        """The node's record (``node_record.build``): one JSON-able dict of everything a
        screen shows of it, kept in the model's cache like the answers it is made of."""
        b = self.booster
        t = b.tree_index(round_idx, class_idx)
        key = None if curve_features is None else tuple(curve_features)

        def compute():
            detail = self.node_detail(round_idx, node_id, class_idx, X=X)
            return node_record.build(detail, b.search_params,
                                     float(b.base_margin[class_idx]), curve_features)
        return self.cache.get(("record", t, self._check_node(t, node_id), key,
                               X is not None), compute)

    def _check_node(self, tree_idx: int, node_id) -> int:
        sl = self.booster.forest.node_slice(tree_idx)
        n_nodes = sl.stop - sl.start
        if isinstance(node_id, bool) or not 0 <= int(node_id) < n_nodes:
            raise ValueError(f"node_id = {node_id!r} is not a node of tree {tree_idx}: it has "
                             f"nodes 0..{n_nodes - 1}.")
        return int(node_id)

    # ----------------------------------------------------------------- the node's rows
    def node_rows(self, round_idx: int, node_id: int, class_idx: int = 0) -> pd.DataFrame:
        """The training rows in node ``node_id`` of round ``round_idx``'s tree (of the rows
        the tree was grown on: ``subsample`` leaves some out), as they stood at the start of
        the round: Row (index in the training set), y (for multi-class the indicator
        [y = class]), m (the margin), p (the prediction), and the g, h the tree fitted
        (``tree_gradients``: h = 1 for first-order boosting); w when weighted."""
        b = self.booster
        t = b.tree_index(round_idx, class_idx)

        def compute():
            inside = self.in_node(t, node_id) & self.rows_used(round_idx, class_idx)
            rows = np.nonzero(inside)[0]
            g, h, _ = self.tree_gradients(round_idx, class_idx)
            margin = self.rows_margin(round_idx - 1)  # the margins the gradients were taken at
            y = b.data.y[rows].astype(np.float64)
            p = objectives.response(b.objective, margin[rows])
            if p.ndim == 2:
                p = p[:, class_idx]
                y = (y == class_idx).astype(np.float64)
            frame = pd.DataFrame({"Row": rows, "y": y, "m": margin[rows, class_idx],
                                  "p": p, "g": g[rows], "h": h[rows]})
            if b.data.weight is not None:
                frame["w"] = b.data.weight[rows]
            return frame
        return self.cache.get(("node_rows", t, node_id), compute)

    def bin_ranges(self, round_idx: int, class_idx: int = 0, X=None) -> dict | None:
        """{feature: (lo, hi) value of each bin} under the cuts of round ``round_idx``'s
        tree; None for exact (no bins) or a hist model whose values were not given."""
        b = self.booster
        if b.search_params.tree_method == "exact":
            return None
        if b.data is None or (b.data.X is None and X is None):
            return None

        def values():  # once a model: each feature's values, sorted
            return {name: sorted_present(self.feature_values(i, X))
                    for i, name in enumerate(b.feature_names)}
        ordered = self.cache.keep(("sorted_values",), values)
        t = b.tree_index(round_idx, class_idx)
        return self.cache.get(
            ("bin_ranges", self._cuts_key(t)),
            lambda: {f: bin_value_ranges(ordered[f], cuts)
                     for f, cuts in self.cuts(round_idx, class_idx).items()})

    # ----------------------------------------------------------------- candidates
    def candidates(self, round_idx: int, node_id: int, class_idx: int = 0,
                   features: np.ndarray | None = None) -> pd.DataFrame:
        """Every candidate of the node (``features``: only these indices), labelled with the
        rows they were computed on. A new frame each time (callers may change it)."""
        key = None if features is None else tuple(int(f) for f in features)
        t = self.booster.tree_index(round_idx, class_idx)
        table = self.cache.get(("candidates", t, int(node_id), key),
                               lambda: self._labelled(self._candidates(
                                   round_idx, node_id, class_idx, features=features)))
        copy = table.copy()
        copy.attrs = dict(table.attrs)
        return copy

    def candidate_summary(self, round_idx: int, node_id: int, class_idx: int = 0,
                          top: int = TOP) -> CandidateSummary:
        t = self.booster.tree_index(round_idx, class_idx)

        def compute():
            summary = self._candidates(round_idx, node_id, class_idx, top=top)
            return summary._replace(table=self._labelled(summary.table))
        return self.cache.get(("summary", t, int(node_id), top), compute)

    def gain_curve(self, round_idx: int, node_id: int, class_idx: int, feature: str
                   ) -> pd.DataFrame:
        """``gain_curve`` of one feature at the node: only that feature's candidates are
        enumerated, and only what a chart draws is kept."""
        b = self.booster
        t = b.tree_index(round_idx, class_idx)
        index = np.array([b.feature_names.index(feature)], dtype=np.int64)

        def compute():
            if b.search_params.tree_method == "exact":  # a table of the curve's rows alone
                return self._candidates(round_idx, node_id, class_idx, features=index,
                                        keep=curve_rows)
            return gain_curve(self._candidates(round_idx, node_id, class_idx,
                                               features=index), feature)
        return self.cache.get(("curve", t, int(node_id), feature), compute)

    def _labelled(self, table: pd.DataFrame) -> pd.DataFrame:
        """Candidates say which rows they were computed on (a sample's: a column too)."""
        on_sample = self.booster.on_sample
        if on_sample:
            table["RecomputedOnSample"] = True
        table.attrs["recomputed_on"] = "sample" if on_sample else "training"
        return table

    def _candidates(self, round_idx: int, node_id: int, class_idx: int, features=None,
                    top=None, keep=None):
        """The node's candidates: a table (``features``: only these indices; exact: ``keep``,
        only the rows it chooses, ``candidates._frame``) or, with ``top``, a
        ``CandidateSummary``."""
        b = self.booster
        self.require("split_candidates", rows_only=True, target=True)
        t = b.tree_index(round_idx, class_idx)
        node_id = self._check_node(t, node_id)
        if b.search_params.tree_method != "exact":
            if features is not None and top is None:  # (a chart's: its feature's bins alone)
                return self._bin_table(round_idx, node_id, class_idx, features)
            table = self._bin_candidates(round_idx, node_id, class_idx)
            if top is not None:
                return candidates.summary_of(table, b.feature_names, top)
            return table.reset_index(drop=True)
        g, h, _ = self.tree_gradients(round_idx, class_idx)
        f = b.forest
        sl = f.node_slice(t)
        split_feature = int(f.feature[sl.start + node_id])
        allowed = None if b.on_sample else self.features_used(round_idx, node_id, class_idx)
        in_node = self.in_node(t, node_id) & (h >= 0)
        columns = self.cache.keep(("sorted_rows",), lambda: candidates.sorted_rows(b.data.X))
        split_made = split_feature != -1 and f.left[sl.start + node_id] != -1
        args = (columns, in_node, g, h, b.search_params, b.feature_names)
        if top is not None:
            return candidates.candidate_summary(*args, split_made, allowed, top=top)
        # Best is the whole table's: on these features only if the node split on one
        split_made = split_made and (features is None or split_feature in features)
        return candidates.split_candidates(*args, split_made, allowed, features=features,
                                           keep=keep)

    def _bin_candidates(self, round_idx: int, node_id: int, class_idx: int) -> pd.DataFrame:
        """hist/approx: every bin candidate of a node (``_bin_table``), kept, so its summary
        and its tables scan it once."""
        t = self.booster.tree_index(round_idx, class_idx)
        return self.cache.get(("bin_candidates", t, node_id),
                              lambda: self._bin_table(round_idx, node_id, class_idx))

    def _bin_table(self, round_idx: int, node_id: int, class_idx: int, features=None
                   ) -> pd.DataFrame:
        """hist/approx: the bin candidates of a node — its histogram (``_histogram``) scanned
        as the search scans it — of every feature, or of ``features`` (indices, ascending)
        alone: a chart's feature is one scan of a kept histogram, not thirty. ``Best`` is the
        whole node's: on these features only if the node split on one (as exact's)."""
        b = self.booster
        t = b.tree_index(round_idx, class_idx)
        f = b.forest
        sl = f.node_slice(t)
        split_feature = int(f.feature[sl.start + node_id])
        split_made = split_feature != -1 and (features is None or split_feature in features)
        allowed = None if b.on_sample else self.features_used(round_idx, node_id, class_idx)
        node_hist, counts, pg, ph = self._histogram(round_idx, node_id, class_idx)
        p = b.search_params
        cuts = self.tree_cuts(t, self.tree_gradients(round_idx, class_idx)[1])
        feat, table, psim = candidates.node_candidates(node_hist, cuts, pg, ph, p, features)
        return candidates.hist_split_candidates(
            feat, table, counts, cuts, int(self._rows_of(round_idx, node_id, class_idx).sum()),
            psim, p, b.feature_names, split_made, allowed)

    def _histogram(self, round_idx: int, node_id: int, class_idx: int) -> tuple:
        """hist/approx: the node's histogram, row counts per bin, G and H as the grower had
        them (``candidates.root_histogram``), replayed down its path from the root one level
        at a time (``candidates.children_histograms``) and kept per node: a click on a node
        whose parent was asked about before builds only its own level (at 100k x 30 the
        root's costs ~15 ms), and a level makes both children."""
        b = self.booster
        t = b.tree_index(round_idx, class_idx)
        f = b.forest
        sl = f.node_slice(t)
        g, h, _ = self.tree_gradients(round_idx, class_idx)
        cuts = self.tree_cuts(t, h)
        bins, missing = self.bins(t)
        path = [int(node_id)]  # (a loop, not a recursion: a lossguide tree may be deep)
        while path[-1] != 0:
            path.append(int(f.parent[sl.start + path[-1]]))
        path.reverse()
        state = self.cache.get(("histogram", t, 0), lambda: candidates.root_histogram(
            bins, missing, cuts, g, h, self._rows_of(round_idx, 0, class_idx),
            bool(b.data.root_from_bins)))
        def children(parent: int, left: int, state: tuple) -> tuple[tuple, tuple]:
            # (the rows' masks made only when the level is: a kept level costs a lookup)
            return candidates.children_histograms(
                bins, missing, cuts, g, h, state, self._rows_of(round_idx, parent, class_idx),
                self._rows_of(round_idx, left, class_idx), int(f.feature[sl.start + parent]),
                b.search_params)

        for parent, child in pairwise(path):
            left = int(f.left[sl.start + parent])
            pair = self.cache.get(("children histograms", t, parent),
                                  functools.partial(children, parent, left, state))
            state = pair[0] if child == left else pair[1]
        return state

    def _rows_of(self, round_idx: int, node_id: int, class_idx: int) -> np.ndarray:
        """The rows the grower had in node ``node_id`` (subsample's left-out rows add (0, 0)
        to its histogram: they are not counted)."""
        t = self.booster.tree_index(round_idx, class_idx)
        inside = self.in_node(t, node_id)
        active = self.tree_gradients(round_idx, class_idx)[2]
        return inside if active is None else inside & active
