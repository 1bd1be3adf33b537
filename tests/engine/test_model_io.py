"""XGBoost model files, both ways, with XGBoost 3.2 as the oracle.

BoostScope's saved file is XGBoost's own file of the same model (the same document, field
for field); XGBoost loads it and predicts the same margins, bit for bit; a file XGBoost
saved loads into BoostScope with string-equal dumps and bit-equal margins and predictions;
``xgboost_code`` retrains the same trees in XGBoost; what BoostScope cannot show is refused
with a message that says what and what to do."""

import json
import os
import pickle
import struct
import subprocess
import sys
from decimal import Decimal, getcontext
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xgboost as xgb
from oracle import xgb_train

import boost
from boost.objectives import OBJECTIVES
from boost.params import PARAMETERS
from boost.xgb import ubjson
from boost.xgb.model_file import _float32s

ROOT = Path(__file__).resolve().parents[2]
XGB_OBJECTIVES = [name for name, o in OBJECTIVES.items() if o.xgboost]
METHODS = ["exact", "hist", "approx"]


def _data(objective="reg:squarederror", seed=0, n=160, names=False):
    """Rows with 10% missing values and a label the objective accepts."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[rng.random(X.shape) < 0.1] = np.nan
    z = np.nan_to_num(X[:, 0]) - np.nan_to_num(X[:, 1]) ** 2 + rng.normal(size=n) * 0.3
    o = OBJECTIVES[objective]
    extra = {}
    if o.task == "multiclass":
        y = np.digitize(z, np.quantile(z, [1 / 3, 2 / 3])).astype(float)
        extra = {"num_class": 3}
    elif o.task == "binary" or objective == "rank:map":
        y = (z > 0).astype(float)
    elif o.task == "ranking":  # relevance degrees 0..3 (the rows are one query)
        y = np.digitize(z, np.quantile(z, [0.4, 0.7, 0.9])).astype(float)
    elif o.per_alpha:  # two quantiles: two outputs, each its own trees
        y = z * 3 + 1
        extra = {"quantile_alpha": [0.2, 0.8]}
    elif o.link == "exp":
        y = np.round(np.exp(z / 3), 1) + 0.1
    else:
        y = z * 3 + 1
    if names:
        X = pd.DataFrame(X, columns=["age", "dose", "weight", "height"])
    return X, y, extra


def _bits(a) -> np.ndarray:
    return np.asarray(a, dtype=np.float32).view(np.uint32)


def _plain(value):
    """A decoded document with numpy arrays as lists, for comparing."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in (value.tolist() if isinstance(value, np.ndarray) else value)]
    return value


def _assert_same_model(ref: xgb.Booster, ours: boost.Booster, X) -> None:
    """String-equal dumps; margins and predictions equal to the last bit."""
    assert ours.get_dump("json") == ref.get_dump(dump_format="json", with_stats=True)
    assert ours.get_dump("text") == ref.get_dump(dump_format="text", with_stats=True)
    data = xgb.DMatrix(X, missing=np.nan)
    assert np.array_equal(_bits(ours.predict(X, output_margin=True)),
                          _bits(ref.predict(data, output_margin=True)))
    assert np.array_equal(_bits(ours.predict(X)), _bits(ref.predict(data)))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("objective", XGB_OBJECTIVES)
def test_round_trips_both_ways_bit_for_bit(objective, method, tmp_path):
    X, y, extra = _data(objective)
    X_test = _data(objective, seed=1)[0]
    params = {"objective": objective, "tree_method": method, "max_depth": 3, "gamma": 0.5,
              "eta": 0.4, **extra}
    ours = boost.train(params, X, y, 3)
    ref, _ = xgb_train(params, X, y, 3)
    # BoostScope's file is XGBoost's file of the same model, field for field.
    assert json.loads(ours.save_raw("json")) == json.loads(ref.save_raw("json"))
    assert (_plain(ubjson.loads(bytes(ours.save_raw("ubj"))))
            == _plain(ubjson.loads(bytes(ref.save_raw("ubj")))))
    for suffix in ("json", "ubj"):
        path = tmp_path / f"model.{suffix}"
        ours.save_model(path)
        _assert_same_model(xgb.Booster(model_file=str(path)), ours, X_test)
        ref.save_model(str(path))
        loaded = boost.load_model(path)
        for rows in (X, X_test):
            _assert_same_model(ref, loaded, rows)
        loaded.save_model(path)  # and back to XGBoost
        _assert_same_model(xgb.Booster(model_file=str(path)), loaded, X_test)


