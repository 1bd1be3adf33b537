"""The same data and parameters trained with Newton (XGBoost) and first-order (Friedman)
boosting: loss curves together, the round's two trees and their leaves side by side."""

from __future__ import annotations

import streamlit as st

from boost import objectives
from boost.params import BY_NAME
from viz.loss import make_loss_comparison_figure
from viz.tree import make_tree_figure
from viz.tree_layout import default_collapsed

from ..charts import class_picker, show
from ..state import AppState, Shown
from ..training import missing_features, train_other

SLUG = "newton-vs-first-order"
HALF_WIDTH = 400  # px: each of the two trees in a 1280 px window with the sidebar open
HALF_LEAVES = 32  # more leaves than this: the deepest levels start collapsed
TITLE = "Newton vs first-order"
_BOOSTING = BY_NAME["boosting"]
EXPLAIN = ("Both trees of round 1 fit the gradients of the same baseline: the difference is "
           "only how they use them. Newton scores splits by G²/(H + λ) and sets w = −G/(H + λ); "
           "first-order fits −g by least squares (H counts rows) and then gives each leaf the "
           "value that minimises the loss (or one Newton step towards it). After round 1 the "
           "models have different margins, so their gradients differ too.")


def render(state: AppState, shown: Shown) -> None:
    booster, config, r = shown.booster, shown.config, shown.round
    if objectives.spec(booster.objective).task == "ranking":
        st.info("First-order boosting fits −g by least squares and then gives each leaf the "
                "value that minimises the loss of its rows; a ranking's loss is not a sum over "
                f"rows ({booster.objective}'s g come from pairs of documents of a query), so "
                "ranking trains with Newton boosting only, as XGBoost does. The Ranking pairs "
                "view shows where each document's g comes from.")
        return
    models = {}
    with st.spinner("Training the other kind of boosting…", show_time=True):
        for mode in _BOOSTING.choices:
            models[mode] = (booster if mode == config["boosting"]
                            else train_other(state, {**config, "boosting": mode}))
    if any(m is None for m in models.values()):
        st.info("Train on the current data to compare Newton and first-order boosting.")
        return
    show(make_loss_comparison_figure(
        {_BOOSTING.choice_label(m): b.loss_history() for m, b in models.items()}, r,
        booster.metric_name, shown.large), "cmp_loss", state, shown)
    if shown.compact:  # a presenter panel: the loss curves alone
        return
    if r == 0:
        st.info("Step to round 1: both start from the same baseline; from round 1 on, "
                "compare their trees.")
        return
    klass = class_picker(shown, "cmp_klass")
    st.caption(EXPLAIN)
    for col, (mode, model) in zip(st.columns(2), models.items(), strict=True):
        with col:
            _side(state, shown, mode, model, klass)


def _side(state: AppState, shown: Shown, mode: str, model, klass: int) -> None:
    r = shown.round
    n = model.num_boosted_rounds()
    if r > n:
        st.info(f"{_BOOSTING.choice_label(mode)} stopped early after round {n}.")
        return
    trees = model.trace.trees()
    tree = trees[(trees.Round == r) & (trees.Class == klass)]
    collapsed = default_collapsed(tree, max_leaves=HALF_LEAVES)
    show(make_tree_figure(tree, float(model.params["gamma"]), None,
                          title=f"{_BOOSTING.choice_label(mode)}, round {r}", large=shown.large,
                          width=HALF_WIDTH, collapsed=collapsed,
                          missing_features=missing_features(shown.config, shown.prep.X_train)),
         f"cmp_tree_{mode}", state, shown, exact=True)
    if collapsed:
        depth = min(int(d) for d in tree.Depth[tree.Node.isin(collapsed)])
        st.caption(f"Levels below depth {depth} are collapsed (⊞) to fit; the Tree and "
                   "splits view shows the whole tree.")
    leaves = tree[tree.Leaf & ~tree.Pruned][["Node", "SumGrad", "SumHess", "Weight", "Value"]]
    st.dataframe(leaves.rename(columns={"SumGrad": "G", "SumHess": "H (cover)", "Weight": "w",
                                        "Value": "η·w"}), hide_index=True)
