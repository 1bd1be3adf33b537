"""What Streamlit keeps for a browser tab after the tab is gone — its uploaded files and the
files sent to it (media, downloads) — released, once per server, in a background thread.

When a tab closes, Streamlit keeps its session for ``server.disconnectedSessionTTL`` (120 s)
so that a browser that reconnects resumes it. When that time passes the session is dropped
without being shut down (Streamlit 1.67; streamlit/streamlit#12506), so the bytes of every
file the tab uploaded stay in the server's memory until it restarts: a class uploading its
own data would grow the server without bound. Every ``EVERY_S`` seconds the sweep releases
the uploads and file references of sessions that are neither connected nor kept for a
reconnect. A session must be missing from two sweeps in a row (a session moving between
Streamlit's two lists is briefly in neither). The app keeps nothing from these files: an
upload is read once into the session's state (``ui.state.Reader``).
"""

from __future__ import annotations

import threading
import time

from streamlit import runtime

from . import served

EVERY_S = 15.0


def live_sessions(rt) -> set[str] | None:
    """Ids of the sessions connected or kept for a reconnect; None if this Streamlit does
    not say (then nothing is released)."""
    manager = getattr(rt, "_session_mgr", None)
    if manager is None or not hasattr(manager, "list_sessions"):
        return None
    return {info.session.id for info in manager.list_sessions()}


def holders(rt) -> set[str]:
    """Ids of the sessions the server holds uploaded files or file references for."""
    uploads = getattr(rt.uploaded_file_mgr, "file_storage", {})
    media = getattr(rt.media_file_mgr, "_files_by_session_and_coord", {})
    return set(uploads) | set(media)


def sweep(rt, missing_before: set[str]) -> set[str]:
    """Release what ``rt`` holds for sessions missing now and in the sweep before
    (``missing_before``); returns the sessions missing now, for the next sweep."""
    held = holders(rt)  # first: a session in it was connected when it got its files
    live = live_sessions(rt)
    if live is None:
        return set()
    served.keep_sessions(live)  # the node route's ids of the sessions gone
    missing = held - live
    for session_id in missing & missing_before:
        rt.uploaded_file_mgr.remove_session_files(session_id)
        rt.media_file_mgr.clear_session_refs(session_id)
    rt.media_file_mgr.remove_orphaned_files()  # a download goes at its second call
    return missing - missing_before


def _sweep_forever() -> None:
    missing: set[str] = set()
    while True:
        time.sleep(EVERY_S)
        try:
            if runtime.exists():
                missing = sweep(runtime.get_instance(), missing)
        except Exception:  # e.g. Streamlit's lists changed while read: try next time
            missing = set()


_started: list[threading.Thread] = []  # the sweep's thread, once per process
_lock = threading.Lock()


def start() -> None:
    """Once per process: the sweep, in a daemon thread."""
    with _lock:
        if not _started:
            _started.append(threading.Thread(target=_sweep_forever, name="boost-housekeeping",
                                             daemon=True))
            _started[0].start()
