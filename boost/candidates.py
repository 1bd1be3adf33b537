"""Every candidate split of one node, computed on demand from the node's rows.

exact: the enumeration is the exact grower's (``exact._scan``) for a single node, except that
it records each candidate instead of keeping only the best, including the ones
min_child_weight blocks (``Valid = False``; XGBoost skips them without computing their gain).

hist/approx: the candidates are bins. The node's histogram is replayed bit for bit
(``hist.node_histogram``) and scanned as the grower scans it (``hist.scan_feature``); the
extra column ``Bin`` is the last bin that goes left.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from numba import njit

from . import node_rules as rules
from . import records as rec
from ._dtypes import RT_EPS
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


@njit(cache=True, nogil=True)
def _enumerate(X, rows, g, h, need_forward, reg_lambda, alpha, mcw, mds):
    n_rows = rows.shape[0]
    cap = X.shape[1] * 2 * (n_rows + 1)
    c = (np.empty(cap, dtype=np.int32), np.empty(cap, dtype=np.float32),
         np.empty(cap, dtype=np.bool_), np.empty(cap, dtype=np.int64),
         np.empty(cap, dtype=np.float64), np.empty(cap, dtype=np.float64),
         np.empty(cap, dtype=np.float64), np.empty(cap, dtype=np.float64),
         np.empty(cap, dtype=np.float32), np.empty(cap, dtype=np.bool_))
    pg = np.float64(0.0)
    ph = np.float64(0.0)
    for r in rows:
        pg += g[r]
        ph += h[r]
    psim = similarity(pg, ph, reg_lambda, alpha, mcw, mds)
    n = 0
    for f in range(X.shape[1]):
        present = np.empty(n_rows, dtype=np.int64)
        k = 0
        for r in rows:
            if not math.isnan(X[r, f]):
                present[k] = r
                k += 1
        present = present[:k]
        order = np.argsort(X[present, f], kind="mergesort")
        for forward in (True, False):
            if forward and not need_forward[f]:
                continue
            sg = np.float64(0.0)
            sh = np.float64(0.0)
            last = np.float32(0.0)
            for j in range(k):  # a candidate at each change of value (docs/xgboost-rules.md §3)
                r = present[order[j]] if forward else present[order[k - 1 - j]]
                v = X[r, f]
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
    c_feat, c_thr, c_left, c_nl, c_gl, c_hl, c_gr, c_hr, c_loss, c_valid = c
    return (c_feat[:n], c_thr[:n], c_left[:n], c_nl[:n], c_gl[:n], c_hl[:n], c_gr[:n],
            c_hr[:n], c_loss[:n], c_valid[:n], psim)


def _mark_best(valid, loss, split_made):
    """The candidate the search picks: the first, in scan order, of the largest valid gains
    (so on equal gains the lower feature and the earlier scan win)."""
    best = np.zeros(len(loss), dtype=bool)
    if split_made:
        ok = valid & ~np.isinf(loss)
        best_loss = np.float32(0.0)
        best_i = -1
        for i in np.nonzero(ok)[0]:
            if loss[i] > best_loss:
                best_loss, best_i = loss[i], i
        if best_i >= 0 and best_loss > RT_EPS:
            best[best_i] = True
    return best


def _frame(names, feat, thr, left, nl, n_rows, gl, hl, gr, hr, loss, valid, psim, params,
           split_made, allowed=None, extra=None):
    _, reg_lambda, alpha, _, mcw, mds = params.as_float32()
    # colsample_*: a feature the node did not draw is shown but cannot be chosen.
    sampled = np.ones(len(feat), dtype=bool) if allowed is None else np.asarray(allowed)[feat]
    sims = [similarities(G, H, reg_lambda, alpha, mcw, mds) for G, H in ((gl, hl), (gr, hr))]
    columns = {
        "Feature": [names[f] for f in feat],
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
    return pd.DataFrame(columns, columns=order)


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


def split_candidates(X, rows, g, h, need_forward, params, names, split_made: bool,
                     allowed=None) -> pd.DataFrame:
    """DataFrame of every candidate split of the node whose rows are ``rows``.

    ``Best`` marks the candidate the exact search picks (only when the node was split):
    the first, in scan order, of the largest valid gains, lower feature index first.
    """
    _, reg_lambda, alpha, _, mcw, mds = params.as_float32()
    (feat, thr, left, nl, gl, hl, gr, hr, loss, valid, psim) = _enumerate(
        X, rows.astype(np.int64), g, h, need_forward, reg_lambda, alpha, mcw, mds)
    return _frame(names, feat, thr, left, nl, len(rows), gl, hl, gr, hr, loss, valid, psim,
                  params, split_made, allowed)


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
