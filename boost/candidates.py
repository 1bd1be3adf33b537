"""Every candidate split of one node, computed on demand from the node's rows.

exact: the enumeration is the exact grower's (``exact._scan``) for a single node, except that
it records each candidate instead of keeping only the best, including the ones
min_child_weight blocks (``Valid = False``; XGBoost skips them without computing their gain).

hist/approx: the candidates are bins. The node's histogram is replayed bit for bit
(``hist.node_histogram``) and scanned as the grower scans it (``hist.scan_feature``); the
extra column ``Bin`` is the last bin that goes left.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
from numba import njit, prange

from . import node_rules as rules
from . import records as rec
from ._dtypes import RT_EPS
from .exact import sort_columns
from .split_math import similarities, similarity, split_loss_change

COLUMNS = ["Feature", "Threshold", "DefaultLeft", "CountLeft", "CountRight", "SumGradLeft",
           "SumHessLeft", "SumGradRight", "SumHessRight", "SimilarityLeft", "SimilarityRight",
           "SimilarityParent", "Gain", "Valid", "Sampled", "Best"]


@njit(cache=True, nogil=True, inline="always")
def _candidate(c, n, f, thr, forward, n_rows, cnt, sg, sh, pg, ph, psim, reg_lambda, alpha,
               mcw, mds):
    """Write candidate n of feature f: the scanned side (``cnt`` rows, sums ``sg, sh``) is
    the left child of a forward scan and the right child of a backward one."""
    c_feat, c_thr, c_left, c_nl, c_gl, c_hl, c_gr, c_hr, c_loss, c_valid = c
    rg = pg - sg
    rh = ph - sh
    c_feat[n] = f
    c_thr[n] = thr
    c_left[n] = not forward
    c_nl[n] = cnt if forward else n_rows - cnt
    if forward:
        c_gl[n], c_hl[n], c_gr[n], c_hr[n] = sg, sh, rg, rh
    else:
        c_gl[n], c_hl[n], c_gr[n], c_hr[n] = rg, rh, sg, sh
    c_loss[n] = split_loss_change(c_gl[n], c_hl[n], c_gr[n], c_hr[n], psim, reg_lambda, alpha,
                                  mcw, mds)
    c_valid[n] = sh >= mcw and rh >= mcw
    return n + 1


@njit(cache=True, nogil=True, parallel=True)
def _enumerate(in_node, col_ptr, sorted_rows, sorted_values, g, h, need_forward, reg_lambda,
               alpha, mcw, mds):
    """Every candidate of the node whose rows ``in_node`` marks, feature by feature in scan
    order. Each feature's present rows come in ascending order of value, ties by row index,
    from the training rows sorted once (``exact.SortedColumns``): the order the grower
    scanned. The features run in parallel, each into a block of its own (``2 * (n_rows +
    1)`` entries: at most one per row and scan direction, plus the missing-value one), and
    the blocks are then packed in feature order."""
    n_features = col_ptr.shape[0] - 1
    pg = np.float64(0.0)
    ph = np.float64(0.0)
    n_rows = 0
    for r in range(in_node.shape[0]):  # row order, like the grower's sums
        if in_node[r]:
            pg += g[r]
            ph += h[r]
            n_rows += 1
    psim = similarity(pg, ph, reg_lambda, alpha, mcw, mds)
    block = 2 * (n_rows + 1)
    c = _new_candidates(n_features * block)
    counts = np.zeros(n_features, dtype=np.int64)
    for f in prange(n_features):
        counts[f] = _feature_candidates(
            in_node, sorted_rows[col_ptr[f]:col_ptr[f + 1]],
            sorted_values[col_ptr[f]:col_ptr[f + 1]], n_rows, g, h, f, need_forward[f], c,
            f * block, pg, ph, psim, reg_lambda, alpha, mcw, mds) - f * block
    starts = np.zeros(n_features + 1, dtype=np.int64)
    starts[1:] = np.cumsum(counts)
    out = _new_candidates(starts[-1])
    for f in prange(n_features):
        _copy_block(c, f * block, out, starts[f], counts[f])
    c_feat, c_thr, c_left, c_nl, c_gl, c_hl, c_gr, c_hr, c_loss, c_valid = out
    return c_feat, c_thr, c_left, c_nl, c_gl, c_hl, c_gr, c_hr, c_loss, c_valid, psim


@njit(cache=True, nogil=True)
def _new_candidates(n):
    return (np.empty(n, dtype=np.int32), np.empty(n, dtype=np.float32),
            np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.int64),
            np.empty(n, dtype=np.float64), np.empty(n, dtype=np.float64),
            np.empty(n, dtype=np.float64), np.empty(n, dtype=np.float64),
            np.empty(n, dtype=np.float32), np.empty(n, dtype=np.bool_))


@njit(cache=True, nogil=True)
def _copy_block(src, a, dst, b, n):
    """Entries a..a+n of every array of ``src`` to b..b+n of ``dst``'s."""
    dst[0][b:b + n] = src[0][a:a + n]
    dst[1][b:b + n] = src[1][a:a + n]
    dst[2][b:b + n] = src[2][a:a + n]
    dst[3][b:b + n] = src[3][a:a + n]
    dst[4][b:b + n] = src[4][a:a + n]
    dst[5][b:b + n] = src[5][a:a + n]
    dst[6][b:b + n] = src[6][a:a + n]
    dst[7][b:b + n] = src[7][a:a + n]
    dst[8][b:b + n] = src[8][a:a + n]
    dst[9][b:b + n] = src[9][a:a + n]


