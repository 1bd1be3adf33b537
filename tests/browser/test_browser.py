"""A real browser (Playwright driving Debian's Chromium) against ``streamlit run app.py``."""

import re

import pytest
from harness import SHOTS, _status, charts_drawn, idle, run_of
from playwright.sync_api import expect


@pytest.fixture(scope="module")
def page(server, browser):
    page = browser.new_page(viewport={"width": 1500, "height": 1000})
    yield page
    page.close()


def test_upload_train_step_and_screenshot(page, server, tmp_path):
    SHOTS.mkdir(exist_ok=True)
    page.goto(server)
    idle(page)
    expect(_status(page)).to_contain_text("Round 0 of 20", timeout=60_000)
    opening = _status(page).inner_text()

    csv = tmp_path / "hours.csv"
    csv.write_text("hours;score\n" + "\n".join(f"{h / 4:.2f};{(h * 7) % 23}"
                                               for h in range(80)))
    with run_of(page):
        page.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(str(csv))
    # the uploader shows the file's name at once; the data's caption only once it is read
    caption = page.locator("p").filter(has_text="hours.csv: 80 rows × 2 columns").first
    expect(caption).to_be_visible(timeout=60_000)
    expect(_status(page)).to_contain_text("Round 0 of 20", timeout=60_000)
    expect(_status(page)).not_to_have_text(opening, timeout=60_000)  # the new data's losses

    assert page.locator(".st-key-train").count() == 0  # small data: live, no Train button
    for key, shown in (("step_forward", "Round 1 of 20"), ("step_forward", "Round 2 of 20"),
                       ("step_back", "Round 1 of 20")):
        with run_of(page):
            page.locator(f".st-key-{key} button").click()
        expect(_status(page)).to_contain_text(shown, timeout=30_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    expect(page).to_have_url(re.compile(r"round=1(&|$)"), timeout=10_000)
    charts_drawn(page)
    page.screenshot(path=str(SHOTS / "browser-upload.png"), full_page=True)


def test_shared_link_reopens_the_view(page, server):
    page.goto(server + "/?sample=moons&round=7&max_depth=2&eta=0.5")
    idle(page)
    expect(_status(page)).to_contain_text("Round 7 of 20", timeout=60_000)
    expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    charts_drawn(page)
    page.screenshot(path=str(SHOTS / "browser-moons.png"), full_page=True)


def test_clicking_a_tree_node_shows_its_candidates(page, server):
    page.goto(server + "/?sample=four_points&round=1&lambda=0&base_score=0.5&max_depth=2")
    idle(page)
    tree = page.locator(".st-key-tree_chart")
    expect(tree.locator(".js-plotly-plot")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("worked out")).to_have_count(0)
    # The split markers are the trace with two points (nodes 0 and 2); click node 2.
    traces = tree.locator(".scatterlayer .trace")
    splits = next(traces.nth(i).locator("path.point") for i in range(traces.count())
                  if traces.nth(i).locator("path.point").count() == 2)
    with run_of(page):
        splits.nth(1).click(force=True)
    expect(page.get_by_text("Node 2, worked out")).to_be_visible(timeout=30_000)
    expect(page.locator(".st-key-cand_chart .js-plotly-plot")).to_be_visible(timeout=30_000)
    expect(page).to_have_url(re.compile(r"node=2(&|$)"), timeout=10_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    charts_drawn(page)
    page.screenshot(path=str(SHOTS / "browser-node.png"), full_page=True)


def test_newton_and_first_order_side_by_side_in_the_browser(page, server):
    page.goto(server + "/?sample=moons&round=1&max_depth=2&view=4&objective=binary:exponential"
              "&subsample=0.8&early_stopping_rounds=5&rounds=100")
    idle(page)
    expect(page.locator(".st-key-cmp_tree_newton .js-plotly-plot")).to_be_visible(
        timeout=60_000)
    expect(page.locator(".st-key-cmp_tree_first_order .js-plotly-plot")).to_be_visible(
        timeout=60_000)
    expect(page.get_by_text("Early stopping: validation exponential was best")).to_be_visible(
        timeout=30_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    charts_drawn(page)
    page.screenshot(path=str(SHOTS / "browser-compare.png"), full_page=True)


@pytest.mark.parametrize("query,widget,shown", [
    ("eta=0&max_depth=99&subsample=-1&view=7", "p_eta", "0.01"),
    ("gamma=1e308&max_bin=nan&tree_method=gpu_hist&view=importance", "p_gamma", "1000.00"),
    ("lambda=%3Cscript%3Ealert(1)%3C/script%3E&rounds=inf&seed=-1&view=tree", "p_lambda",
     "1.00"),
])
def test_hostile_links_open_with_the_values_clamped(page, server, query, widget, shown):
    page.goto(server + "/?sample=moons&" + query)
    idle(page)
    expect(_status(page)).to_be_visible(timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
    note = page.get_by_text("The link was corrected")
    expect(note).to_have_count(1)
    expect(page.locator(f".st-key-{widget} input").first).to_have_value(shown, timeout=10_000)
    assert page.locator("script", has_text="alert(1)").count() == 0
