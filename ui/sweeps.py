"""Sweeps (``boost.sweep``) on the model's data, each run once per (data digest, column
choices, parameters, grid, rounds) and kept for the session's server: the Lab's 1-D and 2-D
sweeps and the tuning-order guide's steps. A running sweep shows its progress, and a rerun
(another click) interrupts it."""

from __future__ import annotations

import os
from dataclasses import dataclass

import pandas as pd
import streamlit as st

import boost
from boost.params import BY_NAME

from . import memory, training
from .state import Shown

BUDGET = BY_NAME["num_boost_round"].app_range[1]  # rounds a sweep may train: the app's most
PATIENCE = 20  # early stopping's patience in every sweep (rounds without improvement)
CV_ROWS = 20_000  # training rows up to which a sweep scores by cross-validation
NFOLD = 5  # its folds: on a small table one validation split is noise


DASK_SCHEDULER = "BOOSTSCOPE_DASK_SCHEDULER"  # the environment variable naming a cluster


@st.cache_resource(show_spinner=False)
def _client(address: str):
    """(a client of the Dask scheduler at ``address``, None) once per server, or (None, why
    it cannot be had)."""
    try:
        from distributed import Client
    except ImportError:
        return None, "dask's distributed package is not installed (pip install distributed)"
    try:
        return Client(address, timeout=5, set_as_default=False), None
    except Exception as exc:  # unreachable, refused, a wrong address: said, swept here
        return None, f"{type(exc).__name__}: {exc}"


def cluster() -> tuple[object | None, str | None]:
    """(the executor sweeps run on, a sentence about where): the Dask cluster that
    ``BOOSTSCOPE_DASK_SCHEDULER`` names, or (None, None) for this server's threads; (None,
    why) when the cluster named cannot be reached."""
    address = os.environ.get(DASK_SCHEDULER, "").strip()
    if not address:
        return None, None
    client, why = _client(address)
    if client is None:
        return None, (f"The Dask scheduler at {address} ({DASK_SCHEDULER}) cannot be reached "
                      f"({why}); sweeping on this server instead.")
    return client.get_executor(), f"Sweeps run on the Dask cluster at {address}."


def folds_for(rows: int) -> int | None:
    """The folds a sweep over ``rows`` training rows is scored with: ``NFOLD``-fold
    cross-validation up to ``CV_ROWS`` rows, else None (the validation rows, which are then
    many enough to judge by)."""
    return NFOLD if rows <= CV_ROWS else None


class SweepError(ValueError):
    """What the user should be told when a sweep cannot run."""


@dataclass(frozen=True)
class Request:
    """One sweep: the model's configuration, parameters fixed over it (``fixed``: (name,
    value) pairs, e.g. what earlier guide steps found), the grid ((name, values) pairs, in
    sweep order), the rounds, early stopping's patience (None: off) and the folds each
    point is cross-validated on (None: scored on the validation rows)."""

    config: tuple
    fixed: tuple
    grid: tuple
    rounds: int
    stopping: int | None
    nfold: int | None

    @property
    def key(self) -> str:
        return repr((self.config, self.fixed, self.grid, self.rounds, self.stopping,
                     self.nfold))


def request(shown: Shown, grid: dict, rounds: int = BUDGET, stopping: int | None = PATIENCE,
            fixed: dict | None = None) -> Request:
    """The sweep of ``grid`` over the model on screen's data and parameters (the swept
    parameters' own values left out: the grid sets them, so loading one of its points
    keeps the sweep): up to ``rounds`` rounds with early stopping, cross-validated on a
    small table (``folds_for``)."""
    # the objective and task the data resolved ("auto" in presenter mode, where the sidebar
    # that resolves them is not drawn): the same sweep in both modes
    config = {**{k: v for k, v in shown.config.items() if k not in grid},
              "objective": shown.prep.objective, "task": shown.prep.task}
    return Request(tuple(sorted(config.items())), tuple(sorted((fixed or {}).items())),
                   tuple((name, tuple(values)) for name, values in grid.items()),
                   int(rounds), stopping or None, folds_for(len(shown.prep.y_train)))


def cached(req: Request) -> pd.DataFrame | None:
    """The sweep's result if it has run, else None (nothing is computed)."""
    return memory.SWEEPS.peek(req.key)


def run(req: Request, shown: Shown, what: str) -> pd.DataFrame:
    """The sweep's result, computed now (with a progress bar saying ``what``) unless it has
    run before (kept for the server by ``memory.SWEEPS``, bounded in bytes). Raises
    SweepError with a message for the user."""
    return memory.SWEEPS.get(req.key, lambda: _sweep(req, shown, what))


def _sweep(req: Request, shown: Shown, what: str) -> pd.DataFrame:
    prep = shown.prep
    params = {**training.engine_params(shown.config, prep), **dict(req.fixed)}
    bar = st.progress(0.0, text=f"{what}…")

    def progress(done: int, total: int) -> None:  # a rerun (another click) raises in here
        bar.progress(done / total, text=f"{what}: {done} of {total} models trained")

    executor, where = cluster()
    if where:
        (st.caption if executor is not None else st.warning)(where)
    try:
        sweep = boost.sweep(params, prep.X_train, prep.y_train, dict(req.grid), req.rounds,
                            evals=() if req.nfold else training.eval_sets(prep),
                            early_stopping_rounds=req.stopping, sample_weight=prep.w_train,
                            nfold=req.nfold, executor=executor, progress=progress,
                            qid=prep.qid_train)
    except ValueError as exc:
        raise SweepError(str(exc)) from None
    except MemoryError:
        raise SweepError("there is not enough memory for this sweep; sweep fewer values or "
                         "use fewer rows.") from None
    except Exception as exc:  # never a traceback: say what failed, keep the screen
        raise SweepError(f"the engine failed ({type(exc).__name__}: {exc}). This is a bug in "
                         "BoostScope; the address bar reproduces it.") from None
    finally:
        bar.empty()
    return sweep
