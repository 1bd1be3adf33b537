"""The round's tree (click a node), the selected node's candidate splits and worked
arithmetic, and the tree as a table."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from viz.arithmetic import steps_latex, steps_table, worked_arithmetic
from viz.candidates import make_candidates_figure, top_candidates
from viz.tree import make_tree_figure, selected_node
from viz.tree_layout import default_collapsed

from ..charts import chart_config, class_name
from ..state import AppState, Shown
from ..training import missing_features, node_candidates, tree_frame

SLUG = "tree"
TITLE = "Tree and splits"
TABLE_COLUMNS = ["Class", "Node", "Depth", "Feature", "Split", "Yes", "No", "Missing", "Gain",
                 "Cover", "SumGrad", "SumHess", "Similarity", "Weight", "Value", "Leaf",
                 "Pruned", "Reason"]


def render(state: AppState, shown: Shown) -> None:
    booster, prep, r = shown.booster, shown.prep, shown.round
    if r == 0:
        st.info(f"Round 0 is the baseline: every row starts at base_score "
                f"{', '.join(f'{v:.4g}' for v in booster.base_score)} "
                "(margin " + ", ".join(f"{v:.4g}" for v in booster.base_margin) + ").")
        return
    frame = tree_frame(shown.config, booster)
    df = frame[frame.Round == r]
    klass = 0
    if booster.num_groups > 1:
        klass = st.selectbox("Class (one tree per class per round)",
                             list(range(booster.num_groups)), key=AppState.klass.key,
                             format_func=lambda k: f"{k}: {class_name(shown, k)}")
    tree = df[df.Class == klass]
    sampling_caption(booster, r, klass)
    node = state.node if state.node in set(tree.Node) else None
    collapsed = _collapsed(state, shown, tree, klass)
    controls, collapse = st.columns([1, 2], vertical_alignment="bottom")
    follow = controls.number_input(
        "Follow a row through the tree", 0, len(prep.y_train) - 1, value=None,
        key="follow_row", placeholder="row of the training set",
        help="Draws the path of one training row from the root to its leaf.")
    with collapse:
        collapse_buttons(state, tree, node, collapsed)
    path = (booster.decision_path(prep.X_train.iloc[follow].to_numpy(), r, klass)
            if follow is not None else None)
    title = (f"Tree of round {r}" + (f", class {klass}" if booster.num_groups > 1 else "")
             + " — click a node")
    st.plotly_chart(make_tree_figure(tree, float(booster.params["gamma"]), node, title=title,
                                     large=shown.large, path=path, collapsed=collapsed,
                                     missing_features=missing_features(shown.config,
                                                                       prep.X_train)),
                    key=AppState.tree_chart.key, on_select=lambda: _node_clicked(state),
                    selection_mode="points", config={**chart_config(state), "scrollZoom": True})
    n_leaves = int(tree.Leaf.sum())
    if collapsed and collapsed == _default(tree):
        depth = min(int(d) for d in tree.Depth[tree.Node.isin(collapsed)])
        st.caption(f"This tree has {n_leaves} leaves: the levels below depth {depth} are "
                   "collapsed (⊞) so every label stays readable. Click a node and expand it, "
                   "or Expand all, then zoom (scroll) and pan (drag).")
    if node is None:
        st.caption("Click a node of the tree to see every candidate split it had and its "
                   "arithmetic (the hover text has every number in full). Left branches are "
                   "yes (feature < threshold). " + ("Dashed grey nodes were grown and then "
                                                     "removed by γ-pruning."
                                     if shown.config["tree_method"] == "exact" else
                                     "Dashed stubs mark splits γ refused before growing them."))
    else:
        node_detail(state, shown, tree, node, klass)
    with st.expander(f"Tree of round {r} as a table (XGBoost's trees_to_dataframe + trace)"):
        columns = [c for c in TABLE_COLUMNS if c != "Class" or booster.num_groups > 1]
        st.caption("Gain is XGBoost's loss change of a split; for leaves it holds the leaf "
                   "value η·w, as in XGBoost. Rows with Pruned = True were removed by pruning.")
        st.dataframe(df[columns], hide_index=True)


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


def _default(tree: pd.DataFrame) -> frozenset:
    """The nodes collapsed at first: the deepest levels of a tree too wide to read."""
    return default_collapsed(tree, max_leaves=64)


def _collapsed(state: AppState, shown: Shown, tree: pd.DataFrame, klass: int) -> frozenset:
    """The collapsed nodes of this tree; back to the default when the tree shown changes
    (another model, round or class)."""
    key = (tuple(sorted((k, str(v)) for k, v in shown.config.items())), shown.round, klass)
    if state.collapsed_tree != key:
        state.collapsed_tree = key
        state.collapsed = _default(tree)
    return state.collapsed


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
    state.collapsed = frozenset(collapsed)


def _node_clicked(state: AppState) -> None:
    node = selected_node(state.tree_chart)
    if node is not None:  # an empty event (the selection was cleared by a redraw) keeps it
        state.node = node


def node_detail(state: AppState, shown: Shown, tree: pd.DataFrame, node: int,
                klass: int) -> None:
    booster, r = shown.booster, shown.round
    row = tree[tree.Node == node].iloc[0]
    cand = node_candidates(shown.config, booster, r, node, klass)
    best = cand[cand.Best]
    drawn = set(cand.Feature[cand.Sampled])
    left, right = st.columns([1, 1.1])
    with left:
        features = list(dict.fromkeys(cand.Feature)) or booster.feature_names
        default = best.Feature.iloc[0] if len(best) else features[0]
        feature = st.selectbox("Feature", features, index=features.index(default),
                               key=f"cand_feature_{r}_{klass}_{node}",
                               format_func=lambda f: f if f in drawn else f"{f} (not drawn)")
        if len(drawn) < len(features):
            st.caption(f"colsample: this node could split only on {len(drawn)} of "
                       f"{len(features)} features; the others' candidates are shown but could "
                       "not be chosen.")
        refused = bool(row.Leaf and row.Feature != "Leaf" and row.Yes is None)
        st.plotly_chart(make_candidates_figure(cand, feature, float(booster.params["gamma"]),
                                               large=shown.large, refused=refused),
                        key="cand_chart", config=chart_config(state))
    with right:
        st.markdown(f"**Node {node}, worked out**")
        steps = worked_arithmetic(row, best.iloc[0] if len(best) else None, booster.params,
                                  booster.objective, float(booster.base_margin[klass]))
        for step in steps:
            st.latex(step.latex)
        title = f"BoostScope round {r}, node {node}"
        a, b = st.columns(2)
        a.download_button("LaTeX", steps_latex(steps, title), f"round{r}_node{node}.tex",
                          icon=":material/download:", key="dl_tex")
        b.download_button("CSV", steps_table(steps).to_csv(index=False),
                          f"round{r}_node{node}.csv", icon=":material/download:", key="dl_csv")
    listed = (f"; listed: the {len(drawn)} features this node drew"
              if len(drawn) < len(set(cand.Feature)) else "")
    st.markdown(f"**Best candidate splits of node {node}** ({len(cand)} in all{listed}; "
                "G, H and similarity of both children)")
    st.dataframe(top_candidates(cand), hide_index=True)
