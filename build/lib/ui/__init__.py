"""The app's screen in Streamlit: the session's state in typed parts (``state``, made from
the opening URL by ``session``; ``url`` reads and writes the URL), the sidebar, the stage,
the views (``views/``), presenter mode and lessons (``lessons/``). Reading and preparing
tables is Streamlit-free, in ``tables/``; so are ``samples`` and the tuning-order guide's
plan (``guide``)."""
