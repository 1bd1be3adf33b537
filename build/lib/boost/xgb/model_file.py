"""XGBoost model files: a JSON or UBJSON model read into the engine's forest, and written back.

The layout is XGBoost 3.2's ``save_model`` (docs/design.md, "XGBoost model files"): the
``learner`` holds the feature names, the objective and its parameters, the intercept
(``learner_model_param.base_score``, in response space) and the ``gbtree`` booster, whose
trees are parallel arrays indexed by node id (children, split feature and condition,
default direction, gain, cover, Newton weight). Numbers are read exactly as XGBoost reads
them: a decimal is rounded once to the nearest float32, a UBJSON float32 is taken bit for
bit, so a loaded model predicts XGBoost's margins to the last bit. Nothing in a file is
evaluated or unpickled; anything this module cannot show faithfully is refused with a
``ValueError`` saying what and what to do.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from decimal import Decimal

import numpy as np
from numba import njit

from .. import objectives
from .._dtypes import FEATURE, INDEX, SUM, WEIGHT, NodeParams
from ..data import default_names
from ..params import BY_NAME, Params, parse_params
from ..records import NODE_FIELDS
from ..split_math import leaf_weights
from ..tree import Forest
from . import ubjson
from .dump import fmt

# XGBoost writes the root's parent, and a deleted node's split index, as this.
NO_NODE = 2147483647
# The layout written: XGBoost 3.2's, so its version.
VERSION = [3, 2, 0]
_HELP = "save the model with XGBoost's Booster.save_model('model.json') (or '.ubj')"


@dataclass(frozen=True)
class ModelFile:
    """Where a loaded model came from, and what only its file says.

    ``params``: the parameters the file states (objective, num_class, the objective's own
    parameters, base_score when it was set rather than estimated); the training
    parameters (eta, max_depth, ...) are not in a model file. ``base_weights``: XGBoost's
    per-node ``base_weights``, flat as the forest's nodes, kept to be written back."""

    name: str
    version: tuple
    params: dict
    base_weights: np.ndarray


@dataclass(frozen=True)
class ModelParts:
    """The parts of a model a file holds: what ``read_model`` gives ``Booster``, and what
    ``write_model`` takes (``file`` is None for a model trained by ``boost.train``)."""

    params: Params
    feature_names: list
    base_score: np.ndarray  # (n_groups,) float32, response space
    base_margin: np.ndarray  # (n_groups,) float32
    forest: Forest
    best_iteration: int | None
    best_score: float | None
    file: ModelFile | None


# ----------------------------------------------------------------------------- reading
def _source_bytes(source) -> tuple[bytes, str]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), "the model"
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as f:
            return f.read(), os.fspath(source)
    if hasattr(source, "read"):  # an open binary file, an upload
        data = source.read()
        if isinstance(data, (bytes, bytearray)):
            return bytes(data), str(getattr(source, "name", "the model"))
    raise ValueError(f"load_model takes a path, bytes or a binary file, not "
                     f"{type(source).__name__}.")


def _parse(data: bytes, name: str):
    """The document of a JSON or UBJSON file. Both start with '{'; after it JSON has a
    quoted key, UBJSON a key length's integer marker."""
    text = data.lstrip()
    if not text:
        raise ValueError(f"{name} is empty: {_HELP}.")
    second = text[1:].lstrip()[:1]
    if text[:1] == b"{" and second not in (b'"', b"}"):
        try:
            return ubjson.loads(data)
        except ValueError as exc:
            raise ValueError(f"{name} is not a readable UBJSON model ({exc}); it may be "
                             f"truncated or corrupt: {_HELP}.") from None
    if text[:1] not in (b"{", b"["):
        raise ValueError(f"{name} is neither JSON nor UBJSON (it starts with {data[:8]!r}): "
                         f"BoostScope reads the .json and .ubj files of XGBoost >= 1.0 (never "
                         f"pickles or the old binary format); {_HELP}.")
    try:
        # Floats are kept as their text: ``_float32s`` rounds each once, as XGBoost does.
        return json.loads(data.decode("utf-8"), parse_float=str)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{name} is not valid JSON ({exc}); it may be truncated or "
                         f"corrupt: {_HELP}.") from None


def _get(obj, key: str, kind, name: str, where: str):
    value = obj.get(key) if isinstance(obj, dict) else None
    if not isinstance(value, kind):
        raise ValueError(f"{name} is not an XGBoost model: '{where}{key}' is missing or not "
                         f"{'an object' if kind is dict else 'what XGBoost writes'}; {_HELP}.")
    return value


