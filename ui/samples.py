"""The bundled sample data sets and how the app opens them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parents[1] / "sample_data"


@dataclass(frozen=True)
class Sample:
    key: str
    title: str
    file: str
    target: str
    blurb: str
    # Parameters the sample opens with (by the table's names), e.g. the classic worked
    # example's base_score 0.5 and lambda 0 for the four points.
    params: dict = field(default_factory=dict)
    query: str = ""  # a ranking sample's query column ("": none)

    @property
    def path(self) -> Path:
        return DATA_DIR / self.file


SAMPLES = [
    Sample("four_points", "Four points (hand-checkable)", "four_points.csv", "y",
           "x = 10, 20, 25, 35 and y = -10, 7, 8, -7: every number can be checked by hand; "
           "it opens as the classic worked example (base_score 0.5, λ = 0, depth 2).",
           params={"base_score": "0.5", "lambda": 0.0, "max_depth": 2}),
    Sample("two_points", "Two points (function space)", "two_points.csv", "y",
           "Two rows: the predictions of both form a point in the plane, and each tree "
           "moves it."),
    Sample("noisy_1d", "Noisy sine (1-D regression)", "noisy_1d.csv", "y",
           "200 points around 3 sin x + 0.3 x: watch the step function build up."),
    Sample("moons", "Two moons (2-D, two classes)", "moons.csv", "label",
           "Two interleaving half-circles: a prediction surface you can see."),
    Sample("three_blobs", "Three blobs (2-D, three classes)", "three_blobs.csv", "region",
           "Three clusters with text labels: one tree per class per round."),
    Sample("diabetes", "Diabetes progression (real, 10 features)", "diabetes.csv",
           "progression", "442 patients (Efron et al. 2004): regression on real data."),
    Sample("missing_income", "Missing incomes (missing values)", "missing_income.csv",
           "spend", "120 shoppers; a quarter did not report their income and spend more: "
                    "the trees learn where missing values go."),
    Sample("rare_events", "Rare events (skewed, 17% positive)", "rare_events.csv", "fraud",
           "400 skewed amounts with a rare positive class: hessian-weighted quantiles."),
    Sample("search_queries", "Search results (learning to rank)", "search_queries.csv",
           "relevance", "40 queries of 5 to 30 documents, relevance 0-3 and four numeric "
           "features: LambdaMART ranks each query's documents.", query="query"),
    Sample("three_queries", "Three searches (ranking, hand-checkable)", "three_queries.csv",
           "relevance", "3 queries of 4, 5 and 4 documents, relevance 0-2, two features: "
           "few enough pairs to work LambdaMART's λ out by hand.", query="query"),
    Sample("penguins", "Palmer penguins (real, missing values)", "penguins.csv", "species",
           "344 penguins, 3 species, text columns and missing values."),
]
BY_KEY = {s.key: s for s in SAMPLES}