@pytest.mark.parametrize("objective, base_score", [("binary:logistic", 0.6),
                                                   ("reg:squarederror", 0.3),
                                                   ("count:poisson", 2.0)])
def test_a_set_base_score_is_kept_both_ways(objective, base_score, tmp_path):
    X, y, _ = _data(objective)
    params = {"objective": objective, "base_score": base_score, "max_depth": 2}
    ours = boost.train(params, X, y, 3)
    ref, _ = xgb_train(params, X, y, 3)
    assert json.loads(ours.save_raw("json")) == json.loads(ref.save_raw("json"))
    ref.save_model(str(tmp_path / "ref.ubj"))
    loaded = boost.load_model(tmp_path / "ref.ubj")
    assert loaded.params["base_score"] == pytest.approx(base_score)
    assert loaded.base_score.tolist() == ours.base_score.tolist()
    _assert_same_model(ref, loaded, X)
    # Estimated, it is not a parameter of the loaded model.
    estimated, _ = xgb_train({"objective": objective}, X, y, 1)
    assert "base_score" not in boost.load_model(estimated.save_raw("json")).params


def test_early_stopped_models_keep_their_best_round(tmp_path):
    X, y, _ = _data("binary:logistic", n=300)
    X_val, y_val, _ = _data("binary:logistic", seed=1, n=150)
    params = {"objective": "binary:logistic", "max_depth": 3, "eta": 0.5}
    ours = boost.train(params, X, y, 60, evals=[(X_val, y_val, "valid")],
                       early_stopping_rounds=3)
    ref = xgb.train({**params, "nthread": 1}, xgb.DMatrix(X, label=y, missing=np.nan), 60,
                    evals=[(xgb.DMatrix(X_val, label=y_val, missing=np.nan), "valid")],
                    early_stopping_rounds=3, verbose_eval=False)
    assert ours.num_boosted_rounds() == ref.num_boosted_rounds() < 60
    ours.save_model(tmp_path / "ours.json")
    theirs = xgb.Booster(model_file=str(tmp_path / "ours.json"))
    assert theirs.best_iteration == ref.best_iteration == ours.best_iteration
    _assert_same_model(theirs, ours, X_val)
    ref.save_model(str(tmp_path / "ref.ubj"))
    loaded = boost.load_model(tmp_path / "ref.ubj")
    assert (loaded.best_iteration, loaded.best_score) == (ref.best_iteration, ref.best_score)
    _assert_same_model(ref, loaded, X_val)


def test_models_from_the_scikit_learn_api(tmp_path):
    X, y, _ = _data("binary:logistic", names=True)
    clf = xgb.XGBClassifier(n_estimators=6, max_depth=3, tree_method="hist").fit(X, y)
    clf.save_model(tmp_path / "clf.json")
    loaded = boost.load_model(tmp_path / "clf.json")
    assert loaded.feature_names == list(X.columns) and loaded.objective == "binary:logistic"
    assert np.array_equal(_bits(loaded.predict(X)), _bits(clf.predict_proba(X)[:, 1]))
    _assert_same_model(clf.get_booster(), loaded, X)

    X3, y3, _ = _data("multi:softprob", names=True)
    multi = xgb.XGBClassifier(n_estimators=4, max_depth=2).fit(X3, y3)
    multi.save_model(tmp_path / "multi.ubj")
    loaded = boost.load_model(tmp_path / "multi.ubj")
    assert loaded.num_groups == 3 and loaded.num_boosted_rounds() == 4
    assert np.array_equal(_bits(loaded.predict(X3)), _bits(multi.predict_proba(X3)))
    assert np.array_equal(loaded.predict(X3).argmax(axis=1), multi.predict(X3))

    Xr, yr, _ = _data("reg:squarederror", names=True)
    reg = xgb.XGBRegressor(n_estimators=40, max_depth=3, early_stopping_rounds=2).fit(
        Xr, yr, eval_set=[(Xr.iloc[:60], yr[:60])], verbose=False)
    reg.save_model(tmp_path / "reg.ubj")
    loaded = boost.load_model(tmp_path / "reg.ubj")
    assert loaded.best_iteration == reg.best_iteration
    best = (0, reg.best_iteration + 1)
    assert np.array_equal(_bits(loaded.predict(Xr, iteration_range=best)),
                          _bits(reg.predict(Xr)))
    _assert_same_model(reg.get_booster(), loaded, Xr)


