"""A real browser (Playwright driving Debian's Chromium) against ``streamlit run app.py``."""

import re

import pytest
from harness import (
    PLAYER,
    SHOTS,
    _status,
    charts_drawn,
    click_node,
    idle,
    new_page,
    player_button,
    player_drawn,
    presses_in_one_go,
    run_of,
)
from playwright.sync_api import expect


@pytest.fixture(scope="module")
def page(server, browser):
    page = new_page(browser, viewport={"width": 1500, "height": 1000})
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
    # the player steps in the page at once; the app hears of the round it rests on
    with run_of(page):
        for act, shown in (("step", "Round 1 of 20"), ("step", "Round 2 of 20"),
                           ("back", "Round 1 of 20")):
            player_button(page, act).click()
            expect(_status(page)).to_contain_text(shown)
    assert page.locator('[data-testid="stException"]').count() == 0
    expect(page).to_have_url(re.compile(r"round=1(&|$)"), timeout=30_000)
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


# The player the page shows (the last one mounted that is still in the page)
PLAYER_JS = ("(window.boostscopePlayer?.players || []).filter(p => p.root.isConnected)"
             ".at(-1)")
# The node details the page draws in the tree view (viz/js/node_view.js): which node, and the
# text of its worked arithmetic, chart and tables.
DETAILS = '[data-testid="boostscope-node"]'


def _four_points_at_round_1(page, server):
    """The four points (λ = 0, base 0.5, depth 2) at round 1 with the page's prefetch at rest
    off, drawn and still, its details on the root: the details' locator."""
    page.add_init_script("window.boostscopePlayer = {prefetch: false};")
    page.goto(server + "/?sample=four_points&round=1&lambda=0&base_score=0.5&max_depth=2")
    idle(page)
    player_drawn(page)
    details = page.locator(DETAILS)
    expect(details).to_contain_text("Node 0 of round 1", timeout=60_000)
    page.wait_for_function(f"() => {PLAYER_JS} && !{PLAYER_JS}.drawing")
    return details


def test_a_cold_click_asks_for_the_nodes_chart_beside_its_record(page, server):
    """A click on a split whose record the page does not hold (its prefetch off) asks the
    chart route for the split's feature beside the node route; the chart on screen is the
    record's (the four points' node 2: x < 22.5, x < 30 with gains 14.08 + 56.25 − 14.08
    ... by hand: its chosen split x < 30, the largest gain 140.17)."""
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/boostscope/" in r.url else None)
    details = _four_points_at_round_1(page, server)
    click_node(page, 2)
    expect(details).to_have_attribute("data-node", "2", timeout=30_000)
    expect(details).to_contain_text("Node 2 of round 1, worked out")
    assert any("/boostscope/chart?" in u and "node=2" in u and "feature=x" in u
               for u in asked), asked
    assert any("/boostscope/node?" in u and "node=2" in u for u in asked), asked
    page.wait_for_function(f"() => document.querySelector('{DETAILS} .bsn-plot')?._fullData")
    shown = page.evaluate(f"""() => document.querySelector('{DETAILS} .bsn-plot')._fullData
        .map(t => [t.name, Array.from(t.x), Array.from(t.y)])""")
    best = [t for t in shown if t[0] == "chosen split"]
    assert best and best[0][1] == [30] and best[0][2][0] == pytest.approx(140.1667, rel=1e-4)
    # the same traces as the record's own chart, drawn afresh
    fresh = page.evaluate("""async () => {
        const p = (window.boostscopePlayer.players || []).filter(x => x.root.isConnected)
            .at(-1);
        const record = p.nodeCache.get('1:2');
        const div = document.createElement('div');
        document.body.append(div);
        const chart = structuredClone(record.charts.x);
        await Plotly.react(div, chart.data, chart.layout);
        const out = div._fullData.map(t => [t.name, Array.from(t.x), Array.from(t.y)]);
        Plotly.purge(div); div.remove();
        return out; }""")
    assert shown == fresh


