"""The round's tree (click a node), the selected node's candidate splits and worked
arithmetic, and the tree as a table."""

from __future__ import annotations

import re

import pandas as pd
import streamlit as st

from boost.trace.arithmetic import steps_latex, steps_table, worked_arithmetic
from boost.trace.node_record import NOTES_HELP, best_per_feature, feature_order, top_candidates
from boost.trace.node_record import refused as is_refused
from viz.candidates import make_candidates_figure
from viz.tree import make_tree_figure
from viz.tree_layout import default_collapsed

from .. import player
from ..charts import class_name, clicked_id, show
from ..state import AppState, Shown, ViewKeep
from ..training import missing_features

SLUG = "tree"
TITLE = "Tree and splits"
ON_SAMPLE = True  # works on a model file opened with a data sample (candidates recomputed)
# Tables of numbers: 6 significant digits (float32 sums print as 616064.875 otherwise).
NUMBERS = {c: st.column_config.NumberColumn(format="%.6g")
           for c in ("Gain", "G left", "H left", "G right", "H right", "S left", "S right")}
ALL_CANDIDATES_CSV = 200_000  # rows: a larger CSV is not something to read or download here
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

    def node_part() -> None:  # (the selected node read at each run of its part)
        node = selected(state, tree)
        st.markdown(f"**Node {node} of round {r}"
                    + (f", class {class_name(shown, klass)}" if booster.num_groups > 1 else "")
                    + "** — click another node of the tree above to see its splits")
        node_detail(state, shown, tree, node, klass)

    if follow is not None:  # the row's path and its collapse buttons follow the node too
        follow_row(state, shown, tree, selected(state, tree), klass, follow)
        node_part()
    else:  # a node clicked in the player reruns this part alone
        player.node_part(state, shown, SLUG, node_part)
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


def _detail(shown: Shown, node: int, klass: int):
    """The node's record (``boost.trace.NodeDetail``): its numbers, rows, candidates, gain
    curves and bins, answered once per model by the model's trace."""
    return shown.booster.trace.node_detail(shown.round, node, klass, X=shown.prep.X_train)


def _worked(shown: Shown, detail) -> list:
    """The node's worked arithmetic (its rows' residuals, G, H, similarities, gain, w)."""
    booster = shown.booster
    return worked_arithmetic(detail.numbers, detail.best, booster.search_params,
                             float(booster.base_margin[detail.class_idx]), rows=detail.rows)


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


def node_detail(state: AppState, shown: Shown, tree: pd.DataFrame, node: int,
                klass: int) -> None:
    booster, r = shown.booster, shown.round
    detail = _detail(shown, node, klass)
    row, cand = detail.numbers, detail.summary.table  # each feature's best, top, blocked
    drawn = set(feature_order(cand.Feature[cand.Sampled]))
    left, right = st.columns([1, 1.1])
    with right:
        if booster.on_sample:
            sample_node(booster, row, cand)
        else:
            worked_ui(shown, detail)
    if int(detail.summary.counts.sum()) == 0:  # no chart, no tables of nothing
        left.markdown(f"**No candidate splits at node {detail.node_id}**: its rows cannot "
                      "be divided (a single row, or each feature has one value among them).")
        return
    with left:
        features = detail.features
        default = detail.best.Feature if detail.best is not None else features[0]
        feature = st.selectbox("Feature", features, index=features.index(default),
                               key=f"cand_feature_{r}_{klass}_{node}",
                               format_func=lambda f: f if f in drawn else f"{f} (not drawn)")
        if len(drawn) < len(features):
            st.caption(f"colsample: this node could split only on {len(drawn)} of "
                       f"{len(features)} features; the others' candidates are shown but could "
                       "not be chosen.")
        refused = bool(is_refused(row))
        show(make_candidates_figure(detail.curves[feature], feature,
                                    float(booster.params["gamma"]),
                                    large=shown.large, refused=refused), "cand_chart", state,
             shown)
    _candidate_tables(shown, detail, refused, drawn, features)