def _float32s(values) -> np.ndarray:
    """Numbers as float32, each rounded once from its decimal (or binary) value to the
    nearest float32, ties to even: XGBoost's reading of a model file."""
    if isinstance(values, np.ndarray):  # a typed UBJSON array: binary already
        return values.astype(np.float32)
    texts = [v if isinstance(v, str) else repr(v) for v in values]
    d = np.array([float(t) for t in texts], dtype=np.float64)  # correctly rounded
    f = d.astype(np.float32)
    # A double exactly halfway between two float32s rounds to the even one, yet the decimal
    # it came from may lie just above or below halfway: those are decided exactly.
    f64 = f.astype(np.float64)
    away = np.nextafter(f, np.where(d > f64, np.float32(np.inf), np.float32(-np.inf)))
    with np.errstate(invalid="ignore", over="ignore"):
        tie = (f64 != d) & ((f64 + away.astype(np.float64)) / 2 == d)
    for i in np.nonzero(tie)[0]:
        exact, mid = Decimal(texts[i]), Decimal(float(d[i]))
        if exact != mid and (exact > mid) == (d[i] > f64[i]):
            f[i] = away[i]
    return f


def _ints(values) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise ValueError("not a list of whole numbers")
    return arr.astype(np.int64)


def _number(text, name: str, where: str) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: '{where}' = {text!r} is not a number; {_HELP}.") from None


def _objective(learner: dict, lmp: dict, name: str) -> dict:
    """The parameters the file states: the objective, num_class, and the objective's own
    (every entry of its configuration named in the parameter table)."""
    config = _get(learner, "objective", dict, name, "learner.")
    objective = _get(config, "name", str, name, "learner.objective.")
    spec = objectives.OBJECTIVES.get(objective)
    if spec is None or not spec.xgboost:
        known = ", ".join(n for n, o in objectives.OBJECTIVES.items() if o.xgboost)
        raise ValueError(f"{name} was trained with objective '{objective}', which BoostScope "
                         f"does not know. It shows models of these objectives: {known}; "
                         "retrain with one of them.")
    stated = {"objective": objective}
    for group in config.values():
        for key, text in (group.items() if isinstance(group, dict) else ()):
            p = BY_NAME.get(key)
            if p is not None and not p.train_arg and p.kind is not str:
                value = _number(text, name, f"learner.objective.{key}")
                stated[key] = int(value) if p.kind is int else value
    if spec.task == "multiclass":
        stated["num_class"] = int(_number(lmp.get("num_class"), name,
                                          "learner.learner_model_param.num_class"))
    else:
        stated.pop("num_class", None)
    return stated


def _check_booster(gb: dict, name: str) -> dict:
    """The gbtree model of ``learner.gradient_booster``, or ValueError for the boosters
    BoostScope cannot show."""
    kind = gb.get("name")
    if kind == "dart":
        raise ValueError(f"{name} is a dart model (booster='dart'): dropout rescales its "
                         "trees, which BoostScope does not show. Train with booster='gbtree' "
                         "(XGBoost's default).")
    if kind == "gblinear":
        raise ValueError(f"{name} is a linear model (booster='gblinear'): it has no trees "
                         "to show. Train with booster='gbtree' (XGBoost's default).")
    if kind != "gbtree":
        raise ValueError(f"{name} has booster {kind!r}; BoostScope shows gbtree models only.")
    model = _get(gb, "model", dict, name, "learner.gradient_booster.")
    param = _get(model, "gbtree_model_param", dict, name, "learner.gradient_booster.model.")
    parallel = _number(param.get("num_parallel_tree", "1"), name, "num_parallel_tree")
    if parallel != 1:
        raise ValueError(f"{name} is a boosted random forest (num_parallel_tree = "
                         f"{parallel:g}): BoostScope shows one tree per class and round. "
                         "Train with num_parallel_tree=1.")
    return model


def _categorical(name: str, what: str) -> ValueError:
    return ValueError(f"{name} has categorical splits ({what}): BoostScope shows numeric "
                      "splits (x < threshold) only. One-hot encode the categories (for "
                      "example with pandas.get_dummies) and retrain without "
                      "enable_categorical.")


