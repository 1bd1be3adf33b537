"""Every candidate split of one node, computed on demand from the node's rows.

exact: the enumeration is the exact grower's (``exact.splitting._scan_segment``) for a single
node, except that it records each candidate instead of keeping only the best, including the
ones min_child_weight blocks (``Valid = False``; XGBoost skips them without computing their
gain).

hist/approx: the candidates are bins. The node's histogram is replayed bit for bit down its
path from the root (``root_histogram``, ``children_histograms``) and scanned as the grower scans it
(``node_candidates``, with ``hist.splitting.scan_feature``); the extra column ``Bin`` is the
last bin that goes left.
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
import pandas as pd
from numba import njit, prange

from .. import node_rules as rules
from .. import records as rec
from .._dtypes import RT_EPS, NodeParams
from ..exact.columns import sort_columns
from ..hist.histogram import root_sums
from ..hist.splitting import fresh_best, scan_feature, scan_scratch
from ..layout import read_only
from ..sketch import Cuts
from ..split_math import heavy, loss_changes, similarities, similarity, split_loss_change

COLUMNS = ["Feature", "Threshold", "DefaultLeft", "CountLeft", "CountRight", "SumGradLeft",
           "SumHessLeft", "SumGradRight", "SumHessRight", "SimilarityLeft", "SimilarityRight",
           "SimilarityParent", "Gain", "Valid", "Sampled", "Best"]


@njit(cache=True, nogil=True, inline="always")
def _candidate(forward, n_rows, cnt, sg, sh, pg, ph, psim, rp):
    """A candidate whose scanned side has ``cnt`` rows and sums ``sg, sh`` (the left child of
    a forward scan, the right child of a backward one): the left child's row count, both
    children's G and H, the loss change and whether min_child_weight lets it be chosen.
    Scalars only: the caller writes them (arrays passed per candidate would cost their
    reference counts)."""
    rg = pg - sg
    rh = ph - sh
    if forward:
        gl, hl, gr, hr = sg, sh, rg, rh
    else:
        gl, hl, gr, hr = rg, rh, sg, sh
    loss = split_loss_change(gl, hl, gr, hr, psim, rp)
    return ((cnt if forward else n_rows - cnt), gl, hl, gr, hr, loss,
            heavy(sh, rh, rp.min_child_weight))


@njit(cache=True, nogil=True)
def _node_sums(in_node, g, h, rp):
    """The node's G, H (in row order, like the grower's sums), row count and similarity."""
    pg = np.float64(0.0)
    ph = np.float64(0.0)
    n_rows = 0
    for r in range(in_node.shape[0]):
        if in_node[r]:
            pg += g[r]
            ph += h[r]
            n_rows += 1
    return pg, ph, n_rows, similarity(pg, ph, rp)


@njit(cache=True, nogil=True, parallel=True)
def _enumerate(in_node, col_ptr, sorted_rows, sorted_values, g, h, need_forward, features,
               chunks, rp):
    """Every candidate of the node whose rows ``in_node`` marks, for each feature of
    ``features`` (ascending) in scan order (``_scan``). The features run in parallel twice:
    first each counts its candidates, then each writes them at its place in arrays of
    exactly that size (no block per feature sized for the worst case: at a 100k-row root
    those came to 350 MB of fresh pages). ``chunks``: the threads."""
    n = features.shape[0]
    pg, ph, n_rows, psim = _node_sums(in_node, g, h, rp)
    starts = np.zeros(n + 1, dtype=np.int64)
    widest = np.max(np.diff(col_ptr))
    for t in prange(chunks):
        scan, present = _scratch(n_rows, widest)
        for i in range(t, n, chunks):
            f = features[i]
            starts[i + 1] = _scan(in_node, sorted_rows[col_ptr[f]:col_ptr[f + 1]],
                                  sorted_values[col_ptr[f]:col_ptr[f + 1]], n_rows, g, h,
                                  need_forward[f], present, scan)
    for i in range(n):
        starts[i + 1] += starts[i]
    c = _new_candidates(starts[n])
    for t in prange(chunks):
        scan, present = _scratch(n_rows, widest)
        for i in range(t, n, chunks):
            f = features[i]
            m = _scan(in_node, sorted_rows[col_ptr[f]:col_ptr[f + 1]],
                      sorted_values[col_ptr[f]:col_ptr[f + 1]], n_rows, g, h, need_forward[f],
                      present, scan)
            for j in range(m):
                _write(scan, j, f, n_rows, pg, ph, psim, rp, c, starts[i] + j)
    c_feat, c_thr, c_left, c_nl, c_gl, c_hl, c_gr, c_hr, c_loss, c_valid = c
    return c_feat, c_thr, c_left, c_nl, c_gl, c_hl, c_gr, c_hr, c_loss, c_valid, psim


@njit(cache=True, nogil=True, parallel=True)
def _summarize(in_node, col_ptr, sorted_rows, sorted_values, g, h, need_forward, top,
               chunks, rp):
    """What a screen shows of the node's candidates, without keeping them all: each
    feature's candidates are scanned as ``_enumerate`` scans them (``_scan``), their gains
    computed in one vectorised loop (``split_math.loss_changes``, bit for bit the gain
    ``_candidate`` gives), and only ``_pick``'s few written out with all their numbers (in
    feature, then scan order). Returns them, the node's similarity and each feature's number
    of candidates. ``chunks``: the threads (each takes every ``chunks``-th feature)."""
    n_features = col_ptr.shape[0] - 1
    pg, ph, n_rows, psim = _node_sums(in_node, g, h, rp)
    mcw = rp.min_child_weight
    per = 2 * top + 1
    kept = _new_candidates(n_features * per)
    counts = np.zeros(n_features, dtype=np.int64)
    n_kept = np.zeros(n_features, dtype=np.int64)
    widest = np.max(np.diff(col_ptr))
    for t in prange(chunks):
        scan, present = _scratch(n_rows, widest)
        loss = np.empty(2 * (n_rows + 1), dtype=np.float32)
        valid = np.empty(2 * (n_rows + 1), dtype=np.bool_)
        picked = np.zeros(2 * (n_rows + 1), dtype=np.bool_)
        s_h = scan[1]
        for f in range(t, n_features, chunks):
            m = _scan(in_node, sorted_rows[col_ptr[f]:col_ptr[f + 1]],
                      sorted_values[col_ptr[f]:col_ptr[f + 1]], n_rows, g, h, need_forward[f],
                      present, scan)
            counts[f] = m
            loss_changes(m, scan[0], s_h, pg, ph, psim, rp, loss)
            for j in range(m):
                valid[j] = heavy(s_h[j], ph - s_h[j], mcw)
            picked[:m] = False
            _pick(loss, valid, np.int64(0), m, top, picked)
            k = 0
            for j in range(m):
                if picked[j]:
                    _write(scan, j, f, n_rows, pg, ph, psim, rp, kept, f * per + k)
                    k += 1
            n_kept[f] = k
    out = _pack(kept, per, n_kept)
    c_feat, c_thr, c_left, c_nl, c_gl, c_hl, c_gr, c_hr, c_loss, c_valid = out
    return c_feat, c_thr, c_left, c_nl, c_gl, c_hl, c_gr, c_hr, c_loss, c_valid, psim, counts


@njit(cache=True, nogil=True)
def _pick(loss, valid, a, b, top, picked):
    """Marks in ``picked`` the candidates a..b-1 (one feature's, in scan order) a summary
    keeps: the first of the largest finite valid gains (the feature's best, the search's tie
    rule), the ``top`` largest valid gains (the earlier of equal ones) and the first ``top``
    that min_child_weight blocks. The largest gains gather in a buffer of ``4 * top`` that is
    cut back to the ``top`` largest when full, so a rising gain costs no shifting."""
    kept = np.empty(4 * top, dtype=np.int64)
    m = 0
    bar = -np.inf  # the top-th largest gain so far, once the buffer has been cut
    first = -1
    blocked = 0
    for j in range(a, b):
        gain = loss[j]
        if not valid[j]:
            if blocked < top:
                picked[j] = True
                blocked += 1
            continue
        if np.isfinite(gain) and (first < 0 or gain > loss[first]):
            first = j
        if gain > bar or (m < top and gain == gain and bar == -np.inf):
            kept[m] = j
            m += 1
            if m == kept.shape[0]:
                m, bar = _cut(loss, kept, m, top)
    m = _cut(loss, kept, m, top)[0]
    for i in range(m):
        picked[kept[i]] = True
    if first >= 0:
        picked[first] = True


@njit(cache=True, nogil=True)
def _cut(loss, kept, m, top):
    """The ``top`` largest gains of ``kept[:m]`` (indices in scan order; of equal gains the
    earlier), kept at its front in scan order: their count and the smallest of them. Linear:
    the top-th largest gain is found by a partition, not a sort (a rising gain curve enters
    the buffer at every candidate, and sorting it at each cut cost ~20 ns a candidate)."""
    if m < top:
        return m, -np.inf
    gains = np.empty(m, dtype=loss.dtype)
    for i in range(m):
        gains[i] = loss[kept[i]]
    bar = np.partition(gains, m - top)[m - top]  # the top-th largest
    above = 0
    for i in range(m):
        above += gains[i] > bar
    ties = top - above  # of the gains equal to the bar, the earliest this many stay
    n = 0
    for i in range(m):
        gain = loss[kept[i]]
        if gain > bar or (gain == bar and ties > 0):
            ties -= gain == bar
            kept[n] = kept[i]
            n += 1
    return n, bar


@njit(cache=True, nogil=True, parallel=True)
def _pack(c, block, counts):
    """Block i's first ``counts[i]`` entries (block i starts at ``i * block``), packed."""
    starts = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    starts[1:] = np.cumsum(counts)
    out = _new_candidates(starts[-1])
    for i in prange(counts.shape[0]):
        _copy_block(c, i * block, out, starts[i], counts[i])
    return out


@njit(cache=True, nogil=True)
def _new_candidates(n):
    # Threshold and loss change are float32 values kept as float64, the table's dtype: a
    # conversion of millions of rows afterwards would copy them again.
    return (np.empty(n, dtype=np.int32), np.empty(n, dtype=np.float64),
            np.empty(n, dtype=np.bool_), np.empty(n, dtype=np.int64),
            np.empty(n, dtype=np.float64), np.empty(n, dtype=np.float64),
            np.empty(n, dtype=np.float64), np.empty(n, dtype=np.float64),
            np.empty(n, dtype=np.float64), np.empty(n, dtype=np.bool_))


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
def _scratch(n_rows, n_entries):
    """A thread's arrays for ``_scan``: the candidates of one feature (at most two a node
    row: each scan direction's changes of value and its end) and the node's entries of a
    feature (``n_entries``: the most a feature has)."""
    n = 2 * (n_rows + 1)
    return ((np.empty(n, dtype=np.float64), np.empty(n, dtype=np.float64),
             np.empty(n, dtype=np.int64), np.empty(n, dtype=np.float32),
             np.empty(n, dtype=np.bool_)), np.empty(n_entries, dtype=np.int64))


@njit(cache=True, nogil=True)
def _scan(in_node, rows, values, n_rows, g, h, need_forward, present, scan):
    """The candidates of one feature at the node whose rows ``in_node`` marks, in the exact
    grower's scan order (``exact.splitting._scan_segment``: forward — missing values right —
    if it runs, then backward), as ``scan``'s arrays from 0: the scanned side's G and H
    before the candidate, its row count, the threshold and whether the scan is forward.
    Returns how many. ``rows``, ``values``: the feature's present training rows in ascending
    order of value; ``present``: scratch. No branch per entry (whether one ends a run of a
    value is unpredictable): every entry is written at the next free place, which moves on
    only where a candidate is (and the node's rows are found the same way)."""
    s_g, s_h, s_count, s_thr, s_forward = scan
    k = 0
    for j in range(rows.shape[0]):  # the node's entries, in that order
        present[k] = j
        k += in_node[rows[j]]
    n = 0
    for forward in (True, False):
        if forward and not need_forward:
            continue
        sg = np.float64(0.0)
        sh = np.float64(0.0)
        last = np.float32(0.0)
        for j in range(k):  # a candidate at each change of value (docs/xgboost-rules.md §3)
            e = present[j] if forward else present[k - 1 - j]
            v = values[e]
            s_g[n], s_h[n], s_count[n], s_forward[n] = sg, sh, j, forward
            s_thr[n] = rules.split_threshold(v, last)
            n += (sh != 0.0) & (v != last)
            r = rows[e]
            sg += g[r]
            sh += h[r]
            last = v
        gap = abs(last) + RT_EPS  # then every present value one way, the missing the other
        s_g[n], s_h[n], s_count[n], s_forward[n] = sg, sh, k, forward
        s_thr[n] = last + gap if forward else last - gap
        n += (k < n_rows) & (k > 0)
    return n


@njit(cache=True, nogil=True)
def _write(scan, j, f, n_rows, pg, ph, psim, rp, c, at):
    """Candidate j of feature f's ``_scan`` with all its numbers (``_candidate``), at entry
    ``at`` of ``c``."""
    s_g, s_h, s_count, s_thr, s_forward = scan
    c_feat, c_thr, c_left, c_nl, c_gl, c_hl, c_gr, c_hr, c_loss, c_valid = c
    forward = s_forward[j]
    (c_nl[at], c_gl[at], c_hl[at], c_gr[at], c_hr[at], c_loss[at],
     c_valid[at]) = _candidate(forward, n_rows, s_count[j], s_g[j], s_h[j], pg, ph, psim, rp)
    c_feat[at] = f
    c_thr[at] = s_thr[j]
    c_left[at] = not forward


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
           split_made, allowed=None, extra=None, keep=None):
    """The candidates table of these columns; ``keep(threshold, count_left, count_right,
    gain, best, valid, default_left)``: the positions of the rows to make it of (a gain
    curve keeps ~1,200 of a feature's tens of thousands: a frame of them all cost
    milliseconds), ``Best`` marked on them all."""
    rp = NodeParams.of(params)
    # colsample_*: a feature the node did not draw is shown but cannot be chosen.
    sampled = np.ones(len(feat), dtype=bool) if allowed is None else np.asarray(allowed)[feat]
    best = _mark_best(valid & sampled, loss, split_made)
    if keep is not None:
        at = keep(thr, nl, n_rows - nl, loss, best, valid, left)
        feat, thr, left, nl, gl, hl, gr, hr, loss, valid, sampled, best = (
            a[at] for a in (feat, thr, left, nl, gl, hl, gr, hr, loss, valid, sampled, best))
        extra = None if extra is None else {k: v[at] for k, v in extra.items()}
    sims = [similarities(G, H, rp) for G, H in ((gl, hl), (gr, hr))]
    columns = {
        "Feature": pd.Categorical.from_codes(feat, categories=list(names)),
        "Threshold": np.asarray(thr, dtype=np.float64),
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
        "Gain": np.asarray(loss, dtype=np.float64),
        "Valid": valid,
        "Sampled": sampled,
        "Best": best,
    }
    order = list(COLUMNS)
    if extra:
        columns.update(extra)
        order += list(extra)
    return pd.DataFrame(columns, columns=order, copy=False)  # fresh arrays: no copy


