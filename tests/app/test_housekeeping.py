"""ui.housekeeping: the uploads and sent files of a session that is gone are released at the
second sweep that misses it; a connected or stored session keeps its own (Streamlit's own
file managers, counted by their own statistics)."""

from types import SimpleNamespace

import pytest
from streamlit.runtime import media_file_manager
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.uploaded_file_manager import UploadedFileRec

from ui import housekeeping


def _runtime(live: list[str]):
    sessions = SimpleNamespace(list_sessions=lambda: [
        SimpleNamespace(session=SimpleNamespace(id=i)) for i in live])
    return SimpleNamespace(_session_mgr=sessions,
                           uploaded_file_mgr=MemoryUploadedFileManager("/upload"),
                           media_file_mgr=MediaFileManager(MemoryMediaFileStorage("/media")))


def _held_bytes(rt) -> int:
    stats = rt.uploaded_file_mgr.get_stats()
    return sum(s.byte_length for family in stats.values() for s in family)


def _media(rt, monkeypatch, session_id: str, data: bytes) -> None:
    monkeypatch.setattr(media_file_manager, "_get_session_id", lambda: session_id)
    rt.media_file_mgr.add(data, "text/plain", f"coord-{session_id}")


@pytest.mark.parametrize("stored", [False, True])
def test_gone_sessions_release_their_files(monkeypatch, stored):
    rt = _runtime(["open", "stored"] if stored else ["open"])
    for session_id, size in (("open", 3), ("stored", 5), ("gone", 7)):
        rt.uploaded_file_mgr.add_file(session_id, UploadedFileRec(
            f"f-{session_id}", f"{session_id}.csv", "text/csv", b"x" * size))
        _media(rt, monkeypatch, session_id, session_id.encode() * 2)
    assert _held_bytes(rt) == 15
    missing = housekeeping.sweep(rt, set())  # first miss: nothing released yet
    assert missing == ({"gone"} if stored else {"gone", "stored"})
    assert _held_bytes(rt) == 15
    missing = housekeeping.sweep(rt, missing)
    assert missing == set()
    kept = ["open", "stored"] if stored else ["open"]
    assert sorted(rt.uploaded_file_mgr.file_storage) == kept
    assert _held_bytes(rt) == 3 + (5 if stored else 0)
    assert sorted(rt.media_file_mgr._files_by_session_and_coord) == kept
    assert len(rt.media_file_mgr._storage._files_by_id) == len(kept)


def test_a_session_back_before_the_second_sweep_keeps_its_files():
    rt = _runtime([])
    rt.uploaded_file_mgr.add_file("blip", UploadedFileRec("f", "d.csv", "text/csv", b"abc"))
    missing = housekeeping.sweep(rt, set())
    rt._session_mgr.list_sessions = lambda: [SimpleNamespace(session=SimpleNamespace(id="blip"))]
    assert housekeeping.sweep(rt, missing) == set()
    assert _held_bytes(rt) == 3


def test_nothing_released_when_streamlit_does_not_list_sessions():
    rt = _runtime([])
    del rt._session_mgr
    rt.uploaded_file_mgr.add_file("s", UploadedFileRec("f", "d.csv", "text/csv", b"abc"))
    assert housekeeping.sweep(rt, housekeeping.sweep(rt, set())) == set()
    assert _held_bytes(rt) == 3