def _feature_names(learner: dict, n_features: int, name: str) -> list:
    names = learner.get("feature_names") or []
    types = learner.get("feature_types") or []
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"{name}: 'learner.feature_names' is not a list of names; {_HELP}.")
    if "c" in types:
        cats = [n for n, t in zip(names, types, strict=False) if t == "c"] or ["?"]
        raise _categorical(name, "feature(s) " + ", ".join(cats[:5]))
    if names and len(names) != n_features:
        raise ValueError(f"{name} names {len(names)} features but its trees read "
                         f"num_feature = {n_features}: the file is inconsistent; {_HELP}.")
    if len(set(names)) != len(names):
        raise ValueError(f"{name} has duplicate feature names; rename them and retrain.")
    return list(names) or default_names(n_features)


_TREE_INTS = ("left_children", "right_children", "split_indices", "parents", "default_left")
_TREE_FLOATS = ("split_conditions", "loss_changes", "sum_hessian", "base_weights")


def _tree_arrays(tree, t: int, name: str) -> dict:
    """One tree's node arrays (int64 / float32), checked for what BoostScope can show."""
    where = f"learner.gradient_booster.model.trees[{t}]."
    if not isinstance(tree, dict):
        raise ValueError(f"{name}: '{where[:-1]}' is not a tree; {_HELP}.")
    param = _get(tree, "tree_param", dict, name, where)
    if _number(param.get("size_leaf_vector", "1") or "1", name, where + "size_leaf_vector") > 1:
        raise ValueError(f"{name} has vector leaves (multi_strategy='multi_output_tree'): "
                         "BoostScope shows one tree per class. Train with multi_strategy="
                         "'one_output_per_tree' (XGBoost's default).")
    if np.any(np.asarray(tree.get("split_type", []))) or len(tree.get("categories_nodes", [])):
        raise _categorical(name, f"tree {t}")
    arrays = {}
    for key in _TREE_INTS + _TREE_FLOATS:
        values = tree.get(key)
        try:
            if not isinstance(values, (list, np.ndarray)):
                raise ValueError
            arrays[key] = _ints(values) if key in _TREE_INTS else _float32s(values)
        except (ValueError, TypeError):
            raise ValueError(f"{name}: '{where}{key}' is missing or not a list of numbers; "
                             f"the file may be corrupt: {_HELP}.") from None
    n = len(arrays["left_children"])
    stated = param.get("num_nodes", str(n))
    if n == 0 or any(len(a) != n for a in arrays.values()) or stated != str(n):
        raise ValueError(f"{name}: tree {t}'s node arrays disagree in length (num_nodes = "
                         f"{stated}); the file may be corrupt: {_HELP}.")
    return arrays


# What ``_walk_trees`` finds wrong with a tree.
_BAD_CHILD, _NOT_SIDE_BY_SIDE, _REACHED_TWICE, _BAD_FEATURE, _BAD_PARENT = 1, 2, 3, 4, 5
_PROBLEMS = {
    _BAD_CHILD: "has a child id outside the tree, or only one child",
    _NOT_SIDE_BY_SIDE: "has children not stored side by side (right = left + 1), as every "
                       "tree XGBoost grows has them",
    _REACHED_TWICE: "is reached twice from the root (the tree has a cycle or shared nodes)",
    _BAD_FEATURE: "splits on a feature beyond num_feature",
    _BAD_PARENT: "is deleted, with a parent outside the tree",
}


@njit(cache=True, nogil=True)
def _walk_trees(tree_ptr, left, right, feature, n_features, file_parent, parent, depth,
                reached):
    """Walk every tree from its root, filling each reached node's parent (-1 at the root)
    and depth; a node not reached (deleted by pruning) keeps the file's parent, which
    XGBoost follows when it loads the tree. Returns (tree, node, problem) of the first node
    that is not a binary split XGBoost would walk, or (-1, -1, 0)."""
    stack = np.empty(left.shape[0], dtype=np.int64)
    for t in range(tree_ptr.shape[0] - 1):
        off = tree_ptr[t]
        n = tree_ptr[t + 1] - off
        stack[0] = 0
        top = 1
        reached[off] = True
        parent[off] = -1
        depth[off] = 0
        while top > 0:
            top -= 1
            node = stack[top]
            a = left[off + node]
            b = right[off + node]
            if a == -1 and b == -1:
                continue
            if a < 0 or a >= n or b < 0 or b >= n:
                return t, node, _BAD_CHILD
            if b != a + 1:
                return t, node, _NOT_SIDE_BY_SIDE
            if feature[off + node] < 0 or feature[off + node] >= n_features:
                return t, node, _BAD_FEATURE
            for c in (a, b):
                if reached[off + c]:
                    return t, node, _REACHED_TWICE
                reached[off + c] = True
                parent[off + c] = node
                depth[off + c] = depth[off + node] + 1
                stack[top] = c
                top += 1
        for node in range(n):
            if not reached[off + node]:
                if file_parent[off + node] < 0 or file_parent[off + node] >= n:
                    return t, node, _BAD_PARENT
                parent[off + node] = file_parent[off + node]
    return -1, -1, 0


