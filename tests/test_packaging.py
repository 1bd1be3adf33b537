"""``pip install .`` ships what the app and the notebook widget need (pyproject.toml;
docs/notebook.md, "Installing"). The wheel pip builds from a copy of this checkout's tracked
files (a copy: a checkout's own ``build/`` folder may hold a stale earlier build, which
setuptools would ship) holds every file git tracks under the packages' folders (the engine,
the figures and the page's ES modules, the app's screen and its own page modules, the
sample tables) and nothing else: exactly the four import names the docs name, and the
runtime's requirements (requirements.txt) with anywidget as the ``notebook`` extra. Then,
unpacked into an empty folder and imported from there, away from the checkout
(tests/check_installed.py, the engine's JIT off): every module imports, every sample table
reads, the four points' two-round model predicts XGBoost's margins bit for bit, and the
notebook widget (the same page module as the checkout's) and its offline file are built.

pip's own build (an isolated build environment with setuptools from the package index, as
``pip install .`` makes one): about 3 s on this machine; the run from the unpacked wheel
about 3 s. Installing into a fresh venv (about 40 s, mostly the runtime's wheels) is left to
the commands in docs/notebook.md."""

import json
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xgboost
from check_installed import PARAMS, ROUNDS

import boost
import ui
import ui.notebook
import viz
from ui.samples import BY_KEY, SAMPLES

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"boost", "viz", "ui", "sample_data"}  # the import names docs/notebook.md names


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """The wheel pip builds from a copy of the tracked files: (its path, the tracked files
    under the packages' folders, a scratch folder)."""
    tmp = tmp_path_factory.mktemp("packaging")
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                             check=True).stdout.decode().split("\0")
    tracked = [name for name in tracked if name and (ROOT / name).is_file()]
    for name in tracked:
        (tmp / "src" / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, tmp / "src" / name)
    run = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w",
                          str(tmp / "dist"), str(tmp / "src")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    wheel = next((tmp / "dist").glob("boostscope-*.whl"))
    return wheel, {n for n in tracked if n.split("/")[0] in PACKAGES}, tmp


def test_the_wheel_holds_the_packages_whole_and_nothing_else(build):
    wheel, tracked, _ = build
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        info = next(n for n in names if n.endswith(".dist-info/METADATA")).rsplit("/", 1)[0]
        top_level = set(z.read(f"{info}/top_level.txt").decode().split())
        metadata = z.read(f"{info}/METADATA").decode()
    shipped = {n for n in names if not n.startswith(info + "/")}
    assert sorted(tracked - shipped) == [], "tracked files pip install . leaves out"
    assert sorted(shipped - tracked) == [], "files the wheel has that git does not track"
    assert top_level == PACKAGES
    # the runtime's requirements, each by name, and anywidget only with the extra
    requires = re.findall(r"^Requires-Dist: ([A-Za-z0-9_.-]+)(.*)$", metadata, re.M)
    runtime = {re.match(r"[A-Za-z0-9_.-]+", line).group(0) for line in
               (ROOT / "requirements.txt").read_text().splitlines()
               if line.strip() and not line.startswith("#")}
    assert {name for name, rest in requires if "extra ==" not in rest} == runtime
    assert [name for name, rest in requires if "extra ==" in rest] == ["anywidget"]
    assert "Provides-Extra: notebook" in metadata


def test_the_unpacked_wheel_runs_away_from_the_checkout(build):
    wheel, _, tmp = build
    site, elsewhere = tmp / "site", tmp / "elsewhere"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(site)
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "NUMBA_DISABLE_JIT": "1"}
    run = subprocess.run([sys.executable, str(ROOT / "tests" / "check_installed.py")],
                         cwd=elsewhere, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    got = json.loads(run.stdout.strip().splitlines()[-1])

    assert got["packages"] == {name: str(site / name) for name in PACKAGES}
    assert got["modules"] == sum(  # the checkout's, walked the same way
        1 for package in (boost, viz, ui) for m in pkgutil.walk_packages(
            package.__path__, package.__name__ + ".") if m.name != "ui.notebook")
    assert got["samples"] == {s.key: len(pd.read_csv(s.path)) for s in SAMPLES}
    assert got["page_modules"] == sorted(p.name for p in (ROOT / "viz" / "js").glob("*.js"))

    four = BY_KEY["four_points"]
    frame = pd.read_csv(four.path)
    X, y = frame.drop(columns=four.target), frame[four.target]
    xgb = xgboost.train(PARAMS, xgboost.DMatrix(X, y), num_boost_round=ROUNDS)
    np.testing.assert_array_equal(np.float32(got["predictions"]),
                                  xgb.predict(xgboost.DMatrix(X)))

    widget = got["notebook"]
    assert widget["rounds"] == ROUNDS and widget["round"] == ROUNDS
    assert widget["status"].startswith(f"Round {ROUNDS} of {ROUNDS}")
    assert widget["esm_chars"] == len(ui.notebook.ESM)  # the same page modules, whole
    assert widget["html_bytes"] > 4_000_000  # the offline file carries Plotly.js (4.8 MB)
