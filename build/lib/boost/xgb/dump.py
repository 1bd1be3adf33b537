"""Model dumps: XGBoost's JSON and text dumps and ``trees_to_dataframe``, plus the trace columns.

Numbers are printed as XGBoost prints them (``%.9g`` of the float32 value), so a dump of this
engine's model is string-equal to XGBoost's dump of the same model. Both dumps are one walk
of the tree (``_subtree``); only the lines each format prints differ (``_Json``, ``_Text``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from .._dtypes import REASON_NAMES, NodeParams
from ..split_math import similarities
from ..tree import Forest


def fmt(value) -> str:
    """XGBoost's number format in dumps: the float32 value with 9 significant digits."""
    return f"{float(np.float32(value)):.9g}"


class _Split(NamedTuple):
    """A split node as the dumps print it (numbers already in ``fmt``; stats None without
    ``with_stats``)."""

    nid: int
    depth: int
    feature: str
    threshold: str
    yes: int
    no: int
    missing: int
    gain: str | None
    cover: str | None


class _Json:
    """XGBoost's ``json`` dump: a node per line, children nested in a list."""

    @staticmethod
    def leaf(nid: int, depth: int, value: str, cover: str | None) -> str:
        stats = f' , "cover": {cover}' if cover is not None else ""
        return f'{"  " * (depth + 1)}{{ "nodeid": {nid}, "leaf": {value}{stats} }}'

    @staticmethod
    def split(s: _Split, children: list[str]) -> str:
        indent = "  " * (s.depth + 1)
        stats = f', "gain": {s.gain}, "cover": {s.cover}' if s.cover is not None else ""
        return (f'{indent}{{ "nodeid": {s.nid}, "depth": {s.depth}, "split": "{s.feature}", '
                f'"split_condition": {s.threshold}, "yes": {s.yes}, "no": {s.no}, '
                f'"missing": {s.missing} {stats}, "children": [\n'
                + ", \n".join(children) + f"\n{indent}]}}")


class _Text:
    """XGBoost's ``text`` dump: a node per line, indented by tabs, children after it."""

    @staticmethod
    def leaf(nid: int, depth: int, value: str, cover: str | None) -> str:
        tabs = "\t" * depth
        stats = f",cover={cover}" if cover is not None else ""
        return f"{tabs}{nid}:leaf={value}{stats}\n"

    @staticmethod
    def split(s: _Split, children: list[str]) -> str:
        tabs = "\t" * s.depth
        stats = f",gain={s.gain},cover={s.cover}" if s.cover is not None else ""
        return (f"{tabs}{s.nid}:[{s.feature}<{s.threshold}] "
                f"yes={s.yes},no={s.no},missing={s.missing}{stats}\n" + "".join(children))


_FORMATS = {"json": _Json, "text": _Text}


def _subtree(forest: Forest, off: int, nid: int, names, with_stats: bool, form) -> str:
    """Node ``nid`` of the tree at ``off`` and everything below it in ``form``'s format: the
    one walk of both dumps (depth first, the yes child first; a missing value follows the
    default side)."""
    i = off + nid
    depth = int(forest.depth[i])
    cover = fmt(forest.sum_hess[i]) if with_stats else None
    if forest.is_leaf[i]:
        return form.leaf(nid, depth, fmt(forest.value[i]), cover)
    yes, no = int(forest.left[i]), int(forest.right[i])
    split = _Split(nid, depth, names[forest.feature[i]], fmt(forest.threshold[i]), yes, no,
                   yes if forest.default_left[i] else no,
                   fmt(forest.loss_chg[i]) if with_stats else None, cover)
    return form.split(split, [_subtree(forest, off, c, names, with_stats, form)
                              for c in (yes, no)])