def _forest(model: dict, n_groups: int, n_features: int, name: str):
    """The file's trees as a read-only ``Forest`` (training-only fields NaN: G, w, internal
    values; deleted nodes marked removed), and XGBoost's base_weights, flat."""
    trees = _get(model, "trees", list, name, "learner.gradient_booster.model.")
    parts = [_tree_arrays(tree, t, name) for t, tree in enumerate(trees)]
    stated = model["gbtree_model_param"].get("num_trees", str(len(trees)))
    groups = np.asarray(model.get("tree_info", np.arange(len(trees)) % n_groups))
    if stated != str(len(trees)) or len(trees) % n_groups or not np.array_equal(
            groups, np.arange(len(trees)) % n_groups):
        raise ValueError(f"{name}: its {len(trees)} trees (num_trees = {stated}) are not "
                         f"whole rounds of {n_groups} tree(s) in class order; the file may "
                         f"be corrupt: {_HELP}.")
    tree_ptr = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum([len(p["left_children"]) for p in parts], out=tree_ptr[1:])

    def cat(key, dtype):
        return np.concatenate([p[key] for p in parts]).astype(dtype) if parts else np.empty(
            0, dtype)

    left, right, feature, file_parent = (cat(k, np.int64) for k in _TREE_INTS[:4])
    n = len(left)
    parent, depth = np.full(n, -1, dtype=INDEX), np.zeros(n, dtype=INDEX)
    reached = np.zeros(n, dtype=np.bool_)
    t, node, problem = _walk_trees(tree_ptr, left, right, feature, n_features, file_parent,
                                   parent, depth, reached)
    if problem:
        raise ValueError(f"{name}: node {node} of tree {t} {_PROBLEMS[problem]}; the file "
                         f"was not written by XGBoost's save_model, or is corrupt: {_HELP}.")
    leaf = ~reached | (left == -1)
    cond = cat("split_conditions", np.float32)
    nodes = {
        "parent": parent, "depth": depth,
        "left": np.where(leaf, -1, left).astype(INDEX),
        "right": np.where(leaf, -1, right).astype(INDEX),
        "feature": np.where(leaf, -1, feature).astype(INDEX),
        "threshold": np.where(leaf, 0, cond).astype(FEATURE),
        "default_left": cat("default_left", np.int64) != 0,
        "loss_chg": cat("loss_changes", np.float32),
        "sum_grad": np.full(n, np.nan, dtype=SUM),
        "sum_hess": cat("sum_hessian", np.float32).astype(SUM),
        "weight": np.full(n, np.nan, dtype=WEIGHT),
        "reason": np.zeros(n, dtype=np.int8),
        "value": np.where(leaf, cond, np.nan).astype(WEIGHT),
        "is_leaf": leaf, "removed": ~reached,
    }
    forest = Forest(tree_ptr=tree_ptr, tree_group=(np.arange(len(parts)) % n_groups).astype(
        np.int32), **{k: nodes[k] for k in NODE_FIELDS})
    for k in ("tree_ptr", "tree_group", *NODE_FIELDS):
        getattr(forest, k).flags.writeable = False
    return forest, cat("base_weights", np.float32)


def _intercept(lmp: dict, objective: str, n_groups: int, name: str):
    """(base_score, base_margin), each (n_groups,) float32: ``base_score`` is "[v, ...]"
    (XGBoost 3) or "v" (XGBoost 1 and 2) in response space."""
    where = "learner.learner_model_param.base_score"
    text = _get(lmp, "base_score", str, name, "learner.learner_model_param.").strip()
    inner = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    try:
        values = _float32s([s.strip() for s in inner.split(",")])
    except ValueError:
        raise ValueError(f"{name}: '{where}' = {text!r} is not a list of numbers.") from None
    if len(values) == 1:
        values = np.full(n_groups, values[0], dtype=np.float32)
    if len(values) != n_groups:
        raise ValueError(f"{name}: '{where}' has {len(values)} values for {n_groups} classes.")
    with np.errstate(all="ignore"):
        margin = objectives.base_margin(objective, values, n_groups)
    if not np.all(np.isfinite(margin)):
        raise ValueError(f"{name}: base_score {text} has no finite margin under {objective}.")
    return values, margin


