"""What ``pip install .`` (and ``pip install ".[notebook]"``) must bring, checked from the
installed packages, away from the checkout:

    cd /tmp && /path/to/venv/bin/python /path/to/checkout/tests/check_installed.py

Every module of ``boost``, ``viz`` and ``ui`` imported from where they were installed (the
three page hosts' loaders read their ES modules from the packages as they import), every
sample table read through ``ui.samples``, a tiny model trained on the four-points sample,
and, where anywidget is installed, the notebook widget of it built and its offline file
written; without anywidget, ``ui.notebook``'s message saying how to install it. Prints one
JSON line (tests/test_packaging.py runs it on the wheel pip builds); exits non-zero when any
of it fails. Run it with ``NUMBA_DISABLE_JIT=1`` to skip compiling the engine.
"""

import importlib
import json
import os
import pkgutil
import sys
import tempfile
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
# the tiny model: the four points' worked example (XGBoost's parameters)
PARAMS = {"max_depth": 2, "eta": 0.3, "lambda": 0.0, "base_score": 0.5}
ROUNDS = 2
# the plain-Python engine's on-purpose arithmetic (NUMBA_DISABLE_JIT=1: 0/0 for a side with
# no rows), as boost/runtime.py and the tests filter it
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"boost\.")


def main() -> dict:
    import pandas as pd

    import boost
    import sample_data
    import ui
    import viz

    out = {"packages": {}, "modules": 0}
    for package in (boost, viz, ui, sample_data):
        where = Path(next(iter(package.__path__))).resolve()  # sample_data: a folder alone
        if where.is_relative_to(CHECKOUT):
            raise SystemExit(f"{package.__name__} was imported from the checkout ({where}), "
                             "not from an installed copy: run this from another folder")
        out["packages"][package.__name__] = str(where)
    for package in (boost, viz, ui):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if module.name != "ui.notebook":  # below: it needs the extra
                importlib.import_module(module.name)
                out["modules"] += 1

    from ui.samples import BY_KEY, SAMPLES
    from viz.page_js import JS_DIR, MODULES
    out["samples"] = {s.key: len(pd.read_csv(s.path)) for s in SAMPLES}
    out["page_modules"] = sorted(p.name for p in JS_DIR.glob("*.js"))
    missing = [m for m in MODULES if not (JS_DIR / m).is_file()]
    if missing:
        raise SystemExit(f"page modules missing from {JS_DIR}: {missing}")

    four = BY_KEY["four_points"]
    frame = pd.read_csv(four.path)
    X, y = frame.drop(columns=four.target), frame[four.target]
    bst = boost.train(PARAMS, X, y, num_boost_round=ROUNDS)
    out["predictions"] = bst.predict(X).tolist()

    try:
        from ui.notebook import show
    except ModuleNotFoundError as e:
        out["notebook"] = {"error": str(e)}
        return out
    w = show(bst, X, y)
    trace = json.loads(w._trace)
    with tempfile.TemporaryDirectory() as tmp:
        html = Path(tmp) / "lecture.html"
        w.save_html(html)
        out["notebook"] = {"rounds": trace["rounds"], "status": trace["status"][-1],
                           "round": w.round, "esm_chars": len(w._esm),
                           "html_bytes": html.stat().st_size}
    return out


if __name__ == "__main__":
    # this file's folder is not a place to import the project from
    sys.path = [p for p in sys.path if Path(p or os.getcwd()).resolve() != HERE]
    print(json.dumps(main()))
