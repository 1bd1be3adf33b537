"""Ranking: LambdaMART's pairs. A query's documents, every pair of them with different
relevance, each pair's λ = (σ(s₊ − s₋) − 1)·|ΔNDCG|, a document's g as the sum of its
pairs' λ (normalised as XGBoost does), and how the λ change once the documents reorder."""

from __future__ import annotations

import numpy as np

from viz.ranking import document

from .facts import said
from .steps import Lesson, Step


def _pair(data: dict, high: int, low: int) -> int:
    """The place of the pair (high over low, documents of the query) in ``data``'s pairs."""
    return int(np.flatnonzero((data["high"] == high) & (data["low"] == low))[0])


def _position(data: dict, d: int) -> int:
    """Document ``d``'s position (1 = top) in the list the pairs were made from."""
    return int(np.flatnonzero(data["rank"] == d)[0]) + 1


def _top(data: dict) -> int:
    return int(np.argmax(np.abs(data["lam"])))  # the first of the largest, as the table


def _query(f):
    data = f.pairs(1)
    return {"n": len(data["rows"])}


def _start(f):
    data = f.pairs(1)
    return {"pairs": len(data["lam"])}


def _by_hand(f):
    """The pair of the largest |λ| at round 1 (all scores tied): its λ by hand."""
    data = f.pairs(1)
    p = _top(data)
    hi, lo = int(data["high"][p]), int(data["low"][p])
    return {"hi": document(hi), "lo": document(lo), "y_hi": float(data["y"][hi]),
            "y_lo": float(data["y"][lo]), "p_hi": _position(data, hi),
            "p_lo": _position(data, lo), "dn": float(data["delta"][p]),
            "sig": float(data["sig"][p]), "lam": float(data["lam"][p])}


def _g(f):
    """The better document of round 1's top pair: its pairs' λ, the normalisation, its g."""
    data = f.pairs(1)
    d = int(data["high"][_top(data)])
    mine = [(float(lam) if hi == d else -float(lam))
            for hi, lo, lam in zip(data["high"], data["low"], data["lam"], strict=True)
            if d in (hi, lo)]
    order = np.argsort(-np.abs(mine), kind="mergesort")
    return {"d": document(d), "count": len(mine),
            "lams": " + ".join(f"({said(mine[i])})" for i in order),
            "norm": float(data["norm"]), "g": float(data["g"][d]), "leaf": _leaf(f, d)}


def _leaf(f, d: int) -> int:
    """The leaf of round 1's tree that holds document ``d`` of query #1 (its row)."""
    row = np.asarray(f.shown.prep.X_train, dtype=float)[f.pairs(1)["rows"][d]]
    return int(f.booster.decision_path(row, 1)[-1])


def _round2(f):
    """The list after round 1, top first, and round 2's pair of the largest |λ|."""
    data = f.pairs(2)
    p = _top(data)
    hi, lo = int(data["high"][p]), int(data["low"][p])
    return {"order": " › ".join(document(int(d)) for d in data["rank"]),
            "pair": f"{document(hi)} › {document(lo)}", "p_hi": _position(data, hi),
            "p_lo": _position(data, lo), "dn": float(data["delta"][p]),
            "sig": float(data["sig"][p]), "lam": float(data["lam"][p])}


def _later(f):
    data = f.pairs()
    p = _top(data)
    return {"r": f.shown.round, "metric": f.booster.metric_name,
            "pair": f"{document(int(data['high'][p]))} › {document(int(data['low'][p]))}",
            "sig": float(data["sig"][p]), "lam": float(data["lam"][p]),
            "ndcg": f.loss("train")}


RANK = "rank:ndcg"
LEAF = 4  # the leaf of round 1's tree that holds d2 (``_leaf``; the lesson's test checks it)

LESSON = Lesson(
    slug="ranking", title="Ranking: LambdaMART's pairs",
    blurb="Three searches and their documents. LambdaMART's gradient of a document is a sum "
          "over pairs of documents: each pair pushes the better one up by how much swapping "
          "them would cost NDCG.",
    sample="three_queries",
    params={"max_depth": 2, "eta": 0.3, "tree_method": "exact", "min_child_weight": 0.0,
            "lambdarank_score_normalization": False, "num_boost_round": 10},
    steps=(
        Step("A query is one search; its rows are the documents it returned, each with a "
             "relevance: 0 (no use), 1 (useful), 2 (the answer). rank:ndcg learns a score s "
             "per document and ranks each query's documents by it. The chart follows query "
             "#1's {n} documents, d1 to d{n}, by score before and after a round.",
             objective=RANK, round=1, panels=("ranking", "tree"), numbers=_query),
        Step("Before the first tree every document has the same score, so the list on the "
             "left keeps the table's order (ties do). Every pair of documents with different "
             "relevance is a candidate: query #1 has {pairs} pairs, the table's rows and the arcs.",
             objective=RANK, round=1, panels=("ranking", "tree"), numbers=_start),
        Step("{hi} (relevance {y_hi}, position {p_hi}) over {lo} (relevance {y_lo}, position "
             "{p_lo}): swapping them would change the query's NDCG, Σ (2^rel − 1)/log₂(1 + "
             "position) over the best order's, by |ΔNDCG| = {dn}. The scores are tied, so "
             "σ(s₊ − s₋) = σ(0) = {sig} and λ = ({sig} − 1) × {dn} = {lam}: the largest |λ| "
             "of the query (its top two places).",
             objective=RANK, round=1, panels=("ranking", "tree"), numbers=_by_hand),
        Step("{d} is in {count} pairs; the better document of a pair gets +λ, the other −λ: "
             "{lams}. XGBoost scales a query's g by log₂(1 + Σ|2λ|)/Σ|2λ| = {norm}, so "
             "{d}'s g is {g}: the g the tree was grown on. Its leaf in round 1's tree, node "
             "{leaf}, sums it with its other documents' g into G.",
             objective=RANK, round=1, node=LEAF, panels=("ranking", "node"), numbers=_g),
        Step("After round 1 the documents have reordered (the list on the right): {order} "
             "from the top, every pair in the right order.",
             objective=RANK, round=1, panels=("ranking", "tree"), numbers=_round2,
             ask="Which pair gets the largest |λ| in round 2?",
             reveal="{pair}: positions {p_hi} and {p_lo}, the swap that would cost the most "
                    "NDCG (|ΔNDCG| = {dn}). Being in order makes σ(s₊ − s₋) = {sig} > ½, so "
                    "λ = {lam} is less than half of |ΔNDCG|.",
             then={"round": 2}),
        Step("After {r} rounds the training {metric} is {ndcg} (higher is better): every "
             "query in order. The trees still push the pairs apart, so their σ(s₊ − s₋) "
             "grows and their λ shrink: round {r}'s largest |λ|, {pair}'s, is {lam} at σ = "
             "{sig}. (This lesson turns lambdarank_score_normalization off; on, XGBoost's "
             "default, each |ΔNDCG| is ÷ (|s₊ − s₋| + 0.01) once the scores differ.)",
             objective=RANK, round=10, panels=("ranking", "loss"), numbers=_later),
    ),
)
