"""The offline lecture file from the command line: train a model (a bundled sample or your own
table) or every model of a lesson, and write the page's player as ONE self-contained HTML
file (``viz/export.py``) that opens from disk with no server and no network::

    python -m ui.lecture --sample diabetes --param max_depth=3 --param eta=0.1 -o lecture.html
    python -m ui.lecture --table sales.csv --target revenue --rounds 50 -o sales.html
    python -m ui.lecture --lesson four-points -o four-points.html

Why ``ui.lecture`` and not ``python -m viz.export`` (what the issue asked for): the layers
import one way, app -> ui -> viz -> boost (tests/test_layers.py), and ``viz`` draws records
only: it may not train a model nor ask a Booster or its Trace anything. Building a file
means reading a table, training and reading the engine's numbers, which is ``ui``'s work;
``viz/export.py`` keeps writing the file from the traces it is given.

The same steps as the app, without Streamlit's session: the table is read by ``ui/tables``
(the app's checks and messages), parameters are checked against the parameter table
(``boost.params``, as a link's are), the model trains through ``ui.training``'s cached
functions and its trace is ``ui.stage.model_trace``'s; a lesson's texts are
``ui.lesson.step_texts`` with ``Facts`` of each step's model. Bad input: one line on stderr
and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys

if __name__ == "__main__":  # a command, not a server: Streamlit's warnings about running
    # without one (caches kept in memory, no script run) would bury the one-line messages
    import streamlit.logger
    from streamlit import config

    config.get_option("logger.level")  # the config read now, not again halfway through
    config.set_option("logger.level", "error", where_defined="ui.lecture")
    streamlit.logger.set_log_level("error")
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from boost.objectives import OBJECTIVES
from boost.params import ALIASES, APP_PARAMS, BY_NAME
from viz.export import offline_html, offline_lesson_html
from viz.round_trace import PANELS

from . import tables, url
from .lesson import step_texts
from .lessons import LESSONS, REGISTRY
from .lessons.facts import Facts
from .lessons.steps import Lesson, Step, setting
from .nodes import model_records, offline, page_node, shown_node
from .present import PLAYER_PANELS
from .samples import BY_KEY, SAMPLES, Sample
from .sidebar import feature_columns, inferred_task, objectives_for
from .stage import model_trace
from .state import Model, Shown
from .training import TrainingError, train_cached, training_config

USAGE_ERROR = 2
PARAM_NAMES = tuple(p.name for p in APP_PARAMS)  # what --param may set: the app's parameters


class LectureError(Exception):
    """Bad input, said in one line (exit code 2)."""


@dataclass(frozen=True)
class Table:
    """A table to train on: its name (the app's title for it), digest and frame."""

    name: str
    digest: str
    frame: pd.DataFrame
    flags: dict


# ------------------------------------------------------------------------- parameters
def parse_param(text: str) -> tuple[str, object]:
    """``name=value`` as the app's widget value, checked as a link's parameter is
    (``url.read_param``): a value the app would have to correct is refused."""
    name, sep, value = text.partition("=")
    name = name.strip()
    if not sep or not name:
        raise LectureError(f"--param {text!r}: write name=value, e.g. --param max_depth=3")
    name = ALIASES.get(name, name)
    if name not in PARAM_NAMES:
        raise LectureError(f"--param {text!r}: unknown parameter {name!r}; valid names: "
                           + ", ".join(PARAM_NAMES))
    widget_value, note = url.read_param(BY_NAME[name], value.strip())
    if note:
        raise LectureError(f"--param {text!r}: " + note.rsplit(": using", 1)[0])
    return name, widget_value


def model_params(presets: dict, given: list[str], rounds: int | None) -> dict:
    """Every app parameter: its widget default, the sample's presets, then ``--param``s and
    ``--rounds`` (num_boost_round)."""
    params = {p.name: url.widget_default(p) for p in APP_PARAMS}
    params.update(presets)
    for text in given:
        name, value = parse_param(text)
        params[name] = value
    if rounds is not None:
        params["num_boost_round"] = parse_param(f"num_boost_round={rounds}")[1]
    return params


# ------------------------------------------------------------------------------ data
def read_table(raw: bytes, filename: str, name: str) -> Table:
    """A table read as the app reads an upload (``ui/tables``: same checks, same words)."""
    try:
        table = tables.read_table(raw, filename)
    except tables.DataError as exc:
        raise LectureError(str(exc)) from None
    return Table(name, tables.digest(raw), table.frame, tables.column_flags(table.frame))


def sample_table(key: str) -> Table:
    sample = sample_of(key)
    return read_table(sample.path.read_bytes(), sample.file, sample.title)


def sample_of(key: str) -> Sample:
    if key not in BY_KEY:
        raise LectureError(f"unknown sample {key!r}; the samples: "
                           + ", ".join(s.key for s in SAMPLES))
    return BY_KEY[key]


def file_table(path: str) -> Table:
    file = Path(path)
    try:
        raw = file.read_bytes()
    except OSError as exc:
        raise LectureError(f"cannot read {path}: {exc.strerror or exc}") from None
    return read_table(raw, file.name, file.name)


def table_config(table: Table, params: dict, target: str | None = None,
                 features=None, objective: str = "auto", query: str = "") -> dict:
    """The training configuration the app would build (``training.current_config``) for
    this table, its columns and parameters: ``target`` None is the app's guess, ``features``
    None every usable column, ``objective`` "auto" the task's default, ``query`` a ranking's
    query column ("": none)."""
    frame = table.frame
    columns = list(frame.columns)
    if target is None:
        target = tables.default_target(frame)
    if target not in columns:
        raise LectureError(f"no column {target!r} in {table.name}; its columns: "
                           + ", ".join(map(str, columns)))
    if query and query not in columns:
        raise LectureError(f"no column {query!r} in {table.name}")
    features = list(features or feature_columns(frame, table.flags, target, query=query))
    missing = [f for f in features if f not in columns]
    if missing:
        raise LectureError(f"no column {missing[0]!r} in {table.name}")
    task = OBJECTIVES[objective].task if objective != "auto" else "auto"
    if objective == "auto":  # as sidebar.set_columns: the task's default objective
        objective = objectives_for("ranking" if query else
                                   inferred_task(table.digest, target, frame))[0]
    return training_config(table.digest, table.name, target, features, task, None,
                           objective, params, query or None)


def train(config: dict, table: Table) -> Model:
    """The model of ``config`` (``training.train_cached``: once per configuration)."""
    try:
        booster, prep = train_cached(config, table.frame)
    except TrainingError as exc:
        raise LectureError(f"Cannot train: {exc}") from None
    return Model(booster, prep, config)


def trace_of(model: Model, panels=PANELS) -> dict:
    """The lecture's trace of a model: projector type, the panels filling the window."""
    return model_trace(model, 0, large=True, fill=True, panels=panels)


# --------------------------------------------------------------------------- lessons
def offline_panels(panels) -> tuple[list[str], list[str]]:
    """(the player's panels for a step's panels, the app-only panels left out). The player
    draws fit, loss and tree, and the node's arithmetic and candidates from the records the
    file carries; a step about another view shows the tree beside what the player draws,
    with the step's node selected and its numbers boxed."""
    kept = [p for p in panels if p in PLAYER_PANELS]
    dropped = [p for p in panels if p not in PLAYER_PANELS]
    if not kept:
        kept = ["fit", "tree"]
    elif dropped and "tree" not in kept:
        kept.append("tree")
    return kept, dropped


class LessonBuild:
    """A lesson's models, trained once each, and their traces, each sent once."""

    def __init__(self, lesson: Lesson):
        self.lesson = lesson
        self.tables: dict[str, Table] = {}
        self.traces: list[dict] = []
        self.index: dict[str, int] = {}  # trace id -> its place in ``traces``

    def model(self, config: dict, table: Table) -> Model:
        return train(config, table)  # once per configuration (``train_cached``)

    def trace_index(self, model: Model) -> int:
        trace = trace_of(model)
        if trace["id"] not in self.index:
            self.index[trace["id"]] = len(self.traces)
            self.traces.append({k: v for k, v in trace.items() if k != "goto"})
        return self.index[trace["id"]]

    def state(self, step: Step, revealed: bool) -> dict:
        """Where the step puts the stage (revealed or not) and what it says there."""
        want = setting(self.lesson, step, revealed)
        key = want["sample"]
        if key not in self.tables:
            self.tables[key] = sample_table(key)
        table = self.tables[key]
        params = {p.name: want["params"].get(p.name, url.widget_default(p)) for p in APP_PARAMS}
        config = table_config(table, params, want["target"] or BY_KEY[key].target,
                              want["features"], want["objective"], BY_KEY[key].query)
        model = self.model(config, table)
        n = model.booster.num_boosted_rounds()
        r = min(max(int(want["round"]), 0), n)
        shown = Shown(model.booster, model.prep, config, r, True)
        facts = Facts(shown, lambda other: self.model(other, table).booster)
        say, ask, reveal = step_texts(step, facts)
        panels, dropped = offline_panels(want["panels"])
        index = self.trace_index(model)
        # the node the step shows: its record in the file (at round 0 the node panel shows
        # round 1's tree, the one that comes next: viz/js/node_view.js)
        at = 1 if r == 0 and "node" in panels else r
        node = shown_node(model.booster, at, want["node"])
        if node is not None:
            records = self.traces[index].setdefault("records", {})
            records[f"{at}:{node}"] = offline(page_node(model.booster, model.prep.X_train, at,
                                                        node))
        return {"trace": index, "round": r, "node": want["node"],
                "panels": panels, "app_panels": dropped, "say": say, "ask": ask,
                "reveal": reveal, "stop": want["stop"]}

    def data(self) -> dict:
        """The lesson host's data (docs/player.md, "The lesson file")."""
        steps = []
        for step in self.lesson.steps:
            before = self.state(step, False)
            entry = {**{k: before[k] for k in ("say", "ask")}, "at": _at(before)}
            if step.ask:
                after = self.state(step, True)
                entry["revealed"] = {"say": after["say"], "reveal": after["reveal"],
                                     "at": _at(after)}
            steps.append(entry)
        return {"version": 1, "slug": self.lesson.slug, "title": self.lesson.title,
                "traces": self.traces, "steps": steps}


def _at(state: dict) -> dict:
    return {k: state[k] for k in ("trace", "round", "node", "panels", "app_panels", "stop")}


def lesson_data(slug: str) -> dict:
    if slug not in LESSONS:
        raise LectureError(f"unknown lesson {slug!r}; the lessons: "
                           + ", ".join(lesson.slug for lesson in REGISTRY))
    return LessonBuild(LESSONS[slug]).data()


def lesson_file(slug: str) -> str:
    """A whole lesson as one offline HTML file (its models from the app's training cache)."""
    data = lesson_data(slug)
    return offline_lesson_html(data, f"BoostScope · {data['title']}")


def lesson_button(slug: str, key: str) -> None:
    """The lesson bar's "Download for offline": the whole lesson, every step's model, text,
    question and reveal, as one HTML file (built when pressed)."""
    import streamlit as st

    st.download_button("", lambda: lesson_file(slug), file_name=f"boostscope-{slug}.html",
                       mime="text/html", key=key, icon=":material/download:",
                       on_click="ignore", use_container_width=True,
                       help="Download this lesson for offline: every step (its text, question, "
                            "reveal, rounds and trees) in one HTML file that opens from disk, "
                            "with no server and no network.")


# ---------------------------------------------------------------------- command line
def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m ui.lecture",
        description="Write BoostScope's player as one offline HTML file (no server, no "
                    "network): a model of a sample or your table, or a whole lesson.")
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--sample", help="a bundled sample: " + ", ".join(BY_KEY))
    what.add_argument("--table", metavar="PATH", help="your table: .csv, .parquet or .xlsx")
    what.add_argument("--lesson", help="a whole lesson: " + ", ".join(LESSONS))
    p.add_argument("--target", help="the column to predict (default: the sample's, or the "
                                    "app's guess for a table)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                   help="a parameter, as in the app (repeat it): " + ", ".join(PARAM_NAMES))
    p.add_argument("--rounds", type=int, help="boosting rounds (num_boost_round)")
    p.add_argument("--title", help="the page's title")
    p.add_argument("-o", "--output", required=True, metavar="FILE.html")
    return p


def build(args: argparse.Namespace) -> str:
    """The offline file's HTML for the parsed command line."""
    if args.lesson:
        if args.param or args.rounds is not None or args.target:
            raise LectureError("--lesson sets its own data and parameters: leave out "
                               "--param, --rounds and --target")
        data = lesson_data(args.lesson)
        return offline_lesson_html(data, args.title or f"BoostScope · {data['title']}")
    if args.sample:
        sample = sample_of(args.sample)
        table, presets = sample_table(args.sample), sample.params
        target, query = args.target or sample.target, sample.query
    else:
        table, presets, target, query = file_table(args.table), {}, args.target, ""
    config = table_config(table, model_params(presets, args.param, args.rounds), target,
                          query=query)
    model = train(config, table)
    trace = {**trace_of(model), "records": model_records(model.booster, model.prep.X_train)}
    return offline_html(trace, args.title or f"BoostScope · {table.name}")


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)  # argparse's own errors exit 2 with its usage line
    try:
        text = build(args)
        out = Path(args.output)
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise LectureError(f"cannot write {out}: {exc.strerror or exc}") from None
    except LectureError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return USAGE_ERROR
    print(f"wrote {out} ({len(text.encode()) / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
