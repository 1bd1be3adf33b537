"""BoostScope's drawing, no Streamlit: figures as pure functions from the trace's records (and
choices) to Plotly figures; the page's player as ES modules (``js/``, assembled for every host
by ``page_js``) with the round trace it draws (``round_trace``); the offline files
(``export``)."""