# ------------------------------------------------------------------ hist: one node, replayed
@njit(cache=True, nogil=True, parallel=True)
def _node_hist(codes, missing, ptrs, g, h, rows, out, counts):
    """Histogram (and row count per bin) of ``rows`` (increasing row numbers); ``codes``
    feature by feature. Each bin belongs to one feature and adds its rows in row order, so
    the features run in parallel and every sum is the row-order sum."""
    for f in prange(ptrs.shape[0] - 1):
        col = codes[f]
        a = ptrs[f]
        for i in range(rows.shape[0]):
            r = rows[i]
            b = col[r]
            if b != missing:
                out[a + b] += complex(np.float64(g[r]), np.float64(h[r]))
                counts[a + b] += 1


def root_histogram(codes, missing, cuts: Cuts, g, h, mask, root_from_bins: bool) -> tuple:
    """The root's histogram as the hist grower had it: ``(histogram (total_bins,) complex: G
    in .real, H in .imag; row counts per bin; G; H)`` of the rows ``mask`` marks. ``codes``:
    the rows' bin codes feature by feature, shape (n_features, n_samples)."""
    hist, counts = _built(codes, missing, cuts, g, h, mask)
    return (hist, counts, *root_sums(hist, cuts.ptrs, g, h, root_from_bins))


