"""The trace: what a trained model can answer about its rounds and nodes, as named records.

``Trace`` is one per ``Booster`` (``booster.trace``): every question a screen asks of a model
(a round's rows, a node's numbers, rows and candidates, a fit to draw) is a method here,
answered once and kept in one cache per model that is bounded in bytes.
"""

from __future__ import annotations

from .figures import FigureQuestions


class Trace(FigureQuestions):
    """The questions a screen asks of one model (``booster``)."""

    def __init__(self, booster) -> None:
        self.booster = booster
