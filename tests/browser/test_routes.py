"""The app's own routes (ui/routes.py, added by st.App in app.py). The node route: a model's
node records over HTTP, answered without a script run, by the id the page was given for the
session's model; bad ids, rounds, nodes and classes are 4xx JSON errors that say what is
wrong. Numbers checked by hand on the four points (base_score 0.5, λ = 0): the root of round
1 has G = H = 4 and splits at x < 15 with gain 110.25 + 14.083 − 4 = 120.33. And Plotly.js,
preloaded by every HTML page's Link header and run from its head, so the page asks for it
and runs it as it starts."""

import base64
import csv
import io
import json
import urllib.error
import urllib.request

import numpy as np
import pytest
from harness import idle, new_page, player_drawn


def _get(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        assert error.headers.get_content_type() == "application/json"
        return error.code, json.loads(error.read())


def _nodes(browser, server) -> str:
    """A new session on the four points at round 1: the node route's URL its page holds."""
    page = new_page(browser, viewport={"width": 1280, "height": 720})
    page.goto(f"{server}/?sample=four_points&round=1")
    idle(page)
    player_drawn(page)
    nodes = page.locator("[data-nodes]").first.get_attribute("data-nodes")
    page.close()
    return nodes


@pytest.fixture(scope="module")
def nodes(browser, server):  # noqa: F811
    return _nodes(browser, server)


def test_a_node_record_from_the_route(server, nodes):  # noqa: F811
    status, record = _get(f"{server}{nodes}&round=1&node=0")
    assert status == 200
    n = record["numbers"]
    assert (n["sum_grad"], n["sum_hess"], n["similarity"], n["split"]) == (4, 4, 4, 15)
    best = record["best"]
    assert (best["s_left"], best["s_node"]) == (110.25, 4)
    assert best["s_right"] == pytest.approx(6.5 ** 2 / 3, rel=1e-6)
    assert best["gain"] == pytest.approx(110.25 + 6.5 ** 2 / 3 - 4, rel=1e-6)
    steps = {s["name"]: s for s in record["arithmetic"]}
    assert "110.25 + 14.08 - 4" in steps["gain"]["latex"]
    # the leaf x < 15: one row, w = -10.5, η·w = -3.15
    status, leaf = _get(f"{server}{nodes}&round=1&node=1")
    assert status == 200 and leaf["numbers"]["leaf"]
    assert leaf["numbers"]["weight"] == -10.5
    assert leaf["numbers"]["value"] == pytest.approx(-3.15, rel=1e-6)
    assert leaf["why"] == "a leaf: no candidate split had a gain above 1e-6"


def test_a_nodes_candidates_as_csv(server, nodes):  # noqa: F811
    """Every candidate of the root (x < 15, 22.5, 30 with gains 120.33, 4, 56.33), the same
    query at the candidates route; a bad node is a 404 JSON error there too."""
    url = f"{server}{nodes.replace('/node?', '/candidates.csv?')}&round=1&node=0"
    with urllib.request.urlopen(url, timeout=60) as answer:
        assert answer.headers.get_content_type() == "text/csv"
        assert "round1_node0_candidates.csv" in answer.headers["Content-Disposition"]
        table = list(csv.DictReader(io.StringIO(answer.read().decode())))
    gains = sorted((float(row["Threshold"]), float(row["Gain"])) for row in table
                   if row["Valid"] == "True")
    assert [t for t, _ in gains] == [15, 22.5, 30]
    assert [g for _, g in gains] == pytest.approx([120.3333, 4, 56.3333], rel=1e-5)
    got, answer = _get(url.replace("node=0", "node=99"))
    assert got == 404 and "node_id = 99 is not a node" in answer["error"]


def _array(value) -> np.ndarray:
    """A chart's array as Plotly's JSON writes it (a typed array in base64, or a list)."""
    if isinstance(value, dict):
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
    return np.asarray(value)


def test_a_nodes_chart_from_the_chart_route(server, nodes):  # noqa: F811
    """The root's candidates chart alone (what a click asks for beside the record): the
    gains of x < 15, 22.5, 30 by hand (120.33, 4, 56.33), the chosen one starred; the same
    chart the record carries."""
    url = f"{server}{nodes.replace('/node?', '/chart?')}&round=1&node=0"
    status, answer = _get(f"{url}&feature=x")
    assert status == 200
    assert (answer["round"], answer["node"], answer["class"], answer["feature"]) == (1, 0, 0, "x")
    curve, star = answer["chart"]["data"][0], answer["chart"]["data"][-1]
    assert list(_array(curve["x"])) == [15, 22.5, 30]
    assert _array(curve["y"]) == pytest.approx([110.25 + 6.5 ** 2 / 3 - 4, 4, 56.3333],
                                               rel=1e-5)
    assert (star["name"], list(_array(star["x"]))) == ("chosen split", [15])
    assert _get(f"{server}{nodes}&round=1&node=0")[1]["charts"]["x"] == answer["chart"]
    for asked, status, said in [(url, 400, "feature is missing"),
                                (f"{url}&feature=nope", 404, "feature 'nope' is not a feature"),
                                (f"{url.replace('node=0', 'node=9')}&feature=x", 404,
                                 "is not a node of tree 0")]:
        got, answer = _get(asked)
        assert got == status and said in answer["error"], answer


@pytest.mark.parametrize("query,status,said", [
    ("&round=1&node=99", 404, "node_id = 99 is not a node of tree 0"),
    ("&round=0&node=0", 404, "round 0 is not a round with a tree: this model has rounds 1 to"),
    ("&round=999&node=0", 404, "round 999 is not a round with a tree"),
    ("&round=one&node=0", 400, "round must be a whole number (got 'one')"),
    ("&round=1", 400, "node must be a whole number (got None)"),
    ("&round=1&node=0&class=1", 404, "class 1 is not a class of this model"),
])
def test_a_bad_round_node_or_class_says_what_is_wrong(server, nodes, query, status, said):  # noqa: F811
    got, answer = _get(f"{server}{nodes}{query}")
    assert got == status and said in answer["error"], answer
    assert "Traceback" not in answer["error"]


def test_no_model_without_its_id(browser, server, nodes):  # noqa: F811
    got, answer = _get(f"{server}/boostscope/node?model=not-an-id&round=1&node=0")
    assert got == 404 and answer["error"].startswith("no model with this id")
    got, answer = _get(f"{server}/boostscope/node?round=1&node=0")
    assert got == 404
    # another session on the same (cached) model gets an id of its own
    other = _nodes(browser, server)
    assert other != nodes and len(other.split("model=")[1]) >= 24
    assert _get(f"{server}{other}&round=1&node=0")[0] == 200


def test_plotly_js_is_preloaded_as_the_page_starts(browser, server):  # noqa: F811
    with urllib.request.urlopen(f"{server}/", timeout=60) as answer:
        assert answer.headers.get_content_type() == "text/html"
        assert answer.headers["Link"] == "</boostscope/plotly.min.js>; rel=preload; as=script"
        html = answer.read().decode()
        assert int(answer.headers["Content-Length"]) == len(html.encode())
    # and run from the page's head as it loads (not when the player mounts)
    head = html[:html.index("</head>")]
    assert '<script async data-boostscope-plotly src="/boostscope/plotly.min.js"' in head
    with urllib.request.urlopen(f"{server}/_stcore/health", timeout=60) as answer:
        assert answer.headers["Link"] is None  # HTML pages only
    page = new_page(browser, viewport={"width": 1280, "height": 720})
    page.goto(f"{server}/?sample=four_points")
    idle(page)
    player_drawn(page)
    # asked for once, by the preload (the charts' script then takes the preloaded copy)
    asked = page.evaluate("""() => performance.getEntriesByType('resource')
        .filter(e => e.name.endsWith('/boostscope/plotly.min.js')).map(e => e.initiatorType)""")
    assert asked == ["link"]
    # one script element: the page's own, which the player's loader found and waited for
    assert page.evaluate("""() => [...document.querySelectorAll('script[data-boostscope-plotly]')]
        .map(e => [e.async, e.parentElement.tagName])""") == [[True, "HEAD"]]
    assert page.evaluate("() => typeof window.Plotly?.react") == "function"
    page.close()