def children_histograms(codes, missing, cuts: Cuts, g, h, parent: tuple, parent_mask,
                        left_mask, feature: int, params) -> tuple[tuple, tuple]:
    """Both children's histograms, as ``root_histogram``'s, of a node whose own is ``parent``
    and whose rows are ``parent_mask`` (its left child's ``left_mask``), split on
    ``feature``: as the hist grower made them, the child with the smaller hessian built from
    its rows and the other ``parent - sibling``, each child's sums the parent's best scan
    sums on that feature — so a node's histogram, replayed down its path from the root one
    level at a time, is bit-identical to what the search saw."""
    rp = NodeParams.of(params)
    hist, counts, pg, ph = parent
    ptrs = cuts.ptrs
    best = fresh_best()
    n_bins = ptrs[feature + 1] - ptrs[feature]
    scan_feature(hist, ptrs[feature], ptrs[feature], n_bins, cuts.min_vals[feature],
                 cuts.values, pg, ph, similarity(pg, ph, rp), rp, best,
                 np.empty((0, rec.CAND_FIELDS), dtype=np.float64), scan_scratch(n_bins), n_bins)
    built_right = rules.builds_right(best[rec.SPLIT_HL], best[rec.SPLIT_HR])
    built = _built(codes, missing, cuts, g, h, parent_mask & ~left_mask if built_right
                   else left_mask)
    other = (hist - built[0], counts - built[1])  # (counts: exactly so)
    left, right = (other, built) if built_right else (built, other)
    return ((*left, best[rec.SPLIT_GL], best[rec.SPLIT_HL]),
            (*right, best[rec.SPLIT_GR], best[rec.SPLIT_HR]))