def test_a_node_the_pointer_rests_on_is_asked_for_before_the_press(page, server):
    """The pointer come to rest on a node (no press): the page asks for its record then, and
    holds it; a press then shows it (the four points' node 2, by hand: its split x < 30 with
    the largest gain, 140.17). With ``restAsk`` off, a rest asks nothing. No websocket
    message either way."""
    asked, sent = [], []
    page.on("request", lambda r: asked.append(r.url) if "/boostscope/node?" in r.url else None)
    page.on("websocket", lambda ws: ws.on("framesent", lambda f: sent.append(f)))
    details = _four_points_at_round_1(page, server)
    page.wait_for_timeout(500)
    held = "(id) => window.boostscopePlayer.holdsRecord(1, id)"

    def rest_on(node: int) -> None:
        box = page.evaluate(f"(id) => window.boostscopePlayer.nodeCenter(id, {PLAYER_JS})",
                            node)
        page.mouse.move(box["x"], box["y"])

    page.evaluate("() => { window.boostscopePlayer.restAsk = false; }")
    before, messages = len(asked), len(sent)
    rest_on(1)
    page.wait_for_timeout(600)
    assert len(asked) == before and not page.evaluate(held, 1)
    page.mouse.move(5, 5)
    page.evaluate("() => { window.boostscopePlayer.restAsk = true; }")
    rest_on(2)
    page.wait_for_function(held, arg=2, timeout=30_000)  # asked for and held, no press
    assert [u for u in asked[before:] if "node=2" in u] and len(sent) == messages
    expect(details).to_have_attribute("data-node", "0")  # the details still the root's
    page.mouse.down()
    page.mouse.up()
    expect(details).to_have_attribute("data-node", "2", timeout=30_000)
    expect(details).to_contain_text("Node 2 of round 1, worked out")
    page.wait_for_function(f"() => document.querySelector('{DETAILS} .bsn-plot')?._fullData")
    best = page.evaluate(f"""() => document.querySelector('{DETAILS} .bsn-plot')._fullData
        .filter(t => t.name === 'chosen split').map(t => [Array.from(t.x), Array.from(t.y)])""")
    assert best and best[0][0] == [30] and best[0][1][0] == pytest.approx(140.1667, rel=1e-4)
    assert len([u for u in asked if "node=2" in u]) == 1  # the press asked nothing again
    page.mouse.move(5, 5)


def test_a_multi_class_nodes_details_name_its_class(page, server):
    """Three classes: K trees a round; the tree's title and the node's details say which
    class's tree is drawn, and how many trees there are so far (3 a round: 6 at round 2)."""
    page.goto(server + "/?sample=three_blobs&round=2&max_depth=2")
    idle(page)
    player_drawn(page)
    names = re.escape("east")  # the first class (by name) of three_blobs
    expect(page.locator(f"{PLAYER} .bsp-tree")).to_contain_text(
        "Tree of round 2, class east (3 a round, 6 so far)", timeout=60_000)
    expect(page.locator(DETAILS)).to_contain_text(
        re.compile(rf"Node 0 of round 2, class {names} — click another"), timeout=60_000)
    expect(page.locator(DETAILS)).to_contain_text(
        re.compile(rf"Node 0 of round 2, class {names}, worked out"))


