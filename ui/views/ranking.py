"""Learning to rank: one query's documents ordered by score round by round, and the pairs
whose λ-gradients grew the round's tree (LambdaMART's pairs: topk's, or mean's random draw
of the round, reproduced)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from boost.params import parse_params
from boost.ranking import query_pairs
from viz.ranking import make_ranking_figure

from ..charts import show
from ..state import AppState, Shown

SLUG = "ranking"
TITLE = "Ranking pairs"


def query_round(booster, prep, query: int, r: int) -> dict:
    """Query ``query``'s (a code of ``prep.qid_train``) margins after rounds r−1 and r and the
    pairs of the gradients round r's tree was grown on (the engine's, pair by pair)."""
    rows = np.flatnonzero(prep.qid_train == query)
    before = booster.round_view(r - 1).margin[rows, 0]
    after = booster.round_view(r).margin[rows, 0]
    rp = parse_params(booster.params).loss.rank
    queries = np.unique(prep.qid_train)  # the training queries, in the engine's order
    pairs = query_pairs(booster.objective, before, prep.y_train[rows], rp, iteration=r - 1,
                        query=int(np.searchsorted(queries, query)), n_queries=len(queries))
    return {"rows": rows, "before": before, "after": after, "y": prep.y_train[rows], **pairs}


def render(state: AppState, shown: Shown) -> None:
    booster, prep, r = shown.booster, shown.prep, shown.round
    if getattr(prep, "query", None) is None:
        st.info("This view follows a ranking model: choose a query column in the sidebar "
                "(or the sample *Search results*).")
        return
    if r == 0:
        st.info("Step to round 1 or later: the view shows the pairs a round's tree was "
                "grown on.")
        return
    queries = np.unique(prep.qid_train)
    query = queries[0] if shown.compact else st.selectbox(
        "Query", queries.tolist(), key="rank_query",
        format_func=lambda q: f"{prep.query} #{q + 1} "
                              f"({int((prep.qid_train == q).sum())} documents)")
    try:
        data = query_round(booster, prep, int(query), r)
    except ValueError as exc:
        st.info(f"The pairs cannot be shown: {exc}")
        return
    rp = parse_params(booster.params).loss.rank
    swap = {"rank:ndcg": "ΔNDCG", "rank:map": "ΔMAP"}.get(booster.objective, "ΔZ")
    show(make_ranking_figure(data["before"], data["after"], data["y"], data["high"],
                             data["low"], data["lam"], float(data["norm"]), r,
                             large=shown.large, delta=data["delta"], sig=data["sig"],
                             swap=swap, g=data["g"], title=f"{prep.query} #{int(query) + 1}"),
         "ranking", state, shown)
    if not shown.compact:
        drawn = ("this round's random draw: lambdarank_num_pair_per_sample partners per "
                 "document, from the documents of other relevance (the same draw as XGBoost's)"
                 if rp.pair_method == "mean" else
                 "every pair of a top-k document with one below it")
        st.caption(f"{len(data['lam'])} pairs of documents with different relevance "
                   f"({drawn}); each pair's λ = (σ(s_high − s_low) − 1)·|ΔZ| (ΔZ: the "
                   "metric's change if the two swapped, 1 for rank:pairwise; ÷ (|s_high − "
                   "s_low| + 0.01) with score normalisation) is added to the better "
                   "document's g and taken from the other's; the query's g are then × "
                   f"{float(data['norm']):.4g} ("
                   + ("1/lambdarank_num_pair_per_sample" if rp.pair_method == "mean"
                      else "log2(1 + Σ|2λ|)/Σ|2λ|")
                   + "). The arcs and the table are the largest |λ|, thicker for larger.")
