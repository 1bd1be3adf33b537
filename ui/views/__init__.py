"""The views under the fit and the loss: one module each, registered under a URL slug.

A view module has ``SLUG`` (its name in the URL, ``?view=tree``), ``TITLE`` (its button) and
``render(state, shown)``, which draws it for the round on screen. Adding a view is one
module and one line in ``REGISTRY``; docs/views.md walks through it.
"""

from __future__ import annotations

from . import (
    compare,
    function_space,
    generalisation,
    growth,
    importance,
    lab,
    learning_rates,
    newton_vs_first_order,
    pruning,
    quantile_sketch,
    ranking,
    residuals,
    tree,
)

REGISTRY = (tree, residuals, learning_rates, importance, newton_vs_first_order, function_space,
            pruning, growth, quantile_sketch, generalisation, compare, lab, ranking)
VIEWS = {view.SLUG: view for view in REGISTRY}
# What ``?view=0``..``4`` opened before views had names: such links keep opening them.
LEGACY = ("tree", "residuals", "learning-rates", "importance", "newton-vs-first-order")
DEFAULT = REGISTRY[0].SLUG
