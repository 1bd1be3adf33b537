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

from ._dtypes import RT_EPS
from .split_math import similarities, similarity, split_loss_change

_F32_HALF = np.float32(0.5)

COLUMNS = ["Feature", "Threshold", "DefaultLeft", "CountLeft", "CountRight", "SumGradLeft",
           "SumHessLeft", "SumGradRight", "SumHessRight", "SimilarityLeft", "SimilarityRight",
           "SimilarityParent", "Gain", "Valid", "Sampled", "Best"]


@njit(cache=True)
def _enumerate(X, rows, g, h, need_forward, reg_lambda, alpha, mcw, mds):
    n_rows = rows.shape[0]
    n_features = X.shape[1]
    cap = n_features * 2 * (n_rows + 1)
    c_feat = np.empty(cap, dtype=np.int32)
    c_thr = np.empty(cap, dtype=np.float32)
    c_left = np.empty(cap, dtype=np.bool_)
    c_nl = np.empty(cap, dtype=np.int64)
    c_gl = np.empty(cap, dtype=np.float64)
    c_hl = np.empty(cap, dtype=np.float64)
    c_gr = np.empty(cap, dtype=np.float64)
    c_hr = np.empty(cap, dtype=np.float64)
    c_loss = np.empty(cap, dtype=np.float32)
    c_valid = np.empty(cap, dtype=np.bool_)
    pg = np.float64(0.0)
    ph = np.float64(0.0)
    for r in rows:
        pg += g[r]
        ph += h[r]
    psim = similarity(pg, ph, reg_lambda, alpha, mcw, mds)
    n = 0
    for f in range(n_features):
        present = np.empty(n_rows, dtype=np.int64)
        k = 0
        for r in rows:
            if not math.isnan(X[r, f]):
                present[k] = r
                k += 1
        present = present[:k]
        n_missing = n_rows - k
        order = np.argsort(X[present, f], kind="mergesort")
        for direction in (1, -1):
            if direction == 1 and not need_forward[f]:
                continue
            sg = np.float64(0.0)
            sh = np.float64(0.0)
            cnt = 0
            last = np.float32(0.0)
            for j in range(k):
                r = present[order[j]] if direction == 1 else present[order[k - 1 - j]]
                v = X[r, f]
                if sh != 0.0 and v != last:
                    rg = pg - sg
                    rh = ph - sh
                    mid = (v + last) * _F32_HALF
                    c_feat[n] = f
                    c_thr[n] = last if mid == v else mid
                    c_left[n] = direction == -1
                    if direction == 1:
                        c_nl[n] = cnt
                        c_gl[n], c_hl[n], c_gr[n], c_hr[n] = sg, sh, rg, rh
                    else:
                        c_nl[n] = n_rows - cnt
                        c_gl[n], c_hl[n], c_gr[n], c_hr[n] = rg, rh, sg, sh
                    c_loss[n] = split_loss_change(c_gl[n], c_hl[n], c_gr[n], c_hr[n], psim,
                                                  reg_lambda, alpha, mcw, mds)
                    c_valid[n] = sh >= mcw and rh >= mcw
                    n += 1
                sg += g[r]
                sh += h[r]
                cnt += 1
                last = v
            if n_missing > 0 and k > 0:
                rg = pg - sg
                rh = ph - sh
                gap = abs(last) + RT_EPS
                c_feat[n] = f
                c_left[n] = direction == -1
                if direction == 1:
                    c_thr[n] = last + gap
                    c_nl[n] = cnt
                    c_gl[n], c_hl[n], c_gr[n], c_hr[n] = sg, sh, rg, rh
                else:
                    c_thr[n] = last - gap
                    c_nl[n] = n_missing
                    c_gl[n], c_hl[n], c_gr[n], c_hr[n] = rg, rh, sg, sh
                c_loss[n] = split_loss_change(c_gl[n], c_hl[n], c_gr[n], c_hr[n], psim,
                                              reg_lambda, alpha, mcw, mds)
                c_valid[n] = sh >= mcw and rh >= mcw
                n += 1
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


def hist_split_candidates(table, counts, cuts, n_rows, psim, params, names, split_made: bool,
                          allowed=None) -> pd.DataFrame:
    """DataFrame of every bin candidate of a node (``hist.node_candidates`` rows and the
    node's row count per bin)."""
    feat = table[:, 0].astype(np.int64)
    split_bin = table[:, 1].astype(np.int64)
    left = table[:, 2] != 0.0
    loss = table[:, 7].astype(np.float32)
    nl = np.empty(len(feat), dtype=np.int64)
    for i, (f, b, dl) in enumerate(zip(feat, split_bin, left, strict=True)):
        a = int(cuts.ptrs[f])
        present = int(counts[a:int(cuts.ptrs[f + 1])].sum())
        nl[i] = int(counts[a:a + b + 1].sum()) + (n_rows - present if dl else 0)
    return _frame(names, feat, table[:, 9].astype(np.float32), left, nl, n_rows,
                  table[:, 3], table[:, 4], table[:, 5], table[:, 6], loss, table[:, 8] != 0.0,
                  psim, params, split_made, allowed, extra={"Bin": split_bin})


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
