"""What a server keeps for all its sessions — prepared tables, trained models, sweeps —
bounded in bytes, not in entries: 16 models of four points and 16 of 100,000 × 30 are not
the same memory. Each kind has a budget (``BUDGETS``, in MiB; ``BOOSTSCOPE_CACHE_MB`` scales
them all) and drops its least recently used entries once its entries' bytes (measured again
at each insertion: a model's trace keeps answers as it is used) exceed it; the newest entry
always stays. The defaults fit a server in 2 GiB: 1 GiB of models, 256 MiB of prepared
tables, 256 MiB of sweeps, 64 MiB of the player's round traces as JSON, the rest for the
process (about 350 MiB with the engine loaded) and its sessions (about 1 MiB each, plus
their uploads).

An entry is made once even when several sessions ask for it at once (the others wait for
it); a failure is not kept."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

from boost.trace.cache import size_of

MIB = 2**20
BUDGETS = {"models": 1024, "prepared": 256, "sweeps": 256, "traces": 64}  # MiB
SCALE_VARIABLE = "BOOSTSCOPE_CACHE_MB"  # the three budgets' sum, when set


def budget(kind: str) -> int:
    """``kind``'s budget in bytes: its default, or its share of ``BOOSTSCOPE_CACHE_MB``."""
    total = os.environ.get(SCALE_VARIABLE, "").strip()
    mib = BUDGETS[kind]
    if total:
        try:
            mib = float(total) * BUDGETS[kind] / sum(BUDGETS.values())
        except ValueError:
            pass  # not a number: the default (said nowhere else, so not silently wrong)
    return int(mib * MIB)


class Shared:
    """Entries by key, made once (``get``), dropped least recently used first when their
    bytes (``sizer``) pass the budget of ``kind``."""

    def __init__(self, kind: str, sizer: Callable[[object], int] = size_of) -> None:
        self.kind, self.sizer = kind, sizer
        self._items: OrderedDict[Hashable, object] = OrderedDict()
        self._making: dict[Hashable, threading.Lock] = {}
        self._lock = threading.Lock()

    def peek(self, key: Hashable):
        """The entry for ``key``, or None (nothing is made)."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        return None

    def get(self, key: Hashable, make: Callable[[], object]):
        """The entry for ``key``: kept, or ``make()``'s, kept."""
        hit = self.peek(key)
        if hit is not None:
            return hit
        with self._lock:
            making = self._making.setdefault(key, threading.Lock())
        with making:  # a second asker waits for the first's entry
            hit = self.peek(key)
            if hit is not None:
                return hit
            try:
                value = make()
            finally:
                with self._lock:
                    self._making.pop(key, None)
            with self._lock:
                self._items[key] = value
                self._evict()
        return value

    def _evict(self) -> None:
        limit = budget(self.kind)
        sizes = {key: self.sizer(value) for key, value in self._items.items()}
        total = sum(sizes.values())
        while total > limit and len(self._items) > 1:
            key, _ = self._items.popitem(last=False)
            total -= sizes[key]

    def nbytes(self) -> int:
        with self._lock:
            return sum(self.sizer(value) for value in self._items.values())

    def __len__(self) -> int:
        return len(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


def model_bytes(entry) -> int:
    """A trained entry's bytes: the model (``Booster.nbytes``) and its prepared data."""
    booster, prep = entry
    return booster.nbytes + size_of(prep)


MODELS = Shared("models", model_bytes)
PREPARED = Shared("prepared")
SWEEPS = Shared("sweeps")
TRACES = Shared("traces")


def clear() -> None:
    """Forget everything kept (tests start each from nothing)."""
    for cache in (MODELS, PREPARED, SWEEPS, TRACES):
        cache.clear()