def sample_node(booster, row: pd.Series, cand: pd.DataFrame) -> None:
    """A node of a model looked at on a data sample: the model's own gain and cover beside
    the sample's rows, G and H (the candidates are the sample's)."""
    n = int(cand.CountLeft.iloc[0] + cand.CountRight.iloc[0]) if len(cand) else 0
    G = float(cand.SumGradLeft.iloc[0] + cand.SumGradRight.iloc[0]) if len(cand) else 0.0
    H = float(cand.SumHessLeft.iloc[0] + cand.SumHessRight.iloc[0]) if len(cand) else 0.0
    best = cand[cand.Best]
    st.markdown(f"**Node {int(row.Node)}: the model's numbers and the sample's**")
    st.warning("Candidate splits recomputed on the sample: the model's gain and cover come "
               "from its training rows; the candidates, G and H below from the sample's rows "
               "that reach this node.", icon=":material/science:")
    model_split = (f"{row.Feature} < {row.Split:.6g}" if isinstance(row.Feature, str)
                   and row.Feature != "Leaf" else "leaf")
    sample_split = (f"{best.Feature.iloc[0]} < {best.Threshold.iloc[0]:.6g}, gain "
                    f"{best.Gain.iloc[0]:.6g}" if len(best) else "none")
    st.dataframe(pd.DataFrame({
        "": ["split", "gain", "cover (H)", "rows", "G"],
        "model (its training rows)": [model_split, f"{row.Gain:.6g}", f"{row.Cover:.6g}",
                                      "—", "—"],
        "sample": [sample_split, f"{best.Gain.iloc[0]:.6g}" if len(best) else "—",
                   f"{H:.6g}", f"{n:,}", f"{G:.6g}"],
    }), hide_index=True)


def worked_ui(shown: Shown, detail) -> None:
    """The node's worked arithmetic (one block of formulas: each element costs the page a
    message and a render at every node click) with the LaTeX and CSV downloads, written when
    pressed."""
    r, node = shown.round, detail.node_id
    steps = _worked(shown, detail)
    st.markdown(f"**Node {node}, worked out**\n\n" + formulas(steps))
    title = f"BoostScope round {r}, node {node}"
    with st.container(horizontal=True):
        st.download_button("LaTeX", lambda: steps_latex(steps, title), f"round{r}_node{node}.tex",
                           icon=":material/download:", key="dl_tex", on_click="ignore")
        st.download_button("CSV", lambda: steps_table(steps).to_csv(index=False),
                           f"round{r}_node{node}.csv", icon=":material/download:",
                           key="dl_csv", on_click="ignore")


def formulas(steps: list) -> str:
    """Worked steps as one markdown text: a formula a paragraph, set in display style."""
    return "\n\n".join(f"$\\displaystyle {s.latex}$" for s in steps)


def _candidate_tables(shown: Shown, detail, refused: bool, drawn: set, features: list
                      ) -> None:
    booster, r = shown.booster, shown.round
    summary, node, klass = detail.summary, detail.node_id, detail.class_idx
    cand = summary.table
    ranges = detail.bin_ranges
    total = int(summary.counts.sum())
    table = best_per_feature(cand, ranges, refused, counts=summary.counts)
    drawn_note = "; Drawn: could this node split on it (colsample)" if len(drawn) < len(
        features) else ""
    st.markdown(f"**Best split of each feature at node {node}** (sorted by gain{drawn_note})")
    st.dataframe(table, hide_index=True,
                 column_config={**NUMBERS, "Chosen": st.column_config.TextColumn(width=110)},
                 height=min(35 * (len(table) + 1) + 3, 388))
    listed = (f"; listed: the {len(drawn)} features this node drew"
              if len(drawn) < len(features) else "")
    on = " recomputed on the sample" if booster.on_sample else ""
    st.markdown(f"**Best candidate splits of node {node}{on}** ({total:,} in all{listed}; "
                "G, H and similarity S of both children)")
    st.caption(f"Note: {NOTES_HELP}." + (" hist/approx: a threshold is a cut between bins; "
                                         "[a, b] is the range of the training values in the "
                                         "bin just left of it." if ranges is not None else ""))
    st.dataframe(top_candidates(cand, ranges=ranges, refused=refused), hide_index=True,
                 column_config=NUMBERS)
    all_candidates(booster, r, node, klass, total)