def get_dump(forest: Forest, names, dump_format: str = "json", with_stats: bool = True):
    """One string per tree, in XGBoost's ``json`` or ``text`` dump format."""
    form = _FORMATS.get(dump_format)
    if form is None:
        raise ValueError(f"dump_format = {dump_format!r}: use 'json' or 'text'.")
    return [_subtree(forest, int(forest.tree_ptr[t]), 0, names, with_stats, form)
            for t in range(forest.n_trees)]


XGBOOST_COLUMNS = ["Tree", "Node", "ID", "Feature", "Split", "Yes", "No", "Missing", "Gain",
                   "Cover", "Category"]
TRACE_COLUMNS = ["Round", "Class", "Depth", "Parent", "SumGrad", "SumHess", "Similarity",
                 "Weight", "Value", "Leaf", "Pruned", "Reason"]


def _to_9g(values: np.ndarray) -> np.ndarray:
    # The float XGBoost's dataframe holds: its dump's %.9g text parsed back.
    return np.array([float(fmt(v)) for v in values], dtype=np.float64)


def trees_to_dataframe(forest: Forest, names, params, include_pruned: bool = False
                       ) -> pd.DataFrame:
    """XGBoost's ``trees_to_dataframe`` columns plus the trace (see ``Booster``)."""
    n_groups = params.num_output_group
    rp = NodeParams.of(params)
    sizes = np.diff(forest.tree_ptr)
    tree = np.repeat(np.arange(forest.n_trees), sizes)
    node = np.concatenate([np.arange(s) for s in sizes]) if len(sizes) else np.empty(0, int)
    keep = np.ones(len(node), dtype=bool) if include_pruned else ~forest.removed
    # With include_pruned the split columns describe the tree as grown; otherwise the model.
    split_row = (forest.left != -1) if include_pruned else ~forest.is_leaf
    leaf_row = ~split_row
    # hist/approx pre-pruning: a leaf whose best split gamma refused keeps that split (no
    # children) in the grown view, as a collapsed exact node keeps its pruned one.
    refused = include_pruned & (forest.left == -1) & (forest.feature != -1)
    plain_leaf = leaf_row & ~refused

    def ref(local):
        return np.where(split_row, [f"{t}-{c}" for t, c in zip(tree, local, strict=True)], None)

    pairs = zip(plain_leaf, forest.feature, strict=True)
    feature = np.array(["Leaf" if leaf else str(names[f]) for leaf, f in pairs], dtype=object)
    missing_child = np.where(forest.default_left, forest.left, forest.right)
    gain = np.where(plain_leaf, _to_9g(forest.value), _to_9g(forest.loss_chg))
    df = pd.DataFrame({
        "Tree": tree,
        "Node": node,
        "ID": [f"{t}-{c}" for t, c in zip(tree, node, strict=True)],
        "Feature": feature,
        "Split": np.where(plain_leaf, np.nan, _to_9g(forest.threshold)),
        "Yes": ref(forest.left),
        "No": ref(forest.right),
        "Missing": ref(missing_child),
        "Gain": gain,
        "Cover": _to_9g(forest.sum_hess),
        "Category": np.full(len(node), np.nan),
        "Round": tree // n_groups + 1,
        "Class": tree % n_groups,
        "Depth": forest.depth.astype(np.int64),
        "Parent": forest.parent.astype(np.int64),
        "SumGrad": np.asarray(forest.sum_grad, dtype=np.float64),
        "SumHess": np.asarray(forest.sum_hess, dtype=np.float64),
        # A loaded model's G is unknown (NaN), and so is its similarity.
        "Similarity": np.where(np.isnan(forest.sum_grad), np.nan, similarities(
            forest.sum_grad, forest.sum_hess, rp)),
        "Weight": forest.weight.astype(np.float64),
        "Value": forest.value.astype(np.float64),
        "Leaf": np.asarray(forest.is_leaf & ~forest.removed, dtype=bool),
        "Pruned": np.asarray(forest.removed, dtype=bool),
        "Reason": [REASON_NAMES[int(r)] for r in forest.reason],
    })
    return df.loc[keep].reset_index(drop=True)
