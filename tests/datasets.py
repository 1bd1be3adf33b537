"""Seeded data sets with the properties the engine tests need (ties, NaN, a constant
column, three tasks)."""

import numpy as np


def make_data(seed=0, n=300, n_features=5, nan=0.0, ties=False, objective="reg:squarederror",
              num_class=3, constant_column=True):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    if ties:
        X = np.round(X * 2)
    if nan:
        X[rng.random(X.shape) < nan] = np.nan
    if constant_column:
        X[:, -1] = 1.0
    z = np.nan_to_num(X[:, 0]) - np.nan_to_num(X[:, 1]) ** 2 + rng.normal(size=n) * 0.3
    if objective == "reg:squarederror":
        y = z * 3 + 1
    elif objective == "binary:logistic":
        y = (z > 0).astype(float)
    else:
        edges = np.quantile(z, np.linspace(0, 1, num_class + 1)[1:-1])
        y = np.digitize(z, edges).astype(float)
    return X, y
