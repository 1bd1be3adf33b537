"""What a lesson is made of: ``Step`` (a partial app state, the words, a question and its
reveal) and ``Lesson`` (a sample and its steps); ``setting`` (the state a step asks for) and
``check`` (a lesson's parameters are values the app accepts)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from boost.params import BY_NAME

from ..url import read_param


@dataclass(frozen=True)
class Step:
    say: str  # 1-3 sentences; {name} fields are filled from ``numbers``
    params: Mapping = field(default_factory=dict)  # parameters on top of the lesson's
    round: int = 1
    node: int | None = None
    panels: tuple[str, str] = ("fit", "tree")
    ask: str | None = None  # a question to answer before the reveal
    reveal: str | None = None  # the answer, said after Reveal ({name} fields too)
    # What changes on Reveal (the same keys as the step: params, round, node, panels).
    then: Mapping = field(default_factory=dict)
    numbers: Callable | None = None  # facts -> {name: value}, every number the text quotes
    sample: str | None = None  # another bundled sample than the lesson's
    target: str | None = None
    features: tuple[str, ...] | None = None  # None: every column but the target
    objective: str = "auto"


@dataclass(frozen=True)
class Lesson:
    slug: str
    title: str
    blurb: str
    sample: str
    steps: tuple[Step, ...]
    params: Mapping = field(default_factory=dict)  # every step's, unless the step says


def setting(lesson: Lesson, step: Step, revealed: bool) -> dict:
    """The app state a step asks for, revealed or not: sample, target, features, objective,
    every parameter it sets, round, node and panels."""
    then = step.then if revealed else {}
    return {
        "sample": step.sample or lesson.sample,
        "target": step.target,
        "features": step.features,
        "objective": step.objective,
        "params": {**lesson.params, **step.params, **then.get("params", {})},
        "round": then.get("round", step.round),
        "node": then.get("node", step.node),
        "panels": then.get("panels", step.panels),
    }


def check(lesson: Lesson) -> None:
    """A lesson's parameters must be table parameters with values the app accepts: what a
    link would have to correct (``url.read_param``) is refused."""
    for step in lesson.steps:
        for params in (lesson.params, step.params, step.then.get("params", {})):
            for name, value in params.items():
                _, note = read_param(BY_NAME[name], str(value))
                if note:
                    raise ValueError(f"lesson {lesson.slug}: {name}={value!r} is not a value "
                                     f"the app accepts ({note})")