def test_clicking_a_tree_node_shows_its_candidates(page, server):
    """A click on a node draws its details in the page from the node route's record: no
    websocket message, no run; its numbers are the four points' worked by hand (node 2
    holds x = 20, 25, 35 with g = −6.5, −7.5, 7.5: G = −6.5, H = 3, S = 42.25 / 3 =
    14.08; its split x < 30 has S_L = 14² / 2 = 98, S_R = 7.5² = 56.25, gain 140.17)."""
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(frame)))
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/boostscope/" in r.url else None)
    page.goto(server + "/?sample=four_points&round=1&lambda=0&base_score=0.5&max_depth=2")
    idle(page)
    player_drawn(page)
    # the tree view below shows the root until a node of the player's tree is clicked
    details = page.locator(DETAILS)
    expect(details).to_contain_text("Node 0 of round 1", timeout=60_000)
    expect(details).to_contain_text("Node 0 of round 1, worked out")
    charts_drawn(page)
    parsed = page.evaluate("() => window.boostscopePlayer.parsed")
    page.wait_for_function("() => !window.boostscopePlayer.players.at(-1).drawing")
    before = len(sent)
    click_node(page, 2)
    expect(page.locator(f"{PLAYER} .bsp-tree .bsp-info")).to_contain_text("node 2")
    expect(details).to_have_attribute("data-node", "2", timeout=30_000)
    expect(details).to_contain_text("Node 2 of round 1, worked out")
    numbers = page.evaluate(f"""() => [...document.querySelectorAll('{DETAILS} .bsn-step mn')]
        .map(e => e.textContent)""")
    for number in ("6.5", "3", "14.08", "98", "56.25", "140.17", "2.17", "0.65"):
        assert number in numbers, (number, numbers)
    chart = page.locator(f"{DETAILS} .bsn-plot.js-plotly-plot")
    expect(chart).to_be_visible()
    assert page.evaluate(f"""() => Array.from(document.querySelector('{DETAILS} .bsn-plot')
        ._fullData.find(t => t.name === 'chosen split').x)""") == [30]
    rows = page.locator(f"{DETAILS} .bsn-table").nth(1).locator("tbody tr")
    expect(rows.first).to_contain_text("x < 30")
    # the table's numbers by the arithmetic's rule (140.17, not 6 significant: 140.167)
    expect(rows.first.locator("td").nth(1)).to_have_text("140.17")
    # and with the minus sign the tree and the formulas write (−6.5, not -6.5)
    cells = page.evaluate(f"""() => [...document.querySelectorAll('{DETAILS} .bsn-table td.num')]
        .map(e => e.textContent)""")
    assert any(c.startswith("\u2212") for c in cells), cells
    assert not [c for c in cells if re.search(r"(?<![\w.])-\d", c)], cells
    # the details came from the node route, and the click sent the server nothing
    assert any("/boostscope/node?" in u and "node=2" in u for u in asked), asked
    page.wait_for_timeout(600)  # past the rest after which a round would be reported
    assert len(sent) == before, sent[before:]
    timing = [t for t in page.evaluate("() => window.boostscopePlayer.timings")
              if t["gesture"] == "node"]
    assert timing and timing[-1]["node"] == 2 and timing[-1]["ms"] > 0
    assert page.locator('[data-testid="stException"]').count() == 0
    details.scroll_into_view_if_needed()
    page.screenshot(path=str(SHOTS / "browser-node.png"))
    # the node rides on the next round the page reports: the URL and the view follow
    with run_of(page):
        page.keyboard.press("ArrowRight")
    expect(_status(page)).to_contain_text("Round 2 of 20")
    expect(page).to_have_url(re.compile(r"node=2(&|$)"), timeout=10_000)
    expect(details).to_contain_text("Node 2 of round 2", timeout=30_000)
    # the rerun named the trace the page holds: nothing parsed again
    assert page.evaluate("() => window.boostscopePlayer.parsed") == parsed
    # a page that lost it (its copies emptied, its player's forgotten) asks, and is sent it
    page.evaluate("""() => { const reg = window.boostscopePlayer; reg.held.clear();
        const p = reg.players.filter(x => x.root.isConnected).at(-1);
        p.trace = {...p.trace, id: 'forgotten'}; }""")
    with run_of(page):
        page.keyboard.press("ArrowRight")  # a rest reruns the stage, which names the trace
    page.wait_for_function(f"() => window.boostscopePlayer.parsed > {parsed}", timeout=30_000)
    expect(_status(page)).to_contain_text("Round 3 of 20")
    expect(details).to_contain_text("Node 2 of round 3", timeout=30_000)
    player_drawn(page)
    assert page.evaluate("() => window.boostscopePlayer.players.filter(x => x.root.isConnected)"
                         ".at(-1).trace.id") != "forgotten"


def test_ten_steps_send_no_websocket_message(page, server):
    """Stepping is the page's alone: ten steps send the server nothing; at rest one
    message (the round), one run, and the URL and the view below show the round."""
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda frame: sent.append(frame)))
    page.goto(server + "/?sample=four_points&round=1&lambda=0&base_score=0.5&max_depth=2")
    idle(page)
    player_drawn(page)
    expect(page.locator(DETAILS)).to_contain_text("Node 0 of round 1", timeout=60_000)
    charts_drawn(page)
    expect(page).to_have_url(re.compile(r"round=1(&|$)"))
    page.wait_for_function("() => !window.boostscopePlayer.players.at(-1).drawing")
    before = len(sent)
    with run_of(page):
        # in one go: pressed one by one, a busy machine's presses can come 300 ms apart,
        # and the page rightly reports the round it rested on between them
        presses_in_one_go(page, "ArrowRight", 10)
        stepping = len(sent) - before
        expect(_status(page)).to_contain_text("Round 11 of 20")
    assert stepping == 0, sent[before:]
    # at rest: the round (one message), the URL and the view follow
    expect(page).to_have_url(re.compile(r"round=11(&|$)"))
    expect(page.locator(DETAILS)).to_contain_text("Node 0 of round 11")
    assert len(sent) - before == 1, sent[before:]
    assert page.evaluate("() => window.boostscopePlayer.drawn.at(-1)") == 11
    # a step back from there, and the same again: Back is the user's, the URL follows
    with run_of(page):
        player_button(page, "back").click()
    expect(_status(page)).to_contain_text("Round 10 of 20")
    expect(page).to_have_url(re.compile(r"round=10(&|$)"))
    expect(page.locator(DETAILS)).to_contain_text("Node 0 of round 10")
    assert page.locator('[data-testid="stException"]').count() == 0


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