@pytest.mark.parametrize("objective", ["binary:logistic", "multi:softprob"])
def test_files_in_the_layout_of_xgboost_2_load_too(objective):
    # XGBoost 1.x and 2.x wrote base_score as one number ("5E-1", not "[5E-1]"), and
    # neither iteration_indptr nor cats; XGBoost 3.2 reads such a file as we do.
    X, y, extra = _data(objective)
    doc = json.loads(_xgb_raw({"objective": objective, **extra}, X, y, fmt="json"))
    doc["version"] = [2, 1, 0]
    doc["learner"]["learner_model_param"]["base_score"] = "5E-1"
    for key in ("iteration_indptr", "cats"):
        del doc["learner"]["gradient_booster"]["model"][key]
    raw = json.dumps(doc).encode()
    loaded = boost.load_model(raw)
    assert loaded.source.version == (2, 1, 0)
    _assert_same_model(xgb.Booster(model_file=bytearray(raw)), loaded, X)


def test_leaf_wise_trees_load_too():
    # grow_policy="lossguide" numbers nodes in the order it splits them; children still
    # come in pairs, so such a model loads and predicts as XGBoost's.
    X, y, _ = _data(n=400)
    ref, _ = xgb_train({"grow_policy": "lossguide", "max_leaves": 7, "max_depth": 0}, X, y, 4)
    _assert_same_model(ref, boost.load_model(ref.save_raw("ubj")), X)


def test_a_loaded_model_predicts_and_shows_its_trees_without_a_trace():
    X, y, extra = _data("multi:softprob")
    params = {"objective": "multi:softprob", "tree_method": "exact", "max_depth": 3,
              "gamma": 1.0, **extra}
    ref, _ = xgb_train(params, X, y, 4)
    loaded = boost.load_model(ref.save_raw("ubj"))
    assert loaded.params == {"objective": "multi:softprob", "num_class": 3}
    assert loaded.num_boosted_rounds() == ref.num_boosted_rounds() == 4
    data = xgb.DMatrix(X, missing=np.nan)
    for r, margin in loaded.staged_margins(X):
        expected = (np.tile(loaded.base_margin, (len(X), 1)) if r == 0 else ref.predict(
            data, output_margin=True, iteration_range=(0, r)))  # (0, 0) means every tree
        assert np.array_equal(_bits(margin), _bits(expected))
    leaves = ref.predict(data, pred_leaf=True)
    for row in (0, 7, 42):
        for r in (1, 4):
            path = loaded.decision_path(X[row], r, class_idx=2)
            assert path[-1] == leaves[row, loaded.tree_index(r, 2)]
    outputs = loaded.tree_outputs(X)
    assert outputs.shape == (len(X), 12)
    assert np.array_equal(outputs[:, 5], loaded.tree_output(X, 2, class_idx=2))
    for kind in ("weight", "gain", "cover", "total_gain", "total_cover"):
        assert loaded.get_score(kind) == pytest.approx(ref.get_score(importance_type=kind),
                                                       rel=1e-6)
    frame = loaded.trees_to_dataframe()
    pd.testing.assert_frame_equal(frame[list(ref.trees_to_dataframe().columns)],
                                  ref.trees_to_dataframe(), check_dtype=False)
    assert frame[["SumGrad", "Similarity", "Weight"]].isna().all().all()
    assert frame.loc[~frame["Leaf"], "Value"].isna().all()
    leaf = frame[frame["Leaf"]]
    assert np.array_equal(_bits(leaf["Value"]), _bits(leaf["Gain"]))  # Gain: its %.9g text
    assert np.array_equal(_bits(frame["Cover"]), _bits(frame["SumHess"]))
    # exact's pruning left deleted nodes in XGBoost's file; they are the removed nodes.
    grown = loaded.trees_to_dataframe(include_pruned=True)
    assert grown["Pruned"].any() and len(grown) - len(frame) == grown["Pruned"].sum()


