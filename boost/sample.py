"""A data sample attached to a model (``Booster.with_data``): the rows the round views and
the candidate splits are recomputed on, when the training rows are not at hand (a model read
from an XGBoost file, or any model looked at on other data).

What the sample gives (docs/design.md, "XGBoost model files"): its float32 X, y and weights,
the margins after a few rounds (checkpoints, one pass over the trees), the sample's loss per
round, and what the split search needs on these rows — exact's forward-scan flags, the
cuts hist and approx sketch on the sample. The parameters of the search are the model's own
where it has them (a model from ``boost.train``), else the ones given, else XGBoost's
defaults; the random draws (``subsample``, ``colsample_*``) are off, since the sample's rows
are not the ones the draws picked.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from . import metrics, objectives, ranking
from .data import as_features, as_labels, as_weights
from .exact import SortedColumns
from .params import DRAWS, SEARCH, Params, canonical, parse_params
from .sketch import Cuts, approx_columns, approx_cuts, hist_cuts
from .tree import add_tree_outputs, checkpoint_every, initial_margin


def search_params(p: Params, given: dict | None, from_file: bool) -> Params:
    """The parameters the sample's split search runs with: ``p`` with ``given`` (only the
    names in ``params.SEARCH``) and no random draws."""
    given = canonical(given)
    other = sorted(set(given) - set(SEARCH))
    if other:
        raise ValueError(
            f"with_data's params set the split search recomputed on the sample; "
            f"{', '.join(other)} cannot be set there. Give only "
            f"{', '.join(SEARCH)}.")
    if not from_file and given:
        changed = {k: v for k, v in given.items() if p.to_dict().get(k) != v}
        if changed:
            raise ValueError(
                f"This model was trained by boost.train, which knows its own {', '.join(changed)}; "
                "with_data takes params only for a model read from a file.")
    return parse_params({**p.to_dict(), **{d: 1.0 for d in DRAWS}, **given})


def rows(X, y, sample_weight, feature_names, p: Params, qid=None):
    """The sample's float32 X, y (None without a target), weights and query groups (a
    ranking objective's ``ranking.Queries``, else None), checked."""
    if isinstance(X, pd.DataFrame):  # columns by name: a sample may hold more (its target)
        absent = [f for f in feature_names if f not in X.columns]
        if absent:
            raise ValueError(
                f"The data sample lacks the model's feature(s) {', '.join(map(str, absent))}; "
                f"it needs a column for each of the model's {len(feature_names)} features "
                f"({', '.join(map(str, feature_names))}), named as in the model.")
        X = X[list(feature_names)]
    X32, _ = as_features(X, expected_names=feature_names)
    if X32.shape[0] == 0:
        raise ValueError("The data sample has no rows; give at least one row.")
    y32 = None if y is None else as_labels(y, X32.shape[0], p.objective, p.num_class)
    queries = None
    if objectives.spec(p.objective).task == "ranking":
        weight = None if sample_weight is None else as_weights(
            sample_weight, len(np.asarray(sample_weight).reshape(-1)))
        queries = ranking.queries_of(qid, X32.shape[0], weight)
        if y32 is not None:
            ranking.check_labels(p.objective, y32, p.loss.rank)
        w32 = queries.row_weights()
        w32 = None if w32 is None else np.array(w32, dtype=np.float32)
    elif qid is not None:
        raise ValueError("qid (query ids) applies to the ranking objectives (rank:ndcg, "
                         "rank:map, rank:pairwise); this model's objective is "
                         f"{p.objective}.")
    else:
        w32 = as_weights(sample_weight, X32.shape[0])
    for arr in (X32, y32, w32):
        if arr is not None:
            arr.flags.writeable = False
    return X32, y32, w32, queries


def need_forward(X32: np.ndarray, p: Params) -> np.ndarray | None:
    """exact: which features run the forward scan on the sample."""
    return SortedColumns(X32).need_forward if p.tree_method == "exact" else None


def margins_and_losses(forest, base_margin, X32, y32, w32, p: Params, n_rounds: int,
                       queries=None):
    """One pass over the trees: margin checkpoints ({round: margins}, about 16) and, with a
    target, the sample's loss (the objective's default metric) after every round."""
    g = p.num_output_group
    every = checkpoint_every(n_rounds, X32.shape[0], g)
    margin = initial_margin(X32.shape[0], base_margin)
    checkpoints, losses = {}, []
    for r in range(n_rounds + 1):
        if r > 0:
            add_tree_outputs(forest, X32, margin, (r - 1) * g, r * g)
        if r % every == 0 and 0 < r < n_rounds:
            checkpoints[r] = margin.copy()
            checkpoints[r].flags.writeable = False
        if y32 is not None:
            losses.append(metrics.metric(p.objective, margin, y32, w32, p.loss, queries))
    return checkpoints, (np.array(losses) if y32 is not None else None)


def sketch(X32, w32, p: Params, hess) -> Cuts:
    """The cuts a tree's candidates are recomputed on: hist's one sketch of the sample (by
    its weights); approx's sketch weighted by the tree's hessians (``hess``: h of the tree,
    times the weights) — as training sketches the training rows."""
    if p.tree_method == "hist":
        return hist_cuts(X32, w32, p.max_bin)
    return approx_cuts(X32, w32, hess, p.max_bin, approx_columns(X32, p.objective))
