"""Write the synthetic sample data sets of BoostScope (deterministic, seeded).

    python sample_data/make_samples.py

The two real data sets (diabetes.csv, penguins.csv) are copies of published data; their
sources and licences are in sample_data/README.md.
"""

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent


def four_points() -> pd.DataFrame:
    return pd.DataFrame({"x": [10, 20, 25, 35], "y": [-10, 7, 8, -7]})


def noisy_1d(n: int = 200, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(0, 10, n))
    y = np.sin(x) * 3 + 0.3 * x + rng.normal(scale=0.6, size=n)
    return pd.DataFrame({"x": x.round(3), "y": y.round(3)})


def moons(n: int = 300, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    half = n // 2
    t_outer = rng.uniform(0, np.pi, half)
    t_inner = rng.uniform(0, np.pi, n - half)
    outer = np.c_[np.cos(t_outer), np.sin(t_outer)]
    inner = np.c_[1 - np.cos(t_inner), 0.5 - np.sin(t_inner)]
    xy = np.r_[outer, inner] + rng.normal(scale=0.2, size=(n, 2))
    label = np.r_[np.zeros(half, int), np.ones(n - half, int)]
    order = rng.permutation(n)
    return pd.DataFrame({"x1": xy[order, 0].round(3), "x2": xy[order, 1].round(3),
                         "label": label[order]})


def three_blobs(n: int = 300, seed: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [2.5, 2.0], [-1.5, 2.5]])
    label = rng.integers(0, 3, n)
    xy = centres[label] + rng.normal(scale=0.9, size=(n, 2))
    names = np.array(["north", "east", "west"])
    return pd.DataFrame({"x1": xy[:, 0].round(3), "x2": xy[:, 1].round(3),
                         "region": names[label]})


def two_points() -> pd.DataFrame:
    """Two rows: the prediction vector F has two coordinates and can be drawn in a plane."""
    return pd.DataFrame({"x": [1, 2], "y": [3.0, -1.0], "clicked": [1, 0]})


def missing_income(n: int = 120, seed: int = 3) -> pd.DataFrame:
    """Spending against income and age, with a quarter of the incomes not reported; the
    rows without an income spend more than most, so the trees learn to send them right."""
    rng = np.random.default_rng(seed)
    income = rng.uniform(20, 120, n)
    age = rng.integers(18, 80, n)
    spend = 0.4 * income + 0.2 * age + rng.normal(scale=4.0, size=n)
    hidden = rng.random(n) < 0.25
    spend[hidden] += 25.0
    income = np.where(hidden, np.nan, income.round(1))
    return pd.DataFrame({"earnings": income, "age": age, "spend": spend.round(2)})


def rare_events(n: int = 400, seed: int = 4) -> pd.DataFrame:
    """A skewed feature (log-normal amounts) and a rare positive class (about 1 in 10),
    concentrated at large amounts: where the hessians p(1 - p) of a trained model differ."""
    rng = np.random.default_rng(seed)
    amount = np.exp(rng.normal(3.0, 1.0, n))
    p = 1 / (1 + np.exp(-(np.log(amount) - 4.2) * 2.5))
    fraud = (rng.random(n) < p).astype(int)
    return pd.DataFrame({"amount": amount.round(2), "fraud": fraud})


def search_queries(n_queries: int = 40, seed: int = 5) -> pd.DataFrame:
    """A small learning-to-rank table (LETOR-like): 40 queries of 5 to 30 documents, each
    with four numeric features and a graded relevance 0-3 drawn from a hidden score."""
    rng = np.random.default_rng(seed)
    parts = []
    for q in range(1, n_queries + 1):
        n = int(rng.integers(5, 31))
        match = rng.uniform(0, 10, n)  # how well the text matches the query
        fresh = rng.uniform(0, 365, n)  # days since the document was written
        popular = rng.lognormal(3, 1, n)  # visits
        length = rng.integers(50, 3000, n)  # words
        hidden = (0.5 * match - 0.004 * fresh + 0.4 * np.log(popular)
                  + rng.normal(scale=0.8, size=n))
        cuts = np.quantile(hidden, [0.5, 0.8, 0.93])  # about half 0, a few 3 per query
        relevance = np.searchsorted(cuts, hidden, side="right")
        parts.append(pd.DataFrame({"query": q, "text_match": match.round(2),
                                   "age_days": fresh.round(0).astype(int),
                                   "visits": popular.round(0).astype(int),
                                   "words": length, "relevance": relevance}))
    return pd.concat(parts, ignore_index=True)


def three_queries() -> pd.DataFrame:
    """Three searches of 4, 5 and 4 documents with relevance 0-2, small enough to check
    LambdaMART's pairs by hand (the ranking lesson): how well the text matches and how often
    the document was clicked; in the first query the document of relevance 1 matches the
    text better than the one of relevance 2."""
    rows = [(1, 2.0, 3, 0), (1, 6.0, 40, 2), (1, 8.0, 12, 1), (1, 3.5, 5, 0),
            (2, 5.5, 20, 1), (2, 1.5, 2, 0), (2, 9.0, 35, 2), (2, 4.0, 8, 0), (2, 7.5, 6, 0),
            (3, 3.0, 4, 0), (3, 6.5, 25, 1), (3, 2.5, 1, 0), (3, 7.0, 30, 2)]
    return pd.DataFrame(rows, columns=["query", "text_match", "clicks", "relevance"])


SYNTHETIC = {
    "two_points.csv": two_points,
    "missing_income.csv": missing_income,
    "rare_events.csv": rare_events,
    "four_points.csv": four_points,
    "noisy_1d.csv": noisy_1d,
    "moons.csv": moons,
    "three_blobs.csv": three_blobs,
    "search_queries.csv": search_queries,
    "three_queries.csv": three_queries,
}


def main() -> None:
    for name, make in SYNTHETIC.items():
        make().to_csv(HERE / name, index=False)
        print("wrote", HERE / name)


if __name__ == "__main__":
    main()