@pytest.mark.parametrize("call", [
    lambda b: b.round_view(1), lambda b: b.round_views(1), lambda b: b.split_candidates(1, 0),
    lambda b: b.tree_gradients(1), lambda b: b.rows_used(1), lambda b: b.features_used(1),
    lambda b: b.cuts(), lambda b: b.loss_history(), lambda b: b.evals_result(),
    lambda b: b.xgboost_code()])
def test_what_needs_the_training_run_says_so(call, tmp_path):
    X, y, _ = _data()
    xgb_train({"max_depth": 2}, X, y, 2)[0].save_model(str(tmp_path / "m.json"))
    loaded = boost.load_model(tmp_path / "m.json")
    with pytest.raises(boost.NoTrainingTrace, match=r"m\.json"):
        call(loaded)


CODE_CASES = [("reg:pseudohubererror", {"huber_slope": 2.0}),
              ("binary:logistic", {"scale_pos_weight": 2.0}),
              ("multi:softmax", {}), ("count:poisson", {})]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("objective, extra", CODE_CASES)
def test_xgboost_code_retrains_the_same_trees(objective, extra, method):
    X, y, num_class = _data(objective, names=True)
    weight = np.linspace(0.5, 2.0, len(y))
    params = {"objective": objective, "tree_method": method, "max_depth": 3, "eta": 0.5,
              "lambda": 2.0, "gamma": 0.3, **num_class, **extra}
    ours = boost.train(params, X, y, 4, sample_weight=weight)
    namespace = {}
    exec(compile(ours.xgboost_code(), "xgboost_code", "exec"), namespace)
    model = namespace["retrain"](X, y, sample_weight=weight)
    assert model.get_dump(dump_format="json", with_stats=True) == ours.get_dump()
    assert model.feature_names == list(X.columns)
    # The parameters are the table's, under XGBoost's names, with the model's values.
    xgboost_names = {p.name for p in PARAMETERS if p.xgboost and not p.train_arg}
    assert set(namespace["PARAMS"]) <= xgboost_names
    assert {k: v for k, v in ours.params.items() if k in namespace["PARAMS"]} == \
        namespace["PARAMS"]


def test_xgboost_code_with_early_stopping():
    X, y, _ = _data("binary:logistic", n=300)
    X_val, y_val, _ = _data("binary:logistic", seed=1, n=150)
    ours = boost.train({"objective": "binary:logistic", "eta": 0.5}, X, y, 60,
                       evals=[(X_val, y_val, "valid")], early_stopping_rounds=3)
    namespace = {}
    exec(ours.xgboost_code(), namespace)
    model = namespace["retrain"](X, y, evals=[(X_val, y_val, "valid")])
    assert (model.best_iteration, model.num_boosted_rounds()) == (ours.best_iteration,
                                                                 ours.num_boosted_rounds())
    assert model.get_dump(dump_format="json", with_stats=True) == ours.get_dump()


def test_xgboost_code_says_what_it_cannot_retrain():
    X, y, _ = _data("binary:logistic")
    sampled = boost.train({"objective": "binary:logistic", "subsample": 0.7}, X, y, 2)
    assert "own generator" in sampled.xgboost_code()
    with pytest.raises(ValueError, match="first-order"):
        boost.train({"boosting": "first_order"}, X, y, 2).xgboost_code()
    own = boost.train({"objective": "binary:exponential"}, X, y, 2)
    with pytest.raises(ValueError, match="BoostScope's own"):
        own.xgboost_code()
    with pytest.raises(ValueError, match="BoostScope's own"):
        own.save_raw("json")
    with pytest.raises(ValueError, match=r"'\.json' or '\.ubj'"):
        sampled.save_model("model.pkl")


