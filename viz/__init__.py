"""BoostScope's figures: pure functions from a Booster (and choices) to Plotly figures."""
