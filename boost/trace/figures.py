"""The records figures draw that are not a node's: a round's fit, two rows in function space,
one row's waterfall, a feature's sketch, the margins of training and validation rows."""

from __future__ import annotations


class FigureQuestions:
    """Mixed into ``Trace``: ``self.booster`` is the model asked."""
