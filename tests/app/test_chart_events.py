"""A click on a chart comes back as the chart component's ``select`` trigger; the id it
carries (a tree's node, a Lab cell) is read by ``ui.charts.clicked_id``."""

from ui.charts import clicked_id


def test_click_events_are_parsed():
    def event(points):
        return {"select": {"selection": {"points": points}}}

    assert clicked_id(event([{"customdata": 3}])) == 3
    assert clicked_id(event([{"customdata": [2]}])) == 2
    assert clicked_id(event([{"x": 1}, {"customdata": [5, "f0"]}])) == 5
    assert clicked_id(event([])) is None
    assert clicked_id({"select": None}) is None
    assert clicked_id(None) is None
