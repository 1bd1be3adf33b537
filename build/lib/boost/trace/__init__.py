"""The trace: what a trained model can answer about its rounds and nodes, as named records.

``Trace`` is one per ``Booster`` (``booster.trace``). Every question a screen asks of a model
is a method here — a round's rows (``rows``), one node as one record (``nodes``:
``node_detail``), what a figure draws (``figures``) — answered on demand from the model's
trees and rows and kept in one cache per model, bounded in bytes (``cache``). ``Booster``
keeps XGBoost's API shape (``round_view``, ``split_candidates``, ...) by asking its trace.

Modules: ``rows`` (margins, gradients, leaves, rows and features used, bins and cuts),
``nodes`` (``node_detail``: numbers, rows, candidate summary, gain curves, bin ranges),
``candidates`` (a node's candidate splits on demand: exact's enumeration of the sorted
columns, hist's node histogram replayed down its path and scanned), ``figures`` (the
questions whose records figures draw, built in ``fit``, ``function_space``, ``margins``,
``sketch``), ``cache`` (the byte-bounded cache).
"""

from __future__ import annotations

from .cache import ByteCache
from .figures import FigureQuestions
from .nodes import NodeDetail, NodeQuestions
from .rows import NoTrainingTrace, RoundView, RowQuestions, TrainingData

__all__ = ["ByteCache", "NoTrainingTrace", "NodeDetail", "RoundView", "Trace", "TrainingData"]


class Trace(RowQuestions, NodeQuestions, FigureQuestions):
    """The questions a screen asks of one model (``booster``), answered once each."""

    def __init__(self, booster, budget: int | None = None) -> None:
        self.booster = booster
        self.cache = ByteCache() if budget is None else ByteCache(budget)