def _xgb_raw(params, X=None, y=None, rounds=2, fmt="ubj"):
    if X is None:
        X, y, _ = _data()
    dtrain = xgb.DMatrix(X, label=y, missing=np.nan, enable_categorical=True)
    return bytes(xgb.train(params, dtrain, rounds).save_raw(fmt))


def _edited(edit) -> bytes:
    doc = json.loads(_xgb_raw({"max_depth": 3}, fmt="json"))
    edit(doc["learner"])
    return json.dumps(doc).encode()


def _tree0(learner):
    return learner["gradient_booster"]["model"]["trees"][0]


def _categorical_model():
    X, y, _ = _data(names=True)
    X["dose"] = pd.Categorical(np.arange(len(X)) % 3)
    return _xgb_raw({"max_depth": 2}, X, y + X["dose"].cat.codes)


BAD_FILES = {
    "dart": (lambda: _xgb_raw({"booster": "dart"}), "dart"),
    "gblinear": (lambda: _xgb_raw({"booster": "gblinear"}), "linear model"),
    "random forest": (lambda: _xgb_raw({"num_parallel_tree": 3}), "random forest"),
    "vector leaves": (lambda: _xgb_raw({"multi_strategy": "multi_output_tree", "num_class": 3,
                                        "objective": "multi:softprob"}, *_data(
                                            "multi:softprob")[:2]), "vector leaves"),
    "categorical": (_categorical_model, "categorical splits .*dose.*One-hot"),
    "unknown objective": (lambda: _xgb_raw({"objective": "binary:hinge"}, *_data(
        "binary:logistic")[:2]), "objective 'binary:hinge'.*does not know"),
    "names mismatch": (lambda: _edited(lambda ln: ln.update(feature_names=["a", "b"])),
                       "names 2 features but .* num_feature = 4"),
    "feature beyond num_feature": (
        lambda: _edited(lambda ln: _tree0(ln)["split_indices"].__setitem__(0, 9)),
        "feature beyond num_feature"),
    "child outside the tree": (
        lambda: _edited(lambda ln: _tree0(ln)["left_children"].__setitem__(0, 99)),
        "child id outside the tree"),
    "not a number": (
        lambda: _edited(lambda ln: _tree0(ln)["split_conditions"].__setitem__(0, "x")),
        "split_conditions' is missing or not a list of numbers"),
    "truncated json": (lambda: _xgb_raw({}, fmt="json")[:-40], "not valid JSON.*truncated"),
    "truncated ubj": (lambda: _xgb_raw({})[:-5], "not a readable UBJSON model.*truncated"),
    "random bytes": (lambda: bytes(range(7, 250)), "neither JSON nor UBJSON"),
    "pickle": (lambda: pickle.dumps({"trees": [1, 2]}), "never pickles"),
    "empty": (lambda: b"  ", "is empty"),
    "not a model": (lambda: b'{"name": "model", "trees": []}', "'learner' is missing"),
    "a dump": (lambda: json.dumps(["{}"]).encode(), "tree dump"),
    "a config": (lambda: xgb.Booster(model_file=bytearray(_xgb_raw({}))).save_config().encode(),
                 "'learner.gradient_booster.model' is missing"),
}


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_bad_files_say_what_is_wrong_and_what_to_do(case):
    make, message = BAD_FILES[case]
    with pytest.raises(ValueError, match=message):
        boost.load_model(make())


def test_a_loaded_model_checks_the_rows_it_predicts():
    X, y, _ = _data(names=True)
    loaded = boost.load_model(_xgb_raw({"max_depth": 2}, X, y))
    with pytest.raises(ValueError, match="has 3 feature"):
        loaded.predict(X.iloc[:, :3].to_numpy())
    with pytest.raises(ValueError, match="differ from the training features"):
        loaded.predict(X[list(reversed(X.columns))])