def _built(codes, missing, cuts: Cuts, g, h, mask) -> tuple[np.ndarray, np.ndarray]:
    """The histogram and row counts of the rows ``mask`` marks, built from them (a deep
    node has few)."""
    total_bins = int(cuts.ptrs[-1])
    out = np.zeros(total_bins, dtype=np.complex128)
    cnt = np.zeros(total_bins, dtype=np.int64)
    _node_hist(codes, missing, cuts.ptrs, g, h, np.flatnonzero(mask), out, cnt)
    return out, cnt


def node_candidates(hist, cuts: Cuts, pg, ph, params, features=None
                    ) -> tuple[np.ndarray, np.ndarray, float]:
    """Every candidate of every feature (or of ``features``, indices ascending) of the node
    whose histogram and sums are ``hist``, ``pg``, ``ph`` (``root_histogram``,
    ``children_histograms``), as the search enumerates them (feature ascending, forward bins
    then backward bins): each one's feature, its row of ``records.CAND_*`` columns, and the
    node's similarity."""
    rp = NodeParams.of(params)
    psim = similarity(pg, ph, rp)
    found, tables = [], []
    for f in range(cuts.n_features) if features is None else map(int, features):
        a, b = int(cuts.ptrs[f]), int(cuts.ptrs[f + 1])
        out = np.empty((2 * (b - a), rec.CAND_FIELDS), dtype=np.float64)
        n = scan_feature(hist, a, a, b - a, cuts.min_vals[f], cuts.values, pg, ph, psim, rp,
                         fresh_best(), out, scan_scratch(b - a), b - a)
        found.append(np.full(n, f, dtype=np.int64))
        tables.append(out[:n])
    return np.concatenate(found), np.concatenate(tables), float(psim)


