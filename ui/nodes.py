"""Node records as the page draws them (``viz.node_page.page_record``: the engine's record with
its candidates chart), for the app's node and chart routes (``ui.routes``: a click asks for
the node's chart and its record at once, and the chart, quick to build, is drawn while the
record is built) and for the offline files,
which carry the records of their nodes (docs/player.md, "The node record"): a lesson file
every node its steps show, a model file its rounds' nodes up to ``BUDGET`` bytes — past it
the page says "open the model in the app" on the node."""

from __future__ import annotations

import json

from boost.layer import threads
from boost.trace.node_record import refused
from viz.node_page import curve_chart, page_record

ALL_CANDIDATES_CSV = 200_000  # rows: a larger CSV is not something to read or download here
BUDGET = 3_000_000  # bytes of node records a model's offline file carries


def page_node(booster, X, r: int, node_id: int, klass: int = 0, feature: str | None = None
              ) -> dict:
    """Node ``node_id`` of round ``r`` (class ``klass``) as the page draws it, with the
    candidates chart of ``feature`` (default: the node's split's) and ``csv``: whether the
    candidates route gives all its candidates; its record and charts are kept in the model's
    cache."""
    features = None if feature is None else [feature]
    with threads(1):  # (boost.layer.threads says why one)
        split = feature or _split_feature(booster, r, node_id, klass)
        if split is not None:  # the chart first (the page asks for it beside the record:
            page_chart(booster, r, node_id, klass, split)  # either thread makes it, once)
        record = booster.trace.node_record(r, node_id, klass, X, curve_features=features)
        # (made of kept parts, the record and its charts: not kept itself, whose size the
        # cache would weigh again at every click)
        return {**page_record(record, lambda f: page_chart(booster, r, node_id, klass, f)),
                "csv": record["candidates"] <= ALL_CANDIDATES_CSV}


def page_chart(booster, r: int, node_id: int, klass: int, feature: str) -> dict:
    """The candidates chart of ``feature`` at node ``node_id`` of round ``r`` (class
    ``klass``), as Plotly's JSON: the chart a record carries (``page_node``), built from the
    feature's gain curve alone — without the node's other candidates, which its record
    summarizes. Kept in the model's cache; a node or feature the model lacks is a
    ValueError."""
    trace = booster.trace
    if feature not in booster.feature_names:
        raise ValueError(f"feature {feature!r} is not a feature of this model")
    t = booster.tree_index(r, klass)

    def build() -> dict:
        numbers = trace.node_numbers(t, node_id)
        if numbers is None:
            raise ValueError(f"node_id = {node_id!r} is not a node of tree {t}")
        return curve_chart(trace.gain_curve(r, node_id, klass, feature), feature,
                           float(booster.params["gamma"]), bool(refused(numbers)))
    with threads(1):
        return trace.cache.get(("page chart", t, int(node_id), feature), build)


def _split_feature(booster, r: int, node_id: int, klass: int) -> str | None:
    """The feature node ``node_id`` of round r's tree splits on (its chart's), else None."""
    row = booster.trace.node_numbers(booster.tree_index(r, klass), node_id)
    return None if row is None or row.Feature == "Leaf" else str(row.Feature)


def shown_node(booster, r: int, node: int | None, klass: int = 0) -> int | None:
    """The node a page shows at round r when ``node`` is selected: it, if round r's tree of
    class ``klass`` has it, else the root (the player's rule); None at round 0."""
    if r < 1:
        return None
    trees = booster.trace.trees()
    nodes = set(trees.Node[(trees.Round == r) & (trees.Class == klass)])
    return node if node in nodes else 0


def offline(record: dict) -> dict:
    """A record for a file with no server: no link to the candidates' CSV route."""
    return {**record, "csv": False}


def model_records(booster, X, klass: int = 0, budget: int = BUDGET) -> dict:
    """``{"r:node": record}`` of every node of rounds 1, 2, ... while their JSON fits in
    ``budget`` bytes (a model's offline file)."""
    out, size = {}, 0
    trees = booster.trace.trees()
    trees = trees[trees.Class == klass]
    for r, node in zip(trees.Round, trees.Node, strict=True):
        record = offline(page_node(booster, X, int(r), int(node), klass))
        size += len(json.dumps(record, separators=(",", ":")))
        if size > budget:
            break
        out[f"{int(r)}:{int(node)}"] = record
    return out
