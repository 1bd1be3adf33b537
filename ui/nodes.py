"""Node records as the page draws them (``viz.node_page.page_record``: the engine's record with
its candidates chart), for the app's node route (``ui.routes``) and for the offline files,
which carry the records of their nodes (docs/player.md, "The node record"): a lesson file
every node its steps show, a model file its rounds' nodes up to ``BUDGET`` bytes — past it
the page says "open the model in the app" on the node."""

from __future__ import annotations

import json

from viz.node_page import page_record

ALL_CANDIDATES_CSV = 200_000  # rows: a larger CSV is not something to read or download here
BUDGET = 3_000_000  # bytes of node records a model's offline file carries


def page_node(booster, X, r: int, node_id: int, klass: int = 0, feature: str | None = None
              ) -> dict:
    """Node ``node_id`` of round ``r`` (class ``klass``) as the page draws it, with the
    candidates chart of ``feature`` (default: the node's split's) and ``csv``: whether the
    candidates route gives all its candidates; kept in the model's cache."""
    features = None if feature is None else [feature]
    record = booster.trace.node_record(r, node_id, klass, X, curve_features=features)
    return booster.trace.cache.get(
        ("page record", r, record["node"], klass, feature, X is not None),
        lambda: {**page_record(record, float(booster.params["gamma"])),
                 "csv": record["candidates"] <= ALL_CANDIDATES_CSV})


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