def all_candidates(booster, r: int, node: int, klass: int, total: int) -> None:
    """Every candidate of the node as a CSV, computed when the button is pressed (the screen
    keeps only the few it shows)."""
    if total > ALL_CANDIDATES_CSV:
        st.caption(f"All {total:,} candidates: too many for a CSV here; in Python, "
                   f"`bst.split_candidates({r}, {node}{f', {klass}' if klass else ''})` "
                   "gives them all.")
        return
    st.download_button(f"All {total:,} candidates (CSV)",
                       lambda: booster.split_candidates(r, node, klass).to_csv(index=False),
                       f"round{r}_node{node}_candidates.csv", mime="text/csv",
                       icon=":material/download:", on_click="ignore",
                       key=f"dl_all_{r}_{klass}_{node}")


# --------------------------------------------------------------------------- presenter panels
def _round_tree(state: AppState, shown: Shown) -> pd.DataFrame | None:
    """The tree of the round on screen (the chosen class); None at round 0 (said why)."""
    booster, r = shown.booster, shown.round
    if r == 0:
        _baseline_note(booster)
        return None
    frame = booster.trace.trees()
    klass = state.views.class_shown(booster.num_groups)
    return frame[(frame.Round == r) & (frame.Class == klass)]


def selected(state: AppState, tree: pd.DataFrame) -> int:
    """The selected node of ``tree``: the one clicked, or the root until a node of this tree
    is clicked (no panel is a dead end)."""
    return state.stage.node if state.stage.node in set(tree.Node) else 0


def _node_row(state: AppState, shown: Shown):
    """The round's tree and the selected node's row: the root until a node is clicked (no
    panel is a dead end)."""
    tree = _round_tree(state, shown)
    if tree is None:
        return None, None
    return tree, tree[tree.Node == selected(state, tree)].iloc[0]


def node_panel(state: AppState, shown: Shown) -> None:
    """The selected node's worked arithmetic, in large type."""
    tree, row = _node_row(state, shown)
    if row is None:
        return
    detail = _detail(shown, int(row.Node), int(row.Class))
    if shown.booster.on_sample:  # a model file: no training arithmetic, the sample's numbers
        sample_node(shown.booster, row, detail.summary.table)
        return
    steps = _worked(shown, detail)
    start = first_named(steps, state.screen.said)
    with st.container(height=shown.height or "content", border=False, key="node_panel"):
        if shown.large and shown.height:  # in rem: the panel grows with the window's type
            st.html("<style>.st-key-node_panel, div:has(> .st-key-node_panel) { height: "
                    f"{shown.height / REM}rem !important; }}</style>")
        st.markdown(f"**Node {int(row.Node)} of round {shown.round}, worked out**")
        if start:  # the number the lesson's text names goes on top, in view
            with st.expander(f"{start} earlier step{'s' if start > 1 else ''}"):
                st.markdown(formulas(steps[:start]))
        st.markdown(formulas(steps[start:]))


REM = 20  # px per rem at 1280 px wide, where presenter panels' heights are set (ui/present.py)
KEEP_TOP = 2  # worked steps a panel always shows from the top
NUMBER = re.compile(r"-?\d+\.\d+")  # a number a lesson names (with decimals: not a count)


def first_named(steps: list, said: list[str]) -> int:
    """Where a panel of worked steps starts so that the numbers the text on screen names (a
    lesson's step: "the leaf falls from 110.25 to 55.125") are in view: the step before the
    latest first appearance of a named number (a number named again and again, as p = 0.5,
    counts where it first appears); 0 when that is among the first ``KEEP_TOP`` steps (in
    view already) or no step holds one."""
    named = set(NUMBER.findall(" ".join(said)))
    first = {}
    for i, step in enumerate(steps):
        for number in named & set(NUMBER.findall(step.latex)):
            first.setdefault(number, i)
    start = max(first.values()) - 1 if first else 0
    return start if start >= KEEP_TOP else 0


def candidates_panel(state: AppState, shown: Shown) -> None:
    """Every candidate split of the selected node on its best feature: gain against the
    threshold, γ's line, min_child_weight's blocked thresholds."""
    tree, row = _node_row(state, shown)
    if row is None:
        return
    detail = _detail(shown, int(row.Node), int(row.Class))
    feature = detail.best.Feature if detail.best is not None else detail.features[0]
    refused = bool(is_refused(row))
    show(make_candidates_figure(detail.curves[feature], feature,
                                float(shown.booster.params["gamma"]),
                                large=shown.large, refused=refused),
         "cand_panel", state, shown)