def hist_split_candidates(feat, table, counts, cuts, n_rows, psim, params, names,
                          split_made: bool, allowed=None) -> pd.DataFrame:
    """DataFrame of every bin candidate of a node (``node_candidates``: each one's
    feature and ``records.CAND_*`` row) and the node's row count per bin."""
    split_bin = table[:, rec.CAND_BIN].astype(np.int64)
    left = table[:, rec.CAND_DEFAULT_LEFT] != 0.0
    below = np.r_[0, np.cumsum(counts, dtype=np.int64)]  # rows in the bins before each bin
    first, end = cuts.ptrs[feat].astype(np.int64), cuts.ptrs[feat + 1].astype(np.int64)
    present = below[end] - below[first]
    nl = below[first + split_bin + 1] - below[first] + np.where(left, n_rows - present, 0)
    col = {name: table[:, getattr(rec, f"CAND_{name.upper()}")]
           for name in ("threshold", "gl", "hl", "gr", "hr", "loss", "valid")}
    return _frame(names, feat, col["threshold"].astype(np.float32), left, nl, n_rows, col["gl"],
                  col["hl"], col["gr"], col["hr"], col["loss"].astype(np.float32),
                  col["valid"] != 0.0, psim, params, split_made, allowed,
                  extra={"Bin": split_bin})


