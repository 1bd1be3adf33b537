"""Guided lessons: each a list of steps, one module per lesson, registered under a URL slug.

A step is data: a partial app state (sample, columns, parameters, round, node, the two panels
on screen) plus 1-3 sentences and, where the step teaches, a question the audience answers
before the lecturer reveals the result. The sentences quote numbers only through
``numbers(facts)``, which reads them from the engine for the model on screen
(``ui/lessons/facts.py``); nothing a lesson says is typed in. docs/lessons.md walks through
adding a lesson.
"""

from __future__ import annotations

from . import (
    classification,
    four_points,
    function_space,
    learning_rate,
    missing_values,
    pruning,
    quantile_sketch,
    quantiles,
    ranking,
)
from .steps import Lesson, check

REGISTRY: tuple[Lesson, ...] = (four_points.LESSON, function_space.LESSON,
                                learning_rate.LESSON, pruning.LESSON, missing_values.LESSON,
                                classification.LESSON, quantile_sketch.LESSON,
                                quantiles.LESSON, ranking.LESSON)
LESSONS = {lesson.slug: lesson for lesson in REGISTRY}
for _lesson in REGISTRY:
    check(_lesson)
