"""The app's own routes, served beside Streamlit's by ``st.App`` (app.py): answered without
a script run, in the server's event loop.

``/boostscope/plotly.min.js``: Plotly.js as the plotly package ships it (the version its
figures are written for), from the package's own directory — nothing is copied, and no
other host is asked (a lecture hall may have no network).

``/boostscope/node?model=<id>&round=<r>&node=<n>&class=<k>[&feature=<name>]``: the node
record as the page draws it (``viz.node_page.page_record``: ``booster.trace.node_record``
with its candidates chart, of ``feature`` or the node's split's; docs/player.md) of a model
a session holds, by the id the page was given (``ui.served``); a bad id, round, node, class
or feature is a 4xx JSON error ``{"error": ...}`` that says what is wrong, never a
traceback. The engine's work runs in a worker thread, not in the server's event loop, and
its answer is kept in the model's byte-bounded cache.

``/boostscope/chart?model=<id>&round=<r>&node=<n>&class=<k>&feature=<name>``: that node's
candidates chart of ``feature`` alone (``{"feature", "chart"}``, the chart its record carries:
``ui.nodes.page_chart``), errors as the node route's. A click on a node whose record the page
does not hold asks for both at once: the chart is built from one feature's candidates and
comes first, and the page draws it while the record is built.

Every HTML page carries a ``Link`` header that preloads Plotly.js (``PreloadPlotly``).

Streamlit puts its own routes under ``server.baseUrlPath`` but not an app's: ``path`` adds it
here, for the routes and for the page's URLs alike."""

from __future__ import annotations

import time
from pathlib import Path

import plotly
import streamlit as st
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route
from streamlit.runtime.scriptrunner import get_script_run_ctx

from . import served
from .nodes import ALL_CANDIDATES_CSV, page_chart, page_node

PLOTLY_JS = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
PLOTLY = "/boostscope/plotly.min.js"
NODE = "/boostscope/node"
CHART = "/boostscope/chart"
CANDIDATES = "/boostscope/candidates.csv"
CACHE = "public, max-age=86400"  # a day: a lecture reloads the page, not Plotly.js


async def plotly_js(request) -> FileResponse:
    return FileResponse(PLOTLY_JS, media_type="text/javascript",
                        headers={"Cache-Control": CACHE})


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _whole(query, name: str, default: int | None = None) -> int:
    text = query.get(name)
    if text is None and default is not None:
        return default
    if text is None or not text.strip().lstrip("-").isdigit():
        raise ValueError(f"{name} must be a whole number (got {text!r})")
    return int(text)


def _asked(query) -> tuple | JSONResponse:
    """(booster, X, round, node, class) a query names, of a model a session holds; or the
    4xx error that says what is wrong with it."""
    held = served.lookup(query.get("model", ""))
    if held is None:
        return _error(404, "no model with this id: ask with the id the page was given (a "
                           "model the page no longer shows is forgotten; reload the page)")
    booster, X = held
    try:
        r, node_id = _whole(query, "round"), _whole(query, "node")
        klass = _whole(query, "class", 0)
    except ValueError as exc:
        return _error(400, str(exc))
    n = booster.num_boosted_rounds()
    if not 1 <= r <= n:
        return _error(404, f"round {r} is not a round with a tree: this model has rounds 1 "
                           f"to {n}")
    if not 0 <= klass < booster.num_groups:
        return _error(404, f"class {klass} is not a class of this model: it has classes 0 to "
                           f"{booster.num_groups - 1}")
    return booster, X, r, node_id, klass


async def _answer(work, *args):
    """``work(*args)`` in a worker thread; a node the tree does not have is a 404, anything
    else that fails a 500 with a sentence (never a traceback on the page)."""
    try:
        return await run_in_threadpool(work, *args)
    except ValueError as exc:
        return _error(404, str(exc))
    except Exception as exc:
        return _error(500, f"this node could not be answered ({type(exc).__name__}); "
                           "click another node or reload the page")


def _feature(query, booster, required: bool):
    """The query's feature (None if absent and not ``required``), or the 4xx error."""
    feature = query.get("feature")
    if feature is None:
        return _error(400, "feature is missing: name the feature whose chart to draw") \
            if required else None
    if feature not in booster.feature_names:
        return _error(404, f"feature {feature!r} is not a feature of this model")
    return feature


async def _timed_answer(body, work, *args) -> JSONResponse:
    """``body(work(*args))`` as JSON, with where its time went in ``Server-Timing`` (the
    page's resource timing shows it; bench_app prints it): ``wait`` before the worker thread
    began, ``record`` building it, ``cpu`` the worker thread's CPU time in it (ms; below
    ``record`` when it waited for a core, the GIL or another thread's answer)."""
    asked_at = time.perf_counter()
    answer = await _answer(_timed, work, *args)
    if isinstance(answer, JSONResponse):
        return answer
    value, began, done, cpu = answer
    timing = (f"wait;dur={1e3 * (began - asked_at):.1f}, record;dur={1e3 * (done - began):.1f}"
              f", cpu;dur={1e3 * cpu:.1f}")
    return JSONResponse(body(value), headers={"Server-Timing": timing})


