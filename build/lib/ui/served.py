"""The models this server's sessions hold, named for the app's own routes (``ui.routes``) by
ids nobody can guess: a route answers about a model only when asked with its id, and an id
is made for one session's model (two sessions holding the same cached model get two ids),
so a page reaches no other session's model.

The registry holds weak references: an entry goes with its model (the training cache's
eviction, a session's new model), and a session keeps at most ``PER_SESSION`` ids; the
housekeeping sweep (``ui.housekeeping``) drops the ids of sessions that are gone. What a
route computes is kept in the model's own byte-bounded cache (``boost.trace.cache``)."""

from __future__ import annotations

import secrets
import threading
import weakref
from dataclasses import dataclass

PER_SESSION = 4  # a session's newest models (the stage, a pin, a comparison)


@dataclass(frozen=True)
class Entry:
    session: str
    booster: weakref.ref
    rows: weakref.ref | None  # the training features (a hist model's bin values); None


_LOCK = threading.Lock()
_BY_ID: dict[str, Entry] = {}


def register(session: str, booster, X=None) -> str:
    """The id of ``booster`` (with its training features ``X``) for ``session``: the same id
    while the session holds that model."""
    with _LOCK:
        for model_id, entry in _BY_ID.items():
            if entry.session == session and entry.booster() is booster:
                return model_id
        model_id = secrets.token_urlsafe(18)
        _BY_ID[model_id] = Entry(session, weakref.ref(booster),
                                 None if X is None else weakref.ref(X))
        mine = [k for k, e in _BY_ID.items() if e.session == session]
        for old in mine[:-PER_SESSION]:
            del _BY_ID[old]
        for dead in [k for k, e in _BY_ID.items() if e.booster() is None]:
            del _BY_ID[dead]
        return model_id


def lookup(model_id: str):
    """(booster, X) of a registered id whose model is still held; None otherwise."""
    with _LOCK:
        entry = _BY_ID.get(model_id)
    if entry is None:
        return None
    booster = entry.booster()
    if booster is None:
        return None
    return booster, None if entry.rows is None else entry.rows()


def keep_sessions(live: set[str]) -> None:
    """Forget the ids of sessions not in ``live`` (the housekeeping sweep's)."""
    with _LOCK:
        for model_id in [k for k, e in _BY_ID.items() if e.session not in live]:
            del _BY_ID[model_id]
