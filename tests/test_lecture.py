"""The offline lecture file's command line (``python -m ui.lecture``): a bad parameter, an
unknown sample or lesson and an unreadable table each end with one line on stderr and exit
code 2 (never a traceback); a CSV table trains as the app would train it; a lesson's models
are trained once and their traces sent once, with the engine's numbers in the texts."""

import json
import re
import subprocess
import sys

import pytest

from boost.params import APP_PARAMS
from boost.trace.rounding import rounded
from ui import lecture, nodes
from ui.lecture import main
from ui.samples import SAMPLES

ROOT = lecture.Path(__file__).resolve().parents[1]


def _trace(path) -> dict:
    text = path.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="boostscope-trace">(.*?)</script>',
                      text, re.S)
    return json.loads(found.group(1))


def test_a_bad_value_exits_2_with_a_message(tmp_path, capsys):
    out = tmp_path / "x.html"
    assert main(["--sample", "diabetes", "--param", "max_depth=99", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == "error: --param 'max_depth=99': max_depth=99 is outside 0 to 10\n"
    assert main(["--sample", "diabetes", "--param", "tree_method=fast", "-o", str(out)]) == 2
    assert "tree_method=fast is not one of hist, approx, exact" in capsys.readouterr().err
    assert main(["--sample", "diabetes", "--param", "eta", "-o", str(out)]) == 2
    assert "write name=value" in capsys.readouterr().err
    assert not out.exists()


def test_an_unknown_parameter_lists_the_valid_names(tmp_path, capsys):
    assert main(["--sample", "diabetes", "--param", "depth=3", "-o", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip()
    assert "unknown parameter 'depth'" in err and "\n" not in err
    for p in APP_PARAMS:  # one source: the parameter table's app parameters
        assert p.name in err


def test_an_unknown_sample_lists_the_samples(tmp_path, capsys):
    assert main(["--sample", "diabets", "-o", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown sample 'diabets'; the samples: ")
    assert all(s.key in err for s in SAMPLES)
    assert main(["--lesson", "four-pints", "-o", str(tmp_path / "x.html")]) == 2
    assert "the lessons: four-points, " in capsys.readouterr().err


def test_a_bad_table_says_what_the_app_says(tmp_path, capsys):
    one = tmp_path / "one.csv"
    one.write_text("a\n1\n2\n")
    assert main(["--table", str(one), "-o", str(tmp_path / "x.html")]) == 2
    assert capsys.readouterr().err == (
        "error: one.csv has a single column. A model needs a target and at least one feature; "
        "if the file uses another separator, save it with commas.\n")
    assert main(["--table", str(tmp_path / "none.csv"), "-o", str(tmp_path / "x.html")]) == 2
    assert "cannot read" in capsys.readouterr().err
    good = tmp_path / "good.csv"
    good.write_text("x,y\n1,2\n3,4\n5,6\n")
    assert main(["--table", str(good), "--target", "z", "-o", str(tmp_path / "x.html")]) == 2
    assert capsys.readouterr().err == "error: no column 'z' in good.csv; its columns: x, y\n"


def test_the_command_never_shows_a_traceback():
    """As a command: one line on stderr (no Streamlit warnings about running bare), exit 2."""
    run = subprocess.run([sys.executable, "-m", "ui.lecture", "--sample", "nope", "-o",
                          "/nonexistent/x.html"], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 2
    assert run.stderr.startswith("error: unknown sample 'nope'; the samples: four_points")
    assert run.stderr.count("\n") == 1, run.stderr


def test_a_csv_table_trains_as_the_app_does(tmp_path, capsys):
    table = tmp_path / "sales.csv"
    rows = [f"{(x * 3) % 13 * 1.5},{(x * 7) % 5},{x * 0.5 + (x % 3)}" for x in range(40)]
    table.write_text("day,shop,revenue\n" + "\n".join(rows) + "\n")
    out = tmp_path / "sales.html"
    assert main(["--table", str(table), "--target", "revenue", "--rounds", "7", "--param",
                 "max_depth=2", "-o", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {out}")
    trace = _trace(out)
    assert trace["rounds"] == 7 and trace["tree"]["features"] == ["day", "shop"]
    # the same model as the app's configuration trains: its loss in the status line
    t = lecture.file_table(str(table))
    config = lecture.table_config(t, lecture.model_params({}, ["max_depth=2"], 7), "revenue")
    assert config["objective"] == "reg:squarederror" and config["max_depth"] == 2
    booster = lecture.train(config, t).booster
    history = booster.loss_history()
    assert trace["status"][5] == "Round 5 of 7 — " + ", ".join(
        f"{name} rmse {rounded(history[name].iloc[5])}" for name in history.columns)


def test_offline_panels():
    # the node's arithmetic and candidates: the player's, from the records the file carries
    assert lecture.offline_panels(("fit", "node")) == (["fit", "node"], [])
    assert lecture.offline_panels(("candidates", "node")) == (["candidates", "node"], [])
    assert lecture.offline_panels(("function-space", "node")) == (["node", "tree"],
                                                                  ["function-space"])
    assert lecture.offline_panels(("fit", "loss")) == (["fit", "loss"], [])
    assert lecture.offline_panels(("residuals",)) == (["fit", "tree"], ["residuals"])


@pytest.fixture(scope="module")
def four_points():
    return lecture.lesson_data("four-points")


def test_a_lesson_sends_each_model_once(four_points):
    data = four_points
    states = [s["at"] for s in data["steps"]] + [s["revealed"]["at"] for s in data["steps"]
                                                  if "revealed" in s]
    assert len(states) == 8 + 5  # every step, and the five with a question revealed
    # four models: λ 0 γ 0 (most steps), λ 1, γ 130, γ 150
    assert len(data["traces"]) == 4
    assert sorted({s["trace"] for s in states}) == [0, 1, 2, 3]
    assert len({t["id"] for t in data["traces"]}) == 4
    assert all("goto" not in t for t in data["traces"])
    first, second = data["steps"][0], data["steps"][1]
    # (step 1 shows the baseline: round 1's fit would answer step 2's question)
    assert first["at"] == {"trace": 0, "round": 0, "node": 0, "panels": ["fit"],
                           "app_panels": [], "stop": None}
    assert second["at"]["round"] == 0 and second["revealed"]["at"]["round"] == 1
    # step 2's question: round 1's root worked out up to its similarity, the split after
    # Reveal
    assert second["at"]["panels"] == ["fit", "node"]
    assert second["at"]["stop"] == "similarity left" and second["revealed"]["at"]["stop"] is None
    # the engine's numbers, as the app's lesson bar says them
    assert "are −10.5, 6.5, 7.5 and −7.5." in first["say"]
    assert "x < 15: gain 120.33 (left similarity 110.25, right 14.08)" in \
        second["revealed"]["reveal"]
    lam = data["steps"][3]
    assert "similarity 110.25 and the root's gain is 120.33" in lam["ask"]
    assert lam["revealed"]["reveal"].startswith("Similarity 55.13 and gain 62.49")
    assert lam["at"]["trace"] == 0 and lam["revealed"]["at"]["trace"] != 0  # λ = 0, then 1
    # the node each step shows (its node at its round: the four points' trees have it) is in
    # the file, as the app's node route answers it but with no CSV link
    for at in states:
        if at["round"] >= 1:
            assert f"{at['round']}:{at['node']}" in data["traces"][at["trace"]]["records"], at
        elif "node" in at["panels"]:  # round 0's node panel: round 1's tree, next
            assert f"1:{at['node']}" in data["traces"][at["trace"]]["records"], at
    root = data["traces"][0]["records"]["1:0"]
    assert root["best"]["gain"] == pytest.approx(120.3333, rel=1e-5) and root["csv"] is False
    assert "charts" in root and "curves" not in root


def test_a_models_file_carries_its_nodes_up_to_a_budget():
    """Round 1's nodes, then round 2's, ... while they fit in the budget; the rest are left
    to the app (the page says so on the node)."""
    table = lecture.sample_table("diabetes")
    config = lecture.table_config(table, lecture.model_params({}, ["max_depth=2"], 3),
                                  "progression")
    model = lecture.train(config, table)
    every = nodes.model_records(model.booster, model.prep.X_train, budget=10**9)
    assert list(every) == [f"{r}:{n}" for r in (1, 2, 3) for n in range(7)]
    sizes = [len(json.dumps(r, separators=(",", ":"))) for r in every.values()]
    some = nodes.model_records(model.booster, model.prep.X_train, budget=sum(sizes[:5]))
    assert list(some) == list(every)[:5] and some["1:0"] == every["1:0"]
