"""The model on screen as files: XGBoost's JSON and UBJSON model files (``save_raw``, what
``xgboost.Booster(model_file=...)`` loads, bit-equal margins) and the Python that retrains it
with ``xgboost.train`` (``xgboost_code``), as download buttons beside the screen's export."""

from __future__ import annotations

import re

from .state import Model


def _stem(model: Model) -> str:
    """A file name from the model's data: 'boostscope-noisy-sine'."""
    name = str(model.config.get("name", "model")).rsplit(".", 1)[0]
    return "boostscope-" + (re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-").lower() or "model")


def retrain_code(booster) -> str | None:
    """``xgboost_code()``, or None when no XGBoost code retrains the model (a model file,
    first-order trees, BoostScope's own objective)."""
    try:
        return booster.xgboost_code()
    except ValueError:
        return None


def buttons(model: Model, cols) -> None:
    """Three download buttons in ``cols``: model .json, model .ubj, retrain .py."""
    booster, stem = model.booster, _stem(model)
    cols[0].download_button("XGBoost .json", lambda: bytes(booster.save_raw("json")),
                            f"{stem}.json", mime="application/json", key="dl_model_json",
                            icon=":material/download:", on_click="ignore",
                            help="XGBoost's JSON model file: xgboost.Booster(model_file=...) "
                                 "loads it and predicts the same margins, bit for bit.",
                            use_container_width=True)
    cols[1].download_button("XGBoost .ubj", lambda: bytes(booster.save_raw("ubj")),
                            f"{stem}.ubj", mime="application/octet-stream", key="dl_model_ubj",
                            icon=":material/download:", on_click="ignore",
                            help="The same model as UBJSON (binary JSON), XGBoost's default "
                                 "format.", use_container_width=True)
    code = retrain_code(booster)
    if code is None:
        why = ("a model file holds no training parameters" if booster.source is not None
               else "XGBoost cannot train this model (first-order trees or BoostScope's own "
                    "objective)")
        cols[2].button("Retrain in XGBoost (.py)", key="dl_code_off", disabled=True,
                       icon=":material/code:", help=f"Not available: {why}.",
                       use_container_width=True)
        return
    # written when pressed, as the model files: a button holding its bytes has the page check
    # their address at once, which answers 404 when a quick rerun has already replaced them
    cols[2].download_button("Retrain in XGBoost (.py)", lambda: code, f"{stem}_retrain.py",
                            mime="text/x-python", key="dl_code", icon=":material/code:",
                            on_click="ignore",
                            help="Python that retrains this model with xgboost.train: on the "
                                 "same rows, the same trees.", use_container_width=True)


