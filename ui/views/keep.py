"""What the views keep between runs, owned by the views: each value is written only by the
view that draws it (``ViewKeep``: the tree, growth, quantile sketch, generalisation,
learning rates and compare views; ``LabKeep``: the Lab and its tuning-order guide)."""

from __future__ import annotations

from dataclasses import dataclass

from ..state import Widget


@dataclass
class ViewKeep:
    collapsed: frozenset = frozenset()  # nodes of the shown tree whose subtrees are hidden
    collapsed_tree: tuple | None = None  # the tree ``collapsed`` belongs to (model, round, class)
    growth_tree: tuple | None = None  # the trees growth_step replays (model, round, class)

    klass = Widget(0)  # the tree's class (one tree per class per round)
    tree_chart = Widget(event=True)  # the tree's selection event
    etas = Widget("0.01, 0.1, 0.3, 1.0")  # the learning rates view's comparison
    gen_eta = Widget()  # the generalisation view's second η (None: derived from the model's)
    sketch_feature = Widget(0)  # the quantile sketch view's feature (its index)
    growth_step = Widget()  # the growth order view: splits replayed (None: all)
    compare_left = Widget()  # the compare view's two trees (model names)
    compare_right = Widget()


@dataclass
class LabKeep:
    guide: int | None = None  # the tuning-order guide's step on screen (1-based), None: off
    loaded: dict | None = None  # the values a Lab click last loaded (for its note)

    params = Widget([], key="lab_params")  # the one or two parameters swept
    n = Widget(6, key="lab_n")  # values per parameter
    chart = Widget(event=True, key="lab_chart")  # the Lab chart's selection event