def test_decimals_are_rounded_once_to_float32_as_xgboost_reads_them():
    # Just above the midpoint of 1 and the next float32: the nearest double is the midpoint
    # itself, so rounding through a double gives 1.0; XGBoost (and _float32s) round the
    # decimal once, to the next float32.
    getcontext().prec = 60
    midpoint = Decimal(1) + Decimal(2) ** -24
    above, below = str(midpoint + Decimal(2) ** -80), str(midpoint - Decimal(2) ** -80)
    after_one = np.nextafter(np.float32(1), np.float32(2))
    assert np.float32(float(above)) == 1.0
    assert _float32s([above, below, str(midpoint), "0.1", "-3E-1"]).tolist() == [
        after_one, 1.0, 1.0, np.float32(0.1), np.float32(-0.3)]
    doc = json.loads(_xgb_raw({"max_depth": 1}, fmt="json"))
    tree = doc["learner"]["gradient_booster"]["model"]["trees"][0]
    leaf = tree["left_children"].index(-1)
    text = json.dumps(doc).replace(json.dumps(tree["split_conditions"]), "[" + ", ".join(
        above if i == leaf else repr(v) for i, v in enumerate(tree["split_conditions"])) + "]")
    X = _data()[0]
    ref = xgb.Booster(model_file=bytearray(text.encode()))
    _assert_same_model(ref, boost.load_model(text.encode()), X)


def test_ubjson_reads_what_the_spec_allows_and_refuses_the_rest():
    value = {"a": [1, -2, 3.5, "x", None, True, False, {"b": []}],
             "typed": np.array([1.5, -0.25], dtype=np.float32), "ints": np.arange(3)}
    back = ubjson.loads(ubjson.dumps(value))
    assert _plain(back) == _plain(value) and back["typed"].dtype == np.float32
    # Unsized containers, no-op padding, int8 lengths, a char and a float64.
    raw = b"{i\x01k[NSi\x02hiCzD" + struct.pack(">d", 2.5) + b"]}"
    assert ubjson.loads(raw) == {"k": ["hi", "z", 2.5]}
    assert ubjson.loads(b"[$l#i\x02\x00\x00\x00\x01\xff\xff\xff\xff").tolist() == [1, -1]
    for bad, message in [(b"[$d#i\x03\x00", "truncated"), (b"Si\xffab", "negative"),
                         (b"X", "unknown UBJSON marker"), (b"[" * 100, "nests deeper"),
                         (b"Zjunk", "after the UBJSON value"), (b"[$d#L" + b"\x7f" * 8,
                                                                "truncated")]:
        with pytest.raises(ValueError, match=message):
            ubjson.loads(bad)


def test_the_engine_reads_and_writes_models_as_plain_python(tmp_path):
    # NUMBA_DISABLE_JIT=1 (read when the engine is imported, so in a subprocess).
    X, y, extra = _data("multi:softmax")
    ref, _ = xgb_train({"objective": "multi:softmax", "tree_method": "exact", "gamma": 1.0,
                        **extra}, X, y, 2)
    ref.save_model(str(tmp_path / "ref.ubj"))
    np.save(tmp_path / "X.npy", X)
    code = ("import sys, numpy as np, boost; m = boost.load_model(sys.argv[1] + '/ref.ubj'); "
            "m.save_model(sys.argv[1] + '/back.json'); "
            "np.save(sys.argv[1] + '/margin.npy', m.predict(np.load(sys.argv[1] + '/X.npy'), "
            "output_margin=True))")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    margin = np.load(tmp_path / "margin.npy")
    assert np.array_equal(_bits(margin), _bits(ref.predict(xgb.DMatrix(X, missing=np.nan),
                                                           output_margin=True)))
    back = xgb.Booster(model_file=str(tmp_path / "back.json"))
    assert back.get_dump(with_stats=True) == ref.get_dump(with_stats=True)
