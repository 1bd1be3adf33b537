"""XGBoost's own formats: model files (JSON/UBJSON), text/JSON dumps, the Python that
retrains a model.

* ``model_file``: a JSON or UBJSON model file read into the engine's forest (checked, numbers
  rounded once to float32 as XGBoost reads them) and written in XGBoost 3.2's layout;
* ``ubjson``: UBJSON as XGBoost writes it (a reader that refuses malformed bytes, a writer);
* ``dump``: XGBoost's JSON and text dumps and ``trees_to_dataframe``, with the trace columns;
* ``xgboost_code``: Python source that retrains a model with ``xgboost.train``.

The engine trains without them; ``Booster`` uses them to read, write and describe a model.
"""
