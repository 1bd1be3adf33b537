"""Shared fixtures (the data sets themselves are in datasets.py)."""

import numpy as np
import pytest


@pytest.fixture
def four_points():
    X = np.array([[10.0], [20.0], [25.0], [35.0]])
    y = np.array([-10.0, 7.0, 8.0, -7.0])
    return X, y
