"""An uploaded table read once per upload, for every uploader of tables (the sidebar's data,
an opened model's sample): a bad file keeps the reason to show, the previous table stays."""

from __future__ import annotations

from dataclasses import dataclass

from . import tables
from .state import Data


@dataclass
class Reader:
    """One uploader's reader: the upload already read and why it failed (None: it did not)."""

    seen: str | None = None
    error: str | None = None

    def is_new(self, upload) -> bool:
        """Whether ``upload`` is a file not read yet."""
        return upload is not None and self.seen != upload.file_id

    def read(self, upload, flags: bool = True) -> Data | None:
        """The upload's table the first time this upload is seen; None if there is none, it
        was read before, or it cannot be read (``error`` says why). ``flags``: find the
        columns that are poor features."""
        if not self.is_new(upload):
            return None
        self.seen = upload.file_id
        raw = upload.getvalue()
        try:
            table = tables.read_table(raw, upload.name)
        except tables.DataError as exc:
            self.error = str(exc)
            return None
        self.error = None
        return Data(upload.name, tables.digest(raw), table.frame, table.notes,
                    tables.column_flags(table.frame) if flags else {})