def _asked_feature(query, required: bool) -> tuple | JSONResponse:
    """``_asked``'s (booster, X, round, node, class) and the query's feature (``_feature``),
    or the 4xx error that says what is wrong."""
    asked = _asked(query)
    if isinstance(asked, JSONResponse):
        return asked
    feature = _feature(query, asked[0], required)
    return feature if isinstance(feature, JSONResponse) else (*asked, feature)


async def node(request) -> JSONResponse:
    """One node's record as the page draws it, or a 4xx error saying what is wrong."""
    asked = _asked_feature(request.query_params, required=False)
    if isinstance(asked, JSONResponse):
        return asked
    return await _timed_answer(lambda record: record, page_node, *asked)


async def chart(request) -> JSONResponse:
    """One node's candidates chart of one feature, or a 4xx error saying what is wrong."""
    asked = _asked_feature(request.query_params, required=True)
    if isinstance(asked, JSONResponse):
        return asked
    booster, _, r, node_id, klass, feature = asked
    return await _timed_answer(
        lambda figure: {"round": r, "node": node_id, "class": klass, "feature": feature,
                        "chart": figure}, page_chart, booster, r, node_id, klass, feature)


def _timed(work, *args):
    """``work(*args)``, when it began and ended (``time.perf_counter``) and the thread's CPU
    seconds in it."""
    began, cpu = time.perf_counter(), time.thread_time()
    value = work(*args)
    return value, began, time.perf_counter(), time.thread_time() - cpu


async def candidates(request) -> Response:
    """Every candidate split of a node as a CSV file (``booster.split_candidates``)."""
    asked = _asked(request.query_params)
    if isinstance(asked, JSONResponse):
        return asked
    booster, _, r, node_id, klass = asked
    table = await _answer(booster.split_candidates, r, node_id, klass)
    if isinstance(table, JSONResponse):
        return table
    if len(table) > ALL_CANDIDATES_CSV:
        return _error(413, f"{len(table):,} candidates: too many for a CSV here; in Python, "
                           f"bst.split_candidates({r}, {node_id}) gives them all")
    return Response(table.to_csv(index=False), media_type="text/csv", headers={
        "Content-Disposition": f'attachment; filename="round{r}_node{node_id}_candidates.csv"'})


def path(route: str) -> str:
    """``route`` under the server's base path, if any (as the page asks for it)."""
    base = str(st.get_option("server.baseUrlPath") or "").strip("/")
    return f"{'/' + base if base else ''}{route}"


class PreloadPlotly:
    """ASGI middleware: every HTML page the server sends says, in a ``Link`` header, to start
    loading Plotly.js at once, and runs it from its head (an ``async`` script, the element
    viz/js/plotly_load.js looks for): the charts' script is otherwise asked for when the first
    script run has drawn the page's player, and Plotly.js takes about a second to evaluate on
    a slow 2-core machine — then spent while the first script run is under way."""

    def __init__(self, app) -> None:
        self.app = app
        self.link = f"<{path(PLOTLY)}>; rel=preload; as=script".encode()
        self.script = (f'<script async data-boostscope-plotly src="{path(PLOTLY)}" '
                       'onerror="this.dataset.failed=1"></script></head>').encode()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = None  # an HTML page's start, held until its body is whole
        body = []

        async def sending(message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                if any(k.lower() == b"content-type" and v.startswith(b"text/html")
                       for k, v in headers) and not any(
                        k.lower() == b"content-encoding" for k, _ in headers):
                    start = {**message, "headers": [*headers, (b"link", self.link)]}
                    return
            elif start is not None and message["type"] == "http.response.body":
                body.append(message.get("body", b""))
                if message.get("more_body", False):
                    return
                html = b"".join(body).replace(b"</head>", self.script, 1)
                headers = [(k, str(len(html)).encode()) if k.lower() == b"content-length"
                           else (k, v) for k, v in start["headers"]]
                await send({**start, "headers": headers})
                message = {"type": "http.response.body", "body": html, "more_body": False}
            await send(message)

        await self.app(scope, receive, sending)


def middleware() -> list[Middleware]:
    """The middleware ``st.App`` adds (outside Streamlit's own)."""
    return [Middleware(PreloadPlotly)]


def routes() -> list[Route]:
    """The routes ``st.App`` adds (read when the server starts: its base path is set)."""
    return [Route(path(PLOTLY), plotly_js, methods=["GET"]),
            Route(path(NODE), node, methods=["GET"]),
            Route(path(CHART), chart, methods=["GET"]),
            Route(path(CANDIDATES), candidates, methods=["GET"])]


def node_url(booster, X=None, klass: int = 0) -> str:
    """The node route's URL for ``booster`` (trained on ``X``), a model this session holds,
    and its class ``klass``: its id registered for the session (``ui.served``). The page
    adds ``&round=&node=`` (and the candidates' CSV is the same query at ``CANDIDATES``)."""
    ctx = get_script_run_ctx()
    session = ctx.session_id if ctx is not None else ""
    return (f"{path(NODE)}?model={served.register(session, booster, X)}"
            + (f"&class={int(klass)}" if klass else ""))
