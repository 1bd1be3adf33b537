"""Opening an XGBoost model in a real browser at 1280×720: a model file made here with
XGBoost and a CSV sample uploaded in the sidebar, a round stepped, a node clicked (the
model's gain and cover beside the sample's numbers), then a trained model verified with
XGBoost (the badge). Screenshots under tests/screenshots/models/. Uses test_browser.py's
server."""

import re

import numpy as np
import pandas as pd
import xgboost as xgb
from harness import (
    SHOTS,
    _status,
    charts_drawn,
    click_node,
    idle,
    new_page,
    player_button,
    player_drawn,
    pointer_gone,
    run_of,
)
from playwright.sync_api import expect

MODELS = SHOTS / "models"


def _files(tmp_path):
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(400, 3)), columns=["age", "dose", "bmi"])
    y = ((X.age + X.dose ** 2 + rng.normal(size=400) * 0.3) > 1).astype(int)
    model = xgb.train({"objective": "binary:logistic", "max_depth": 2, "eta": 0.5},
                      xgb.DMatrix(X.iloc[:300], label=y[:300]), 6)
    path = tmp_path / "clinic.ubj"
    model.save_model(str(path))
    sample = tmp_path / "clinic-sample.csv"
    X.iloc[300:].assign(outcome=y[300:]).to_csv(sample, index=False)
    return path, sample


def _no_failure(page):
    assert page.get_by_test_id("stException").count() == 0
    assert not page.get_by_test_id("stAlertContentError").all_inner_texts()


def test_open_a_model_step_click_a_node_and_verify(browser, server, tmp_path):  # noqa: F811
    MODELS.mkdir(parents=True, exist_ok=True)
    model_path, sample_path = _files(tmp_path)
    page = new_page(browser, viewport={"width": 1280, "height": 720})
    page.goto(f"{server}/?sample=moons&rounds=20&max_depth=3")
    idle(page)
    expect(_status(page)).to_contain_text("Round 0 of 20", timeout=60_000)

    with run_of(page):
        page.locator(".st-key-open_panel label").first.click()
    expect(page.locator(".st-key-open_model_file input[type=file]")).to_be_attached()
    with run_of(page):
        page.locator(".st-key-open_model_file input[type=file]").set_input_files(
            str(model_path))
    with run_of(page):
        page.locator(".st-key-open_sample_file input[type=file]").set_input_files(
            str(sample_path))
    target = page.locator(".st-key-open_target input")
    target.click()
    target.fill("outcome")
    # the combobox offers the typed column before Enter can choose it
    expect(page.get_by_role("option", name="outcome")).to_be_visible()
    with run_of(page):
        target.press("Enter")
    with run_of(page):
        page.locator(".st-key-open_model button").click()
    expect(_status(page)).to_contain_text("Round 0 of 6 — sample logloss", timeout=60_000)
    expect(page.get_by_text("Candidate splits recomputed on the sample", exact=False).first
           ).to_be_visible()
    with run_of(page):  # the player steps; the view below follows at rest
        player_button(page, "step").click()
        expect(_status(page)).to_contain_text("Round 1 of 6 — sample logloss")
    # the tree view shows the root of round 1's tree until a node is clicked
    details = page.locator('[data-testid="boostscope-node"]')  # drawn by the page
    expect(details).to_contain_text("Node 0 of round 1", timeout=30_000)
    expect(details).to_contain_text("Node 0: the model's numbers and the sample's")
    charts_drawn(page)
    _no_failure(page)
    page.screenshot(path=str(MODELS / "open-model-round-1-720p.png"))

    player_drawn(page)
    click_node(page, 1)  # node 1, a split (depth 2: splits 0, 1 and 2): the page's alone
    expect(page.locator(".bsp-tree .bsp-info")).to_contain_text("node 1")
    expect(details).to_contain_text("Node 1 of round 1", timeout=30_000)
    expect(details).to_contain_text("Node 1: the model's numbers and the sample's")
    details.locator(".bsn-table").first.scroll_into_view_if_needed()
    charts_drawn(page)
    pointer_gone(page, 1275, 715)
    _no_failure(page)
    page.screenshot(path=str(MODELS / "open-model-node-720p.png"))

    with run_of(page):
        page.locator(".st-key-close_model button").click()
    expect(_status(page)).to_contain_text("Round 0 of 20 — train logloss", timeout=60_000)
    with run_of(page):
        page.locator(".st-key-verify label").first.click()
    badge = page.get_by_text(re.compile(r"XGBoost 3\.2\.\d+: 20 of 20 trees identical, "
                                        r"max \|Δmargin\| 0"))
    expect(badge).to_be_visible(timeout=60_000)
    page.evaluate("window.scrollTo(0, 0)")
    charts_drawn(page)
    pointer_gone(page, 1275, 715)
    _no_failure(page)
    page.screenshot(path=str(MODELS / "verify-badge-720p.png"))
    page.locator(".st-key-dl_model_json").scroll_into_view_if_needed()
    pointer_gone(page, 1275, 715)
    page.screenshot(path=str(MODELS / "downloads-720p.png"))
    page.close()