@njit(cache=True, nogil=True)
def _feature_candidates(in_node, rows, values, n_rows, g, h, f, need_forward, c, n, pg, ph,
                        psim, reg_lambda, alpha, mcw, mds):
    """Feature f's candidates, written from entry ``n`` of ``c``; ``rows``, ``values``: the
    feature's present training rows in ascending order. Returns the entry after the last."""
    present = np.empty(rows.shape[0], dtype=np.int64)  # the node's, in that order
    k = 0
    for j in range(rows.shape[0]):
        if in_node[rows[j]]:
            present[k] = j
            k += 1
    for forward in (True, False):
        if forward and not need_forward:
            continue
        sg = np.float64(0.0)
        sh = np.float64(0.0)
        last = np.float32(0.0)
        for j in range(k):  # a candidate at each change of value (docs/xgboost-rules.md §3)
            e = present[j] if forward else present[k - 1 - j]
            r = rows[e]
            v = values[e]
            if sh != 0.0 and v != last:
                n = _candidate(c, n, f, rules.split_threshold(v, last), forward, n_rows, j,
                               sg, sh, pg, ph, psim, reg_lambda, alpha, mcw, mds)
            sg += g[r]
            sh += h[r]
            last = v
        if k < n_rows and k > 0:  # every present value one way, the missing the other
            gap = abs(last) + RT_EPS
            n = _candidate(c, n, f, last + gap if forward else last - gap, forward, n_rows,
                           k, sg, sh, pg, ph, psim, reg_lambda, alpha, mcw, mds)
    return n


def _mark_best(valid, loss, split_made):
    """The candidate the search picks: the first, in scan order, of the largest valid gains
    (so on equal gains the lower feature and the earlier scan win)."""
    best = np.zeros(len(loss), dtype=bool)
    if split_made and len(loss):
        gains = np.where(valid & np.isfinite(loss), loss, -np.inf)  # NaN and inf never win
        i = int(np.argmax(gains))  # the first of the largest
        if gains[i] > 0 and gains[i] > RT_EPS:
            best[i] = True
    return best


def _frame(names, feat, thr, left, nl, n_rows, gl, hl, gr, hr, loss, valid, psim, params,
           split_made, allowed=None, extra=None):
    _, reg_lambda, alpha, _, mcw, mds = params.as_float32()
    # colsample_*: a feature the node did not draw is shown but cannot be chosen.
    sampled = np.ones(len(feat), dtype=bool) if allowed is None else np.asarray(allowed)[feat]
    sims = [similarities(G, H, reg_lambda, alpha, mcw, mds) for G, H in ((gl, hl), (gr, hr))]
    columns = {
        "Feature": pd.Categorical.from_codes(feat, categories=list(names)),
        "Threshold": thr.astype(np.float64),
        "DefaultLeft": left,
        "CountLeft": nl,
        "CountRight": n_rows - nl,
        "SumGradLeft": gl,
        "SumHessLeft": hl,
        "SumGradRight": gr,
        "SumHessRight": hr,
        "SimilarityLeft": sims[0].astype(np.float64),
        "SimilarityRight": sims[1].astype(np.float64),
        "SimilarityParent": np.full(len(feat), float(psim)),
        "Gain": loss.astype(np.float64),
        "Valid": valid,
        "Sampled": sampled,
        "Best": _mark_best(valid & sampled, loss, split_made),
    }
    order = list(COLUMNS)
    if extra:
        columns.update(extra)
        order += list(extra)
    return pd.DataFrame(columns, columns=order, copy=False)  # fresh arrays: no copy


