"""UBJSON (Universal Binary JSON), as XGBoost writes and reads it for ``.ubj`` model files.

The format (draft 12 of the spec at ubjson.org) is JSON's values with a one-byte marker each
and big-endian binary numbers: ``Z`` null, ``T``/``F`` booleans, ``i`` int8, ``U`` uint8,
``I`` int16, ``l`` int32, ``L`` int64, ``d`` float32, ``D`` float64, ``C`` a char, ``S`` a
string (its length as an integer value, then UTF-8 bytes), ``[ ... ]`` arrays and
``{ ... }`` objects, whose keys are strings without the ``S``. An array or object may give
its element type after ``$`` and its count after ``#`` ("optimised"): then no closing marker
follows, and a typed numeric array is one block of bytes. XGBoost writes every numeric
array of a tree that way (``[$d#L`` + count + float32s), so a leaf value is read back with
all its bits.

``loads`` returns dicts, lists, str, int, float, bool and None, and numpy arrays for typed
numeric arrays; it evaluates nothing and raises ``ValueError`` on any malformed or truncated
input. ``dumps`` writes the same values (numpy arrays as typed arrays).
"""

from __future__ import annotations

import struct

import numpy as np

# Marker -> numpy dtype of the numeric values (big-endian, as the spec has them).
_NUMBERS = {b"i": ">i1", b"U": ">u1", b"I": ">i2", b"l": ">i4", b"L": ">i8", b"d": ">f4",
            b"D": ">f8"}
_INTEGERS = (b"i", b"U", b"I", b"l", b"L")
# numpy kind+size -> marker, for writing arrays.
_ARRAY_MARKER = {("f", 4): b"d", ("f", 8): b"D", ("i", 1): b"i", ("u", 1): b"U",
                 ("i", 2): b"I", ("i", 4): b"l", ("i", 8): b"L", ("b", 1): b"U"}
MAX_DEPTH = 64  # nesting deeper than this is refused (XGBoost's models nest about 8 deep)


class _Reader:
    """A cursor over the bytes; every read checks that the bytes are there."""

    def __init__(self, data: bytes):
        self.data = memoryview(data)
        self.pos = 0

    def take(self, n: int) -> memoryview:
        if n < 0 or self.pos + n > len(self.data):
            raise ValueError(f"the UBJSON data is truncated: {n} more byte(s) expected at byte "
                             f"{self.pos} of {len(self.data)}")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def marker(self) -> bytes:
        m = bytes(self.take(1))
        while m == b"N":  # no-op padding
            m = bytes(self.take(1))
        return m

    def number(self, m: bytes):
        dtype = np.dtype(_NUMBERS[m])
        value = np.frombuffer(self.take(dtype.itemsize), dtype=dtype)[0]
        return int(value) if m in _INTEGERS else float(value)

    def count(self) -> int:
        m = self.marker()
        if m not in _INTEGERS:
            raise ValueError(f"a UBJSON length must be an integer, found marker {m!r} at byte "
                             f"{self.pos - 1}")
        n = self.number(m)
        if n < 0:
            raise ValueError(f"a UBJSON length is negative ({n}) at byte {self.pos}")
        return n

    def string(self) -> str:
        """A length, then UTF-8 bytes (a string after its ``S``, or an object's key)."""
        raw = bytes(self.take(self.count()))
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"a UBJSON string is not UTF-8 near byte {self.pos}") from None

    def value(self, m: bytes, depth: int):
        if m in _NUMBERS:
            return self.number(m)
        simple = {b"Z": None, b"T": True, b"F": False}
        if m in simple:
            return simple[m]
        if m == b"S":
            return self.string()
        if m == b"C":
            return bytes(self.take(1)).decode("latin-1")
        if m in (b"[", b"{"):
            if depth >= MAX_DEPTH:
                raise ValueError(f"the UBJSON data nests deeper than {MAX_DEPTH} levels")
            return self.container(m == b"{", depth + 1)
        raise ValueError(f"unknown UBJSON marker {m!r} at byte {self.pos - 1}")

    def peek(self) -> bytes:
        """The next marker, not consumed (no-op padding before it is)."""
        while self.pos < len(self.data) and self.data[self.pos] == ord("N"):
            self.pos += 1
        return bytes(self.data[self.pos:self.pos + 1])

    def container(self, is_object: bool, depth: int):
        """An array or object, after its opening marker: an optional ``$`` type and ``#``
        count, then the elements (an object's each after its key)."""
        kind = n = None
        if self.peek() == b"$":
            self.take(1)
            kind = self.marker()
            if self.marker() != b"#":
                raise ValueError(f"a typed UBJSON container needs a count ('#') at byte "
                                 f"{self.pos - 1}")
        if kind is not None or self.peek() == b"#":
            if kind is None:
                self.take(1)
            n = self.count()
            if n > len(self.data) - self.pos:  # every element takes at least one byte
                raise ValueError(f"the UBJSON data is truncated: a container of {n} elements "
                                 f"at byte {self.pos} of {len(self.data)}")
        if not is_object and kind in _NUMBERS:
            dtype = np.dtype(_NUMBERS[kind])
            raw = self.take(n * dtype.itemsize)
            return np.frombuffer(raw, dtype=dtype).astype(dtype.newbyteorder("="))
        out = {} if is_object else []
        close = b"}" if is_object else b"]"
        i = 0
        while n is None or i < n:
            if n is None and self.peek() == close:
                self.take(1)
                break
            key = self.string() if is_object else None
            element = self.value(kind if kind is not None else self.marker(), depth)
            if is_object:
                out[key] = element
            else:
                out.append(element)
            i += 1
        return out


