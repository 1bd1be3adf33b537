"""The registry of models the node route may answer about (ui/served.py): an id per
session's model, none to guess, none kept for a model or session that is gone."""

import gc

import numpy as np

from ui import served


class Model:  # a stand-in: the registry only holds weak references to what it is given
    pass


def test_one_id_per_session_and_model():
    a, b = Model(), Model()
    first = served.register("s1", a)
    assert served.register("s1", a) == first  # the same while the session holds it
    assert served.register("s2", a) != first  # another session: its own id
    assert served.register("s1", b) != first
    assert served.lookup(first) == (a, None)
    assert len(first) >= 24 and served.lookup("s1") is None and served.lookup("") is None


def test_the_features_go_with_the_model():
    m, X = Model(), np.zeros((3, 2))
    model_id = served.register("s3", m, X)
    found, rows = served.lookup(model_id)
    assert found is m and rows is X


def test_an_id_goes_with_its_model_and_its_session():
    m = Model()
    gone = served.register("s4", m)
    del m
    gc.collect()
    assert served.lookup(gone) is None  # the model was dropped (the training cache's eviction)
    kept = Model()
    model_id = served.register("s5", kept)
    served.keep_sessions({"s1", "s2", "s3"})  # s5 is gone (the housekeeping sweep)
    assert served.lookup(model_id) is None


def test_a_session_keeps_its_newest_models():
    models = [Model() for _ in range(served.PER_SESSION + 2)]
    ids = [served.register("s6", m) for m in models]
    assert [served.lookup(i) is not None for i in ids] == (
        [False] * 2 + [True] * served.PER_SESSION)