class CandidateSummary(NamedTuple):
    """What a screen shows of a node's candidates (``Booster.candidate_summary``): ``table``
    holds, per feature, its best valid candidate, its ``top`` largest valid gains and its
    first ``top`` blocked candidates (``split_candidates``' columns, feature then scan
    order; ``Best`` as in the whole table); ``counts``: each feature's number of candidates
    (indexed by name, every feature the search scanned)."""

    table: pd.DataFrame
    counts: pd.Series


def summary_of(table: pd.DataFrame, names, top: int) -> CandidateSummary:
    """``CandidateSummary`` of a whole candidates table (hist/approx: a few hundred bins a
    feature), by the same choice ``_summarize`` makes in the exact enumeration."""
    codes = table.Feature.cat.codes.to_numpy()
    ends = np.searchsorted(codes, np.arange(len(names) + 1))  # the table is in feature order
    loss = table.Gain.to_numpy(dtype=np.float32)
    valid = table.Valid.to_numpy()
    picked = np.zeros(len(table), dtype=bool)
    for a, b in zip(ends[:-1], ends[1:], strict=True):
        _pick(loss, valid, a, b, np.int64(top), picked)
    return CandidateSummary(table[picked].reset_index(drop=True),
                            pd.Series(np.diff(ends), index=list(names), name="Candidates"))


class SortedRows(NamedTuple):
    """Each feature's present rows sorted by value, ties by row index (``exact.columns``'
    ``sort_columns``, the order its grower scans): ``rows[col_ptr[f]:col_ptr[f + 1]]`` and
    their ``values``; ``need_forward[f]``: the forward (missing -> right) scan runs."""

    col_ptr: np.ndarray
    rows: np.ndarray
    values: np.ndarray
    need_forward: np.ndarray


def sorted_rows(X: np.ndarray) -> SortedRows:
    """``X``'s columns sorted once, for every node's candidates."""
    return SortedRows(*sort_columns(read_only(X)))


def split_candidates(columns: SortedRows, in_node, g, h, params, names, split_made: bool,
                     allowed=None, features=None, keep=None) -> pd.DataFrame:
    """DataFrame of every candidate split of the node whose rows ``in_node`` marks;
    ``columns``: the training rows sorted (``sorted_rows``); ``features``: only these
    (indices, ascending; default all); ``keep``: only the rows it chooses (``_frame``).

    ``Best`` marks the candidate the exact search picks (only when the node was split):
    the first, in scan order, of the largest valid gains, lower feature index first.
    """
    features = (np.arange(len(names), dtype=np.int64) if features is None
                else np.asarray(features, dtype=np.int64))
    (feat, thr, left, nl, gl, hl, gr, hr, loss, valid, psim) = _enumerate(
        in_node, columns.col_ptr, columns.rows, columns.values, g, h, columns.need_forward,
        features, _chunks(len(features)), NodeParams.of(params))
    return _frame(names, feat, thr, left, nl, int(in_node.sum()), gl, hl, gr, hr, loss, valid,
                  psim, params, split_made, allowed, keep=keep)


def candidate_summary(columns: SortedRows, in_node, g, h, params, names, split_made: bool,
                      allowed=None, top: int = 15) -> CandidateSummary:
    """``CandidateSummary`` of the node whose rows ``in_node`` marks (as ``split_candidates``
    but keeping only ``_pick``'s candidates of each feature: at 100k rows x 30 features a
    root has millions)."""
    *kept, psim, counts = _summarize(in_node, columns.col_ptr, columns.rows, columns.values, g,
                                     h, columns.need_forward, np.int64(top),
                                     _chunks(len(names)), NodeParams.of(params))
    feat, thr, left, nl, gl, hl, gr, hr, loss, valid = kept
    table = _frame(names, feat, thr, left, nl, int(in_node.sum()), gl, hl, gr, hr, loss, valid,
                   psim, params, split_made, allowed)
    return CandidateSummary(table, pd.Series(counts, index=list(names), name="Candidates"))


def _chunks(n_features: int) -> np.int64:
    """The threads a scan of ``n_features`` features runs on: numba's, at most one a
    feature."""
    return np.int64(max(1, min(numba.get_num_threads(), n_features)))


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