def hist_split_candidates(feat, table, counts, cuts, n_rows, psim, params, names,
                          split_made: bool, allowed=None) -> pd.DataFrame:
    """DataFrame of every bin candidate of a node (``hist.node_candidates``: each one's
    feature and ``records.CAND_*`` row) and the node's row count per bin."""
    split_bin = table[:, rec.CAND_BIN].astype(np.int64)
    left = table[:, rec.CAND_DEFAULT_LEFT] != 0.0
    nl = np.empty(len(feat), dtype=np.int64)
    for i, (f, b, dl) in enumerate(zip(feat, split_bin, left, strict=True)):
        a = int(cuts.ptrs[f])
        present = int(counts[a:int(cuts.ptrs[f + 1])].sum())
        nl[i] = int(counts[a:a + b + 1].sum()) + (n_rows - present if dl else 0)
    col = {name: table[:, getattr(rec, f"CAND_{name.upper()}")]
           for name in ("threshold", "gl", "hl", "gr", "hr", "loss", "valid")}
    return _frame(names, feat, col["threshold"].astype(np.float32), left, nl, n_rows, col["gl"],
                  col["hl"], col["gr"], col["hr"], col["loss"].astype(np.float32),
                  col["valid"] != 0.0, psim, params, split_made, allowed,
                  extra={"Bin": split_bin})


class SortedRows(NamedTuple):
    """Each feature's present rows sorted by value, ties by row index (``exact``'s
    ``sort_columns``, the order its grower scans): ``rows[col_ptr[f]:col_ptr[f + 1]]`` and
    their ``values``; ``need_forward[f]``: the forward (missing -> right) scan runs."""

    col_ptr: np.ndarray
    rows: np.ndarray
    values: np.ndarray
    need_forward: np.ndarray


def sorted_rows(X: np.ndarray) -> SortedRows:
    """``X``'s columns sorted once, for every node's candidates."""
    return SortedRows(*sort_columns(X))


def split_candidates(columns: SortedRows, in_node, g, h, params, names, split_made: bool,
                     allowed=None) -> pd.DataFrame:
    """DataFrame of every candidate split of the node whose rows ``in_node`` marks;
    ``columns``: the training rows sorted (``sorted_rows``).

    ``Best`` marks the candidate the exact search picks (only when the node was split):
    the first, in scan order, of the largest valid gains, lower feature index first.
    """
    _, reg_lambda, alpha, _, mcw, mds = params.as_float32()
    (feat, thr, left, nl, gl, hl, gr, hr, loss, valid, psim) = _enumerate(
        in_node, columns.col_ptr, columns.rows, columns.values, g, h, columns.need_forward,
        reg_lambda, alpha, mcw, mds)
    return _frame(names, feat, thr, left, nl, int(in_node.sum()), gl, hl, gr, hr, loss, valid,
                  psim, params, split_made, allowed)


def exact_thresholds(values: np.ndarray) -> np.ndarray:
    """exact's candidate thresholds for one feature's values (NaN skipped): one between each
    pair of neighbouring distinct values a < b, as the backward scan (which every feature
    runs) writes them (``node_rules.split_threshold(a, b)``)."""
    v = np.unique(np.asarray(values, dtype=np.float32))
    return _thresholds(v[~np.isnan(v)])


@njit(cache=True, nogil=True)
def _thresholds(v):
    out = np.empty(max(len(v) - 1, 0), dtype=np.float32)
    for i in range(len(out)):
        out[i] = rules.split_threshold(v[i], v[i + 1])
    return out
