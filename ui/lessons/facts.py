"""The engine's numbers a lesson step quotes, read from the model on screen (or from a model
trained with a few parameters changed, on the same data). ``Facts`` needs the model shown
and a way to train another configuration on the same data, nothing of the session: the app
(``ui/lesson.py``) and the offline lecture file (``ui/lecture.py``) both read them."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from boost.trace.rounding import rounded
from viz.pruning import GammaReading, read_gamma

from ..state import Shown


def said(x) -> str:
    """A number as a lesson's text says it: the rule of every number a reader sees
    (``boost.trace.rounding.rounded``, as the tree, the node's box and the arithmetic write
    it), with a typographic minus."""
    return rounded(x).replace("-", "−")


def listed(values) -> str:
    """Numbers as a lesson says them: 'a, b and c'."""
    parts = [said(v) for v in values]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


class Facts:
    """Numbers of one trained model, by round (1-based, as on screen) and node id."""

    def __init__(self, shown: Shown, train: Callable[[dict], object | None], booster=None,
                 config=None):
        """``shown``: the model and round on screen; ``train(config)``: the booster of
        another configuration on the same data (None when the data changed meanwhile)."""
        self.shown, self.train = shown, train
        self.booster = booster or shown.booster
        self.config = config or shown.config

    def other(self, **params) -> Facts:
        """The same data trained with ``params`` changed (by the table's names)."""
        config = {**self.config, **params}
        booster = self.train(config)
        if booster is None:
            raise LookupError("the data changed while the lesson was open")
        return Facts(self.shown, self.train, booster, config)

    def _round(self, r: int | None) -> int:
        return self.shown.round if r is None else r

    def tree(self, r: int | None = None, klass: int = 0) -> pd.DataFrame:
        frame = self.booster.trace.trees()
        return frame[(frame.Round == self._round(r)) & (frame.Class == klass)]

    def node(self, node: int, r: int | None = None, klass: int = 0) -> pd.Series:
        tree = self.tree(r, klass)
        return tree[tree.Node == node].iloc[0]

    def candidates(self, node: int, r: int | None = None, klass: int = 0) -> pd.DataFrame:
        return self.booster.trace.candidates(self._round(r), node, klass)

    def gain(self, node: int, threshold: float, r: int | None = None,
             feature: str | None = None) -> float:
        """The gain of the candidate split of ``node`` nearest to ``threshold``."""
        cand = self.candidates(node, r)
        if feature is not None:
            cand = cand[cand.Feature == feature]
        return float(cand.Gain.iloc[int(np.argmin(np.abs(cand.Threshold - threshold)))])

    def best(self, node: int, r: int | None = None) -> pd.Series:
        cand = self.candidates(node, r)
        return cand[cand.Best].iloc[0]

    @property
    def base_score(self) -> float:
        return float(self.booster.base_score[0])

    def residuals(self, r: int) -> np.ndarray:
        """y − prediction of every training row after ``r`` rounds."""
        return np.asarray(self.booster.round_view(r).residual)

    def margins(self, r: int) -> np.ndarray:
        return np.asarray(self.booster.round_view(r).margin)[:, 0]

    def loss(self, name: str, r: int | None = None) -> float:
        return float(self.booster.loss_history()[name].iloc[self._round(r)])

    def pairs(self, r: int | None = None, query: int = 0) -> dict:
        """A ranking's query (a code of the training queries) at round ``r``: its rows,
        margins before and after, and the pairs of the gradients round r's tree was grown
        on, as the Ranking pairs view draws them (``ui.views.ranking.query_round``)."""
        from ..views.ranking import query_round  # (a view module: streamlit, only when asked)

        return query_round(self.booster, self.shown.prep, query, self._round(r))

    def gamma(self, r: int | None = None) -> GammaReading:
        """The round's splits by what γ did to them: kept, pruned (exact), refused (hist)."""
        return read_gamma(self.tree(r))
