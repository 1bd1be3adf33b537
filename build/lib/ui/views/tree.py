"""The round's tree (click a node), the selected node's candidate splits, worked arithmetic
and tables (drawn by the page from the node's record: ``ui.player.node_details``), one row's
way through the tree, and the tree as a table."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from viz.tree import make_tree_figure
from viz.tree_layout import default_collapsed

from .. import player
from ..charts import clicked_id, show
from ..state import AppState, Shown, ViewKeep
from ..training import missing_features

SLUG = "tree"
TITLE = "Tree and splits"
ON_SAMPLE = True  # works on a model file opened with a data sample (candidates recomputed)
TABLE_COLUMNS = ["Class", "Node", "Depth", "Feature", "Split", "Yes", "No", "Missing", "Gain",
                 "Cover", "SumGrad", "SumHess", "Similarity", "Weight", "Value", "Leaf",
                 "Pruned", "Reason"]


def render(state: AppState, shown: Shown) -> None:
    """The selected node of the round's tree (the player's, above: the root until a node is
    clicked): its candidate splits and worked arithmetic; one row's way through the tree;
    the tree as a table."""
    booster, prep, r = shown.booster, shown.prep, shown.round
    if r == 0:
        _baseline_note(booster)
        return
    frame = booster.trace.trees()
    df = frame[frame.Round == r]
    klass = state.views.class_shown(booster.num_groups)
    tree = df[df.Class == klass]
    sampling_caption(booster, r, klass)
    follow = st.number_input(
        "Follow a row through the tree", 0, len(prep.y_train) - 1, value=None,
        key="follow_row",
        placeholder="row of the sample" if booster.on_sample else "row of the training set",
        help="Draws the path of one row from the root to its leaf.")

    if follow is not None:  # the row's path and its collapse buttons follow the node too
        follow_row(state, shown, tree, selected(state, tree), klass, follow)
    # the selected node's candidates, worked arithmetic and tables: drawn by the page from
    # the node's record (a click on a node of the player's tree sends nothing here)
    player.node_details()
    with st.expander(f"Tree of round {r} as a table (XGBoost's trees_to_dataframe + trace)"):
        columns = [c for c in TABLE_COLUMNS if c != "Class" or booster.num_groups > 1]
        st.caption("Gain is XGBoost's loss change of a split; for leaves it holds the leaf "
                   "value η·w, as in XGBoost. Rows with Pruned = True were removed by pruning.")
        st.dataframe(df[columns], hide_index=True)


def follow_row(state: AppState, shown: Shown, tree: pd.DataFrame, node: int, klass: int,
               row: int) -> None:
    """Round r's tree with one row's way from the root to its leaf drawn on it."""
    booster, prep, r = shown.booster, shown.prep, shown.round
    collapsed = _collapsed(state, shown, tree, klass)
    with st.container():
        collapse_buttons(state, tree, node, collapsed)
    path = booster.decision_path(prep.X_train.iloc[row].to_numpy(), r, klass)
    show(make_tree_figure(tree, float(booster.params["gamma"]), node,
                          title=f"Row {row}'s way through the tree of round {r}",
                          large=shown.large, path=path, collapsed=collapsed,
                          missing_features=missing_features(shown.config, prep.X_train)),
         ViewKeep.tree_chart.key, state, shown, exact=True,
         on_select=lambda: _node_clicked(state), config={"scrollZoom": True})
    if collapsed and collapsed == _default(tree):
        depth = min(int(d) for d in tree.Depth[tree.Node.isin(collapsed)])
        st.caption(f"This tree has {int(tree.Leaf.sum())} leaves: the levels below depth "
                   f"{depth} are collapsed (⊞) so every label stays readable. Click a node and "
                   "expand it, or Expand all, then zoom (scroll) and pan (drag).")


def sampling_caption(booster, r: int, klass: int) -> None:
    """Which rows and features the round's tree could use (subsample, colsample_*)."""
    p = booster.params
    parts = []
    if p["subsample"] < 1:
        used = booster.rows_used(r, klass)
        parts.append(f"grown on **{int(used.sum()):,} of {len(used):,} rows** (subsample "
                     f"{p['subsample']:g}; the others are hollow in the residual view)")
    if p["colsample_bytree"] < 1:
        # the tree's set is the root's set when only bytree samples; show the root's draw
        drawn = booster.features_used(r, 0, klass)
        names = [n for n, u in zip(booster.feature_names, drawn, strict=True) if u]
        parts.append("features drawn for the root: " + ", ".join(f"`{n}`" for n in names))
    if parts:
        st.caption(f"Round {r}'s tree was " + "; ".join(parts) + ".")


def _baseline_note(booster) -> None:
    st.info(f"Round 0 is the baseline: every row starts at base_score "
            f"{', '.join(f'{v:.4g}' for v in booster.base_score)} "
            "(margin " + ", ".join(f"{v:.4g}" for v in booster.base_margin) + "). Step to "
            "round 1 for the first tree.")


def _default(tree: pd.DataFrame) -> frozenset:
    """The nodes collapsed at first: the deepest levels of a tree too wide to read."""
    return default_collapsed(tree, max_leaves=64)


def _collapsed(state: AppState, shown: Shown, tree: pd.DataFrame, klass: int) -> frozenset:
    """The collapsed nodes of this tree; back to the default when the tree shown changes
    (another model, round or class)."""
    key = shown.tree_key(klass)
    if state.views.collapsed_tree != key:
        state.views.collapsed_tree = key
        state.views.collapsed = _default(tree)
    return state.views.collapsed


def collapse_buttons(state: AppState, tree: pd.DataFrame, node: int | None,
                     collapsed: frozenset) -> None:
    """Collapse or expand the selected node's subtree; expand everything."""
    with st.container(horizontal=True):
        if node is not None and node in set(tree.Parent):
            if node in collapsed:
                st.button(f"Expand node {node}", key="tree_expand", icon=":material/add:",
                          on_click=_set_collapsed, args=(state, collapsed - {node}))
            else:
                st.button(f"Collapse node {node}", key="tree_collapse",
                          icon=":material/remove:",
                          on_click=_set_collapsed, args=(state, collapsed | {node}))
        if collapsed:
            st.button("Expand all", key="tree_expand_all", icon=":material/unfold_more:",
                      on_click=_set_collapsed, args=(state, frozenset()))


def _set_collapsed(state: AppState, collapsed: frozenset) -> None:
    state.views.collapsed = frozenset(collapsed)


def _node_clicked(state: AppState) -> None:
    node = clicked_id(state.views.tree_chart)
    if node is not None:  # an event without a node keeps the one selected
        state.stage.select(node)


def selected(state: AppState, tree: pd.DataFrame) -> int:
    """The selected node of ``tree``: the one clicked, or the root until a node of this tree
    is clicked (no panel is a dead end)."""
    return state.stage.node if state.stage.node in set(tree.Node) else 0
