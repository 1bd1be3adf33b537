"""Pinned models: up to four sets of parameters kept while the user changes the current ones,
trained on the data on screen and shown beside the current model by the compare view.

A pin holds every app parameter (``Inputs.params()``'s keys, from the parameter table);
the data, the columns and the objective are the ones on screen. Pins live in the URL
(``ui.url.read_pins`` / ``write_pin``) and in ``Pins``, the session's part this module
owns.
"""

from __future__ import annotations

from collections import Counter

import streamlit as st

from boost.params import APP_PARAMS, BY_NAME

from . import url
from .state import AppState
from .training import train_other

VIEW = "compare"  # the compare view's slug (ui/views/compare.py)
CURRENT = "current"


def pin_of(config: dict) -> dict:
    """The pin of a model's configuration: its app parameters."""
    return {p.name: config[p.name] for p in APP_PARAMS}


def _value(name: str, value) -> str:
    if BY_NAME[name].widget == "text" and not str(value).strip():
        return "estimated"
    return f"{value:g}" if isinstance(value, float) else str(value)


def differences(pin: dict, reference: dict) -> list[str]:
    """'eta 0.1', ... for each parameter where ``pin`` differs from ``reference`` (a
    configuration or another pin), named by their URL keys, in the table's order."""
    return [f"{p.key} {_value(p.name, pin[p.name])}" for p in APP_PARAMS
            if p.name in pin and pin[p.name] != reference.get(p.name)]


def label(pin: dict, reference: dict, limit: int = 3) -> str:
    """What differs between a pin and ``reference`` (the compare view's table: a pin
    against the current model)."""
    parts = differences(pin, reference)
    if not parts:
        return "same parameters"
    more = f", +{len(parts) - limit} more" if len(parts) > limit else ""
    return ", ".join(parts[:limit]) + more


def from_xgboost(p, value) -> bool:
    """Whether ``value`` of parameter ``p`` differs from XGBoost's default (the parameter
    table's ``default``; an empty text widget is XGBoost's unset value). A parameter of some
    objectives only is compared with the app's start: lambdarank_num_pair_per_sample's 32
    is XGBoost's unset value for topk pairs, and quantile_alpha has no default (it must be
    given)."""
    if p.widget == "text" and not str(value if value is not None else "").strip():
        value = None
    return value != (p.start if p.objectives else p.default)


def labels(kept: list[dict], limit: int = 3, objective: str | None = None) -> list[str]:
    """Each pin named by its own parameters, so a label keeps its meaning while the knobs
    move. Among the parameters that differ among the pins, a pin is named by those where it
    departs from the pins' common value (a value most pins share; on a tie none is
    common), or by all of them where it departs from none; a lone pin (or pins alike) by
    what differs from XGBoost's defaults (the app's own defaults are not XGBoost's:
    max_depth 3, not 6), among the parameters ``objective`` (the one on screen; None: not
    known) uses: quantile_alpha does not name a squared-error model."""
    varying = [p for p in APP_PARAMS if len({repr(pin.get(p.name)) for pin in kept}) > 1]
    if not varying:
        varying = [p for p in APP_PARAMS if (not p.objectives or objective in p.objectives)
                   and any(p.name in pin and from_xgboost(p, pin[p.name]) for pin in kept)]
    common = {}
    for p in varying:
        counts = Counter(repr(pin.get(p.name)) for pin in kept)
        (value, n), *rest = counts.most_common()
        if not rest or rest[0][1] < n:
            common[p.name] = value
    out = []
    for pin in kept:
        own = [p for p in varying if common.get(p.name) != repr(pin.get(p.name))]
        parts = [f"{p.key} {_value(p.name, pin[p.name])}" for p in own or varying
                 if p.name in pin]
        more = f", +{len(parts) - limit} more" if len(parts) > limit else ""
        out.append(", ".join(parts[:limit]) + more if parts else "XGBoost's defaults")
    return out


def twin(config: dict, kept: list[dict]) -> int | None:
    """The pin (1-based) that holds the same parameters as ``config``, if one does."""
    pin = pin_of(config)
    return kept.index(pin) + 1 if pin in kept else None


def name(i: int) -> str:
    """'current' for 0, 'pin i' for the i-th pin (1-based)."""
    return CURRENT if i == 0 else f"pin {i}"


def pin_config(pin: dict, config: dict) -> dict:
    """The training configuration of a pin on the data and columns of ``config``."""
    return {**config, **pin}


def train_pin(state: AppState, pin: dict, config: dict):
    """The pin's model on the data of ``config`` (cached like every model); None if the data
    changed meanwhile; ``ui.training.TrainingError`` if it cannot train."""
    return train_other(state, pin_config(pin, config))


def on_screen(state: AppState) -> dict | None:
    """The configuration of the model on screen (None before the first model)."""
    return state.model.last_good.config if state.model.last_good is not None else None


def add(state: AppState, full_rerun: bool) -> None:
    """Pin the model on screen (a button's callback); ``full_rerun``: the button lives in a
    fragment, and the sidebar's list must be redrawn too."""
    config = on_screen(state)
    state.pins.note = None
    if config is None:
        state.pins.note = "Train a model first: a pin keeps the model on screen."
        return
    pin = pin_of(config)
    if pin in state.pins.kept:
        state.pins.note = (f"This model is already pinned as "
                           f"{name(state.pins.kept.index(pin) + 1)}.")
    elif len(state.pins.kept) >= url.MAX_PINS:
        state.pins.note = (f"{url.MAX_PINS} models are pinned, the most the compare view "
                           "shows beside the current one: remove one (×) to pin this model.")
    else:
        state.pins.kept = [*state.pins.kept, pin]
    state.stage.ask_full_run(full_rerun)


def remove(state: AppState, i: int, full_rerun: bool) -> None:
    """Remove pin ``i`` (0-based; a button's callback)."""
    state.pins.kept = [p for j, p in enumerate(state.pins.kept) if j != i]
    state.pins.note = None
    state.stage.ask_full_run(full_rerun)


def open_compare(state: AppState) -> None:
    state.stage.show_view(VIEW, scroll=True)


def pins_ui(state: AppState, where: str, in_fragment: bool = False) -> None:
    """'Pin model' and each pin with its label (``labels``: its own parameters) and a remove
    button (×). ``where`` prefixes the widgets' keys (the sidebar and the compare view each
    draw one)."""
    left, right = st.columns(2)
    left.button("Pin model", key=f"{where}_pin", icon=":material/push_pin:",
                on_click=add, args=(state, in_fragment), disabled=state.inputs.data is None,
                use_container_width=True,
                help=f"Keep this model's parameters (up to {url.MAX_PINS} pins), change "
                     "anything, train, and compare them in the Compare view.")
    if not in_fragment:
        right.button("Compare", key=f"{where}_compare", icon=":material/compare:",
                     on_click=open_compare, args=(state,), disabled=not state.pins.kept,
                     use_container_width=True, help="Open the Compare view.")
    if state.pins.note:
        st.warning(state.pins.note, icon=":material/push_pin:")
    shown = on_screen(state)
    for i, said in enumerate(labels(state.pins.kept,
                                    objective=shown and shown.get("objective"))):
        text, cross = st.columns([5, 1], vertical_alignment="center")
        text.markdown(f"**{name(i + 1)}**: {url.shown(said, 200)}")
        cross.button("", key=f"{where}_unpin_{i}", icon=":material/close:",
                     on_click=remove, args=(state, i, in_fragment),
                     help=f"Remove {name(i + 1)}")