def read_model(source) -> ModelParts:
    """An XGBoost model file (``Booster.save_model``'s JSON or UBJSON, XGBoost >= 1.0):
    ``source`` is a path, bytes or a binary file object. ValueError says what is not
    supported or not readable, and what to do."""
    data, name = _source_bytes(source)
    doc = _parse(data, name)
    if isinstance(doc, list):
        raise ValueError(f"{name} is a list, as a tree dump (get_dump, dump_model) is: a "
                         f"dump lacks the objective and the intercept; {_HELP}.")
    learner = _get(doc, "learner", dict, name, "")
    lmp = _get(learner, "learner_model_param", dict, name, "learner.")
    model = _check_booster(_get(learner, "gradient_booster", dict, name, "learner."), name)
    if _number(lmp.get("num_target", "1"), name, "num_target") > 1:
        raise ValueError(f"{name} predicts several targets (num_target > 1): BoostScope "
                         "shows single-target models. Train one model per target.")
    n_features = int(_number(lmp.get("num_feature"), name, "num_feature"))
    stated = _objective(learner, lmp, name)
    try:
        params = parse_params(stated)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    n_groups = params.num_output_group
    base_score, base_margin = _intercept(lmp, params.objective, n_groups, name)
    if lmp.get("boost_from_average") == "0" and n_groups == 1:  # set, not estimated
        stated["base_score"] = float(base_score[0])
        params = replace(params, base_score=stated["base_score"])
    names = _feature_names(learner, n_features, name)
    forest, base_weights = _forest(model, n_groups, n_features, name)
    attributes = learner.get("attributes") or {}
    best = attributes.get("best_iteration")
    version = tuple(doc.get("version") or ())
    return ModelParts(
        params=params, feature_names=names, base_score=base_score, base_margin=base_margin,
        forest=forest, best_iteration=None if best is None else int(_number(best, name, "best")),
        best_score=(None if attributes.get("best_score") is None
                    else _number(attributes["best_score"], name, "best_score")),
        file=ModelFile(name=name, version=version, params=stated, base_weights=base_weights))


# ----------------------------------------------------------------------------- writing
def _xgboost_float(x) -> str:
    """A float32 as XGBoost writes it inside a string: shortest digits, 'E' exponent."""
    text = np.format_float_scientific(np.float32(x), unique=True, trim="-", exp_digits=1)
    return text.replace("e+", "E").replace("e-", "E-")


def _base_weights(parts: ModelParts, sl: slice) -> np.ndarray:
    """XGBoost's ``base_weights``: the file's own for a loaded model; else the Newton
    weight w of every node, except that hist and approx store a leaf's as eta * w (the
    Newton one also where absolute error's median then replaced the leaf value)."""
    if parts.file is not None:
        return parts.file.base_weights[sl]
    f, p = parts.forest, parts.params
    w = f.weight[sl]
    if p.tree_method == "exact":
        return w.astype(np.float32)
    f32 = p.as_float32()
    if objectives.spec(p.objective).adaptive_leaf:
        w = leaf_weights(f.sum_grad[sl], f.sum_hess[sl], NodeParams.of(p))
    return np.where(f.is_leaf[sl], w * f32.eta, w).astype(np.float32)