def loads(data: bytes):
    """The value encoded in ``data`` (ValueError if it is not exactly one UBJSON value)."""
    reader = _Reader(data)
    value = reader.value(reader.marker(), 0)
    if reader.pos != len(reader.data):
        raise ValueError(f"unexpected bytes after the UBJSON value, at byte {reader.pos}")
    return value


def _int64(n: int) -> bytes:
    return b"L" + struct.pack(">q", n)


def _write(value, out: list) -> None:
    if isinstance(value, dict):
        out.append(b"{")
        for key, item in value.items():
            raw = str(key).encode("utf-8")
            out += [_int64(len(raw)), raw]
            _write(item, out)
        out.append(b"}")
    elif isinstance(value, np.ndarray):
        arr = np.ascontiguousarray(value).reshape(-1)
        m = _ARRAY_MARKER[(arr.dtype.kind, arr.dtype.itemsize)]
        data = arr.astype(np.dtype(_NUMBERS[m])).tobytes()
        out += [b"[$", m, b"#", _int64(len(arr)), data]
    elif isinstance(value, (list, tuple)):
        out += [b"[#", _int64(len(value))]
        for item in value:
            _write(item, out)
    elif isinstance(value, str):
        raw = value.encode("utf-8")
        out += [b"S", _int64(len(raw)), raw]
    elif isinstance(value, (bool, np.bool_)):
        out.append(b"T" if value else b"F")
    elif isinstance(value, (int, np.integer)):
        out.append(_int64(int(value)))
    elif isinstance(value, np.float32):
        out += [b"d", struct.pack(">f", value)]
    elif isinstance(value, (float, np.floating)):
        out += [b"D", struct.pack(">d", float(value))]
    elif value is None:
        out.append(b"Z")
    else:
        raise TypeError(f"cannot write {type(value).__name__} as UBJSON")


def dumps(value) -> bytes:
    """``value`` (dicts, lists, str, numbers, bools, None, numpy arrays) as UBJSON bytes:
    objects' keys and every length as int64, numpy arrays as typed arrays, lists with a
    count (as XGBoost writes them)."""
    out: list = []
    _write(value, out)
    return b"".join(out)