def _tree_document(parts: ModelParts, t: int) -> dict:
    """Tree ``t`` as XGBoost lays it out: every grown node under its own id; a node
    pruning removed is kept as XGBoost keeps a deleted one (split index NO_NODE, default
    left), so the ids, and the dumps, stay XGBoost's."""
    f = parts.forest
    sl = f.node_slice(t)
    removed = f.removed[sl]
    leaf = f.is_leaf[sl] | removed
    # A leaf exact's pruning collapsed keeps its split's feature, direction and gain, as
    # XGBoost's does; a split hist's gamma refused was never made, so it leaves no trace.
    plain = (f.left[sl] == -1) & ~removed
    n = sl.stop - sl.start
    return {
        "base_weights": _base_weights(parts, sl),
        "categories": np.empty(0, dtype=np.int32),
        "categories_nodes": np.empty(0, dtype=np.int32),
        "categories_segments": np.empty(0, dtype=np.int64),
        "categories_sizes": np.empty(0, dtype=np.int64),
        "default_left": np.where(plain & (f.feature[sl] != -1), False,
                                 f.default_left[sl] | removed).astype(np.uint8),
        "id": t,
        "left_children": np.where(leaf, -1, f.left[sl]).astype(np.int32),
        "loss_changes": np.where(plain & (f.feature[sl] != -1), 0, f.loss_chg[sl]).astype(
            np.float32),
        "parents": np.where(f.parent[sl] < 0, NO_NODE, f.parent[sl]).astype(np.int32),
        "right_children": np.where(leaf, -1, f.right[sl]).astype(np.int32),
        "split_conditions": np.where(leaf, f.value[sl], f.threshold[sl]).astype(np.float32),
        "split_indices": np.where(removed, NO_NODE, np.where(plain, 0, f.feature[sl])).astype(
            np.int32),
        "split_type": np.zeros(n, dtype=np.uint8),
        "sum_hessian": f.sum_hess[sl].astype(np.float32),
        "tree_param": {"num_deleted": str(int(removed.sum())),
                       "num_feature": str(len(parts.feature_names)),
                       "num_nodes": str(n), "size_leaf_vector": "1"},
    }


def model_document(parts: ModelParts) -> dict:
    """The model as XGBoost 3.2's ``save_model`` lays it out (docs/design.md)."""
    p, f = parts.params, parts.forest
    spec = objectives.spec(p.objective)
    if not spec.xgboost:
        raise ValueError(f"Objective '{p.objective}' is BoostScope's own: XGBoost cannot "
                         "load a model trained with it.")
    objective = {"name": p.objective}
    if spec.config:
        group, names = spec.config
        values = (getattr(p, BY_NAME[k].field) for k in names)
        objective[group] = {k: str(v) if isinstance(v, int) else fmt(v)
                            for k, v in zip(names, values, strict=True)}
    names = list(parts.feature_names)
    unnamed = names == default_names(len(names))  # trained on an array
    attributes = {} if parts.best_iteration is None else {
        "best_iteration": str(parts.best_iteration), "best_score": repr(float(parts.best_score))}
    g = p.num_output_group
    learner = {
        "attributes": attributes,
        "feature_names": [] if unnamed else names,
        "feature_types": [] if unnamed else ["float"] * len(names),
        "gradient_booster": {"model": {
            "cats": {"enc": [], "feature_segments": [], "sorted_idx": []},
            "gbtree_model_param": {"num_parallel_tree": "1", "num_trees": str(f.n_trees)},
            "iteration_indptr": list(range(0, f.n_trees + 1, g)),
            "tree_info": [int(k) for k in f.tree_group],
            "trees": [_tree_document(parts, t) for t in range(f.n_trees)],
        }, "name": "gbtree"},
        "learner_model_param": {
            "base_score": "[" + ",".join(_xgboost_float(v) for v in parts.base_score) + "]",
            "boost_from_average": "1" if p.base_score is None else "0",
            "num_class": str(p.num_class if p.multiclass else 0),
            "num_feature": str(len(names)), "num_target": "1"},
        "objective": objective,
    }
    return {"learner": learner, "version": list(VERSION)}


def _json(value) -> str:
    """JSON text; float32 arrays with each number's shortest digits (read back exactly)."""
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(str(k), ensure_ascii=False) + ":" + _json(v)
                              for k, v in value.items()) + "}"
    if isinstance(value, np.ndarray):
        items = value.astype(str).tolist()
        return "[" + ",".join("NaN" if s == "nan" else s for s in items) + "]"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_json(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def model_bytes(parts: ModelParts, raw_format: str) -> bytes:
    """The model file's bytes: ``raw_format`` 'json' or 'ubj' (XGBoost's names)."""
    if raw_format not in ("json", "ubj"):
        raise ValueError(f"raw_format = {raw_format!r}: use 'json' or 'ubj'.")
    doc = model_document(parts)
    return _json(doc).encode("utf-8") if raw_format == "json" else ubjson.dumps(doc)


def write_model(path, parts: ModelParts) -> None:
    """Write the model to ``path``: '.json' as JSON, '.ubj' as UBJSON."""
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix not in (".json", ".ubj"):
        raise ValueError(f"save_model writes XGBoost's two formats: name the file '.json' or "
                         f"'.ubj' (got {os.fspath(path)!r}).")
    data = model_bytes(parts, suffix[1:])
    with open(path, "wb") as f:
        f.write(data)
