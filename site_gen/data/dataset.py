"""A page's runs as one compact JSON data file, shipped once per page whatever its chart count.

The payload is columnar: numbers as plain lists, strings dictionary-encoded (``{"dict": [...], "codes":
[...]}``), missing values as ``null``. The page script (``docs/assets/js/data/payload.js``) fetches it and
decodes it into row objects once, and every chart, the table and the CSV export of the page share those
rows. Plain JSON, not a script assigning a global: ``JSON.parse`` of a payload is 2-4x faster than
running the same text as a JavaScript object literal (measured in Chromium on the 1M set's 3.4 MB
files: 17-33 against 85-140 ms), and the page script, a module, runs from a web server only anyway
(``file-notice.js`` says so on ``file://``). The file name carries a content hash, so a browser never
reuses a stale copy.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from array import array as packed  # (offset, length) pairs, 8 bytes each
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

_DECIMALS = 2  # throughput is reported to at most 1-2 decimals by every source; more only adds bytes
# No figure of a run comes near this (the largest are whole-system tokens/s, ~10^6). validate refuses
# absurd figures; one that got past it anyway is shipped as missing, so that a 10^308 tokens/s cannot
# stretch a chart's axis to 10^308 and squash every real point into one corner (nor an inf break JSON).
_LARGEST = 1e15


def _column(series: pd.Series) -> Any:
    """One column as a JSON-ready list, or a dictionary encoding for strings and dates."""
    import pandas as pd

    if pd.api.types.is_bool_dtype(series) or pd.api.types.is_integer_dtype(series):
        return [None if pd.isna(v) else int(v) for v in series]
    if pd.api.types.is_float_dtype(series):
        return [_number(v) if math.isfinite(v) and abs(v) < _LARGEST else None for v in series.astype(float)]
    if pd.api.types.is_datetime64_any_dtype(series):
        series = series.dt.strftime("%Y-%m-%d")
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    return {"dict": [str(u) for u in uniques], "codes": [None if c < 0 else int(c) for c in codes]}


def _number(v: float) -> float | int:
    r = round(v, _DECIMALS)
    return int(r) if r.is_integer() else r


def encode(df: pd.DataFrame) -> dict[str, Any]:
    """The columnar payload of ``df`` (every column, every row, in order)."""
    return {"n": len(df), "columns": {str(c): _column(df[c]) for c in df.columns}}


def data_name(key: str) -> str:
    """The file name of the data file ``key`` (under the site's ``assets/data``)."""
    return f"{key}.json"


def data_file(stem: str, payload: dict[str, Any]) -> tuple[str, str]:
    """(key, JSON text) of a data file: the key is ``stem.<8 hex of the content hash>``, the file's name
    ``data_name(key)``."""
    body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    body = body.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    key = f"{stem}.{hashlib.sha1(body.encode()).hexdigest()[:8]}"
    return key, body


# --- The vectorised encoder: the same bytes as ``data_file(stem, encode(df))``, without a Python object
# per value. At a million runs the per-value path above took about two minutes and most of a 4.7 GB peak
# (issue 29): every column became a list of Python ints, floats and strings before ``json.dumps``. Here a
# column becomes its JSON text in a few array operations (numpy + pyarrow compute), batch by batch, so a
# data file can be written from a DuckDB cursor without the whole frame in memory.

_FRACTION = None  # pyarrow array: k % 100 -> its decimals as repr() writes them ("", ".05", ".5", ...)
_EXACT_BELOW = 1e13  # |value| under this: k = round(value * 100) < 1e15, a 15-digit decimal, repr() = k/100


def _fraction() -> Any:
    global _FRACTION
    if _FRACTION is None:
        import pyarrow as pa

        _FRACTION = pa.array(["" if f == 0 else f".{f:02d}".rstrip("0") for f in range(100)])
    return _FRACTION


def _joined(strings: Any) -> bytes:
    """A pyarrow string array as its values joined by commas (no brackets)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(strings) == 0:
        return b""
    strings = strings.cast(pa.large_string())
    one = pa.LargeListArray.from_arrays(pa.array([0, len(strings)], pa.int64()), strings)
    return pc.binary_join(one, pa.scalar(",", pa.large_string()))[0].as_buffer().to_pybytes()


def _joined_segments(strings: Any, starts: Any, ends: Any) -> tuple[bytes, list[int], list[int]]:
    """``_joined`` of each row range ``[starts[i], ends[i])`` of ``strings`` (no nulls; ranges not empty),
    as one join of the whole array and where each range's text begins and ends in it: value ``j`` begins
    after the lengths of the values before it and ``j`` commas."""
    import numpy as np
    import pyarrow.compute as pc

    whole = _joined(strings)
    lengths = pc.binary_length(strings).to_numpy(zero_copy_only=False).astype(np.int64)
    # where value j begins in ``whole`` (j = n: one past its end)
    at = np.concatenate([[0], np.cumsum(lengths + 1)])
    return whole, at[starts].tolist(), (at[ends] - 1).tolist()


class Spool:
    """Encoded text waiting on disk in an unnamed temporary file (in ``$TMPDIR``; no name, so gone with
    the process however it ends, ``kill -9`` included) until it is written into the site: the run cards'
    text of a million runs is ~0.4 GB, the build's data files ~1 GB, which held in memory were the
    build's peak. Read back with ``pread``, not a mapping, so that what is read is not counted in the
    process's memory either."""

    def __init__(self) -> None:
        # closed by close() (the card encoder's finish), or with the object: no ``with`` spans its life
        self.file = tempfile.TemporaryFile(prefix="llmbench-spool-")  # noqa: SIM115
        self.folder = tempfile.gettempdir()  # named in an error (the file has no name)
        self.size = 0
        self.pending = False  # written since the last flush

    def write(self, data: bytes) -> int:
        """Append ``data``; its offset."""
        try:
            self.file.write(data)
        except OSError as e:
            raise self._named(e) from None
        self.pending = True
        self.size += len(data)
        return self.size - len(data)

    def read(self, offset: int, length: int) -> bytes:
        if self.pending:
            try:
                self.file.flush()
            except OSError as e:
                raise self._named(e) from None
            self.pending = False
        return os.pread(self.file.fileno(), length, offset)

    def _named(self, e: OSError) -> OSError:
        """A full disk names the folder of this spool, not the site being written."""
        if e.filename is None:
            e.filename = f"{self.folder} (the build's data files waiting, $TMPDIR)"
        return e

    def close(self) -> None:
        self.file.close()


def _int_strings(values: Any, null: Any) -> Any:
    """Integers (numpy or pyarrow int array; ``null``: bool mask or None) as a pyarrow array of JSON
    numbers, ``null`` where masked or null."""
    import pyarrow as pa
    import pyarrow.compute as pc

    strings = pc.cast(pa.array(values), pa.string())
    if null is not None and null.any():
        strings = pc.if_else(pa.array(null), "null", strings)
    return pc.fill_null(strings, "null")


def _int_text(values: Any, null: Any) -> bytes:
    """``_int_strings`` joined by commas."""
    return _joined(_int_strings(values, null))


def _float_text(a: Any) -> bytes:
    """``_float_strings`` joined by commas."""
    return _joined(_float_strings(a))


def _float_strings(a: Any) -> Any:
    """Floats (a numpy float64 array, NaN for missing) as a pyarrow array of their text: each as
    ``_number`` rounds it and ``json.dumps`` writes it, ``null`` for NaN.

    ``round(v, 2)`` is the double nearest the exact value rounded to 2 decimals: ``k / 100`` with ``k``
    the nearest integer to ``v * 100``. Where ``v * 100`` (one rounding away from the exact product) is
    clearly not near a .5 tie, ``rint`` gives that ``k``; ``repr`` of a ``k / 100`` under 1e13 is the
    15-digit decimal itself, written here from ``k`` (``int`` when ``k % 100 == 0``, as ``_number``).
    The rest (near a tie, huge, infinite) go through ``_number`` itself, value by value."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    with np.errstate(invalid="ignore"):  # absurd or infinite figures ship as missing, as in ``_column``
        a = np.where(np.isfinite(a) & (np.abs(a) < _LARGEST), a, np.nan)
    nan = np.isnan(a)
    if nan.all():  # a column no run of the batch has (latency of a published peak figure)
        return pc.fill_null(pa.nulls(len(a), pa.string()), "null")
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = a * 100
        k = np.rint(scaled)
        tie = np.abs(scaled - np.floor(scaled) - 0.5) <= np.abs(scaled) * 2.0**-50 + 1e-9
        # a multiple of 1/8 (a figure x.5 over 4 GPUs: 308.625) times 100 is exact, so its tie is exact
        # and rint's half-to-even is round()'s: no need for the slow path
        eighths = a * 8
        tie &= ~((np.floor(eighths) == eighths) & (np.abs(a) < 2.0**40))
        slow = ~nan & (~(np.abs(a) < _EXACT_BELOW) | tie)
    k = np.where(nan | slow, 0, k).astype(np.int64)
    negative = k < 0
    magnitude = np.abs(k)
    strings = pc.binary_join_element_wise(
        pc.cast(pa.array(magnitude // 100), pa.string()), pc.take(_fraction(), pa.array(magnitude % 100)), ""
    )
    if negative.any():
        strings = pc.if_else(pa.array(negative), pc.binary_join_element_wise("-", strings, ""), strings)
    if nan.any():
        strings = pc.if_else(pa.array(nan), "null", strings)
    if slow.any():
        exact = pa.array([json.dumps(_number(float(v))) for v in a[slow]], pa.string())
        strings = pc.replace_with_mask(strings, pa.array(slow), exact)
    return strings


def _escaped_json(value: Any) -> bytes:
    """``json.dumps`` as ``data_file`` writes it (UTF-8; U+2028/U+2029 escaped, as they always were: the same
    text, so the same content-hashed names)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").encode()


class _Column:
    """One column's JSON, built batch by batch: numbers as text chunks; strings and dates as a
    dictionary in order of first appearance over all batches (what ``pd.factorize`` gives at once)."""

    def __init__(self, spool: Spool | None = None) -> None:
        self.chunks: list[bytes] = []
        self.kind: str | None = None  # "list" or "dict"
        self.index: dict[Any, int] = {}  # value -> code, for "dict"
        # with a spool, the chunks are there: (offset, length) pairs here, 16 bytes a chunk
        self.spool = spool
        self.refs = packed("q")

    def add(self, series: pd.Series) -> None:
        """A batch as a pandas Series: the types decide as in ``_column``."""
        import numpy as np
        import pandas as pd

        if pd.api.types.is_bool_dtype(series) or pd.api.types.is_integer_dtype(series):
            null = series.isna().to_numpy() if series.hasnans else None
            values = series.to_numpy(dtype="int64", na_value=0) if null is not None else series.to_numpy()
            self._chunk("list", _int_text(values.astype(np.int64), null))
            return
        if pd.api.types.is_float_dtype(series):
            self._chunk("list", _float_text(series.to_numpy(dtype="float64", na_value=np.nan)))
            return
        if pd.api.types.is_datetime64_any_dtype(series):
            series = series.dt.strftime("%Y-%m-%d")
        codes, uniques = pd.factorize(series, use_na_sentinel=True)
        self._codes(codes, uniques.tolist())  # tolist: Python objects at C speed (iterating Arrow is not)

    def add_arrow(self, array: Any) -> None:
        """A batch as a pyarrow array of a type ``arrow_types`` accepts: the same text as ``add`` gives
        for DuckDB's pandas conversion of that column (ints and bools, floats, dates, strings)."""
        _Column.add_arrow_ranges([self], array, [0], [len(array)])

    @staticmethod
    def add_arrow_ranges(
        columns: list[_Column], array: Any, starts: Any, ends: Any, order: Any = None
    ) -> None:
        """Row range ``[starts[i], ends[i])`` of ``array`` (ranges in row order, none empty) as a batch of
        ``columns[i]``: each column gets the text ``add_arrow`` gives for its range alone, from array
        operations over the whole of ``array`` (the run cards' partitions: a few hundred ranges a batch,
        where one ``add_arrow`` per range cost a fixed ~0.3 ms a column). With ``order`` (numpy int
        positions), the rows are ``array.take(order)``'s, taken here after encoding: a string column's
        codes are integers, cheap to reorder, where taking its strings cost a third of the run cards'
        encoding at a million runs."""
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        t = array.type
        if pa.types.is_boolean(t) or pa.types.is_integer(t):
            kind = "list"
            array = array if order is None else array.take(order)
            strings = _int_strings(pc.cast(array, pa.int8()) if pa.types.is_boolean(t) else array, None)
        elif pa.types.is_floating(t):
            kind = "list"
            a = array.to_numpy(zero_copy_only=False).astype(np.float64)
            strings = _float_strings(a if order is None else a[order])
        else:
            if pa.types.is_null(t):  # a column of NULLs only
                codes, values = np.full(len(array), -1, np.int64), []
            else:
                # codes in order of first appearance in ``array``, not in the ranges' rows: ``_range_codes``
                # numbers each range's values anew, through its column's index, keyed by value
                encoded = pc.dictionary_encode(array)
                dictionary = encoded.dictionary
                if pa.types.is_timestamp(t) or pa.types.is_date(t):
                    # the few distinct dates as text, not every row's (two times of one day give one text
                    # twice: the same key of the index, so the same code)
                    dictionary = pc.strftime(dictionary, "%Y-%m-%d")
                codes = pc.fill_null(encoded.indices, -1).to_numpy(zero_copy_only=False).astype(np.int64)
                values = dictionary.to_pylist()
            if order is not None:
                codes = codes[order]
            kind = "dict"
            null = codes < 0
            strings = _int_strings(
                _range_codes(columns, codes, values, starts, ends), null if null.any() else None
            )
        whole, begins, stops = _joined_segments(strings, starts, ends)
        spool = columns[0].spool if columns else None
        if spool is not None and all(c.spool is spool for c in columns):
            base = spool.write(whole)  # one write a column and batch, not one a partition
            for column, a, b in zip(columns, begins, stops, strict=True):
                column._ref(kind, base + a, b - a)
            return
        for column, a, b in zip(columns, begins, stops, strict=True):
            column._chunk(kind, whole[a:b])

    def _codes(self, codes: Any, values: list[Any]) -> None:
        """A batch's dictionary codes (-1: missing) over ``values``, as codes of the whole column."""
        import numpy as np

        null = codes < 0
        if self.index:  # a later batch: its codes become the codes of the values seen so far
            index = self.index
            remap = np.array([index.setdefault(u, len(index)) for u in values], dtype=np.int64)
            codes = remap[np.where(null, 0, codes)] if len(remap) else np.zeros(len(codes), np.int64)
        else:  # the first batch (the only one of a whole frame): its codes are the codes
            self.index = dict(zip(values, range(len(values)), strict=True))
        self._chunk("dict", _int_text(codes, null if null.any() else None))

    def _kind(self, kind: str) -> None:
        if self.kind not in (None, kind):
            raise ValueError(f"a column changed type between batches ({self.kind} -> {kind})")
        self.kind = kind

    def _chunk(self, kind: str, text: bytes) -> None:
        if self.spool is not None:
            self._ref(kind, self.spool.write(text), len(text))
            return
        self._kind(kind)
        if text:
            self.chunks.append(text)

    def _ref(self, kind: str, offset: int, length: int) -> None:
        self._kind(kind)
        if length:
            self.refs.extend((offset, length))

    def parts(self) -> list[bytes]:
        if self.spool is not None:
            refs, read = self.refs, self.spool.read
            body = b",".join([read(refs[i], refs[i + 1]) for i in range(0, len(refs), 2)])
            self.refs = packed("q")
        else:
            body = b",".join(self.chunks)
            self.chunks = []
        if self.kind == "dict":
            return [b'{"dict":', _escaped_json([str(u) for u in self.index]), b',"codes":[', body, b"]}"]
        return [b"[", body, b"]"]


def _range_codes(columns: list[_Column], codes: Any, values: list[Any], starts: Any, ends: Any) -> Any:
    """A batch's dictionary codes (-1: missing) over ``values`` as codes of each range's own column
    (``_Column._codes`` for range ``i`` alone, into ``columns[i].index``): every (range, value) pair met
    first is numbered in the order the rows meet it, which within a range is its order of first
    appearance."""
    import numpy as np

    out = np.full(len(codes), -1, np.int64)
    if not values:
        return out
    lengths, width = np.asarray(ends) - np.asarray(starts), len(values)
    seen = codes >= 0
    key = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)[seen] * width + codes[seen]
    pairs, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # the pairs in the order the rows meet them
    ranges, value_codes = np.divmod(pairs[order], width)
    numbered = []
    for r, v in zip(ranges.tolist(), value_codes.tolist(), strict=True):
        index = columns[r].index
        numbered.append(index.setdefault(values[v], len(index)))
    remap = np.empty(len(pairs), np.int64)
    remap[order] = numbered
    out[seen] = remap[inverse.reshape(-1)]
    return out


def release_freed_heap() -> bool:
    """Give the C heap's free pages back to the system (glibc ``malloc_trim``); False where there is none.

    The run cards' encoding frees ~10^6 small text chunks (1M runs: 1,000 partitions x 98 columns x 10
    batches) between longer-lived objects, and glibc keeps such freed pages: at a million runs about
    0.3 GB that the process carried, unused, to the second language's build, where it peaks. Nothing is
    moved or freed that was in use, so nothing built changes."""
    import ctypes

    try:
        trim = getattr(ctypes.CDLL(None), "malloc_trim", None)  # the symbols this process has loaded
    except OSError:
        return False
    if trim is None:  # musl, macOS: no malloc_trim
        return False
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    trim(0)
    return True


@dataclass
class DataFile:
    """A data file's key and its bytes: in parts in memory (joined only when written), or in a spool once
    ``spill`` has put them there."""

    key: str
    parts: list[bytes]
    spool: Spool | None = None
    at: tuple[int, int] = (0, 0)  # (offset, length) in the spool

    def spill(self, spool: Spool) -> None:
        """Move the bytes to ``spool``: a build holds every page's file until MkDocs is done, which at a
        million runs is most of a gigabyte."""
        start = spool.size
        for part in self.parts:
            spool.write(part)
        self.spool, self.at, self.parts = spool, (start, spool.size - start), []

    def write(self, path: Path) -> None:
        with open(path, "wb") as f:
            if self.spool is None:
                f.writelines(self.parts)
                return
            start, length = self.at
            for offset in range(start, start + length, SPOOL_READ):
                f.write(self.spool.read(offset, min(SPOOL_READ, start + length - offset)))

    def text(self) -> str:
        if self.spool is None:
            return b"".join(self.parts).decode()
        return self.spool.read(*self.at).decode()


SPOOL_READ = 8 << 20  # a spilled file is copied into the site this many bytes at a time


class Encoder:
    """``data_file(stem, encode(df))`` for a frame given in row batches (same columns in each)."""

    def __init__(self, spool: Spool | None = None) -> None:
        self.rows = 0
        self.columns: dict[str, _Column] = {}
        self.spool = spool  # where the columns' text waits (None: in memory)

    def add(self, batch: Any) -> None:
        """A batch: a pandas frame, or a pyarrow RecordBatch whose schema ``arrow_types`` accepts."""
        if hasattr(batch, "schema"):
            self._add_arrow(batch)
            return
        self._names(batch.columns)
        for column, name in zip(self.columns.values(), batch.columns, strict=True):
            column.add(batch[name])
        self.rows += len(batch)

    def _add_arrow(self, batch: Any) -> None:
        self._names(batch.schema.names)
        for column, array in zip(self.columns.values(), batch.columns, strict=True):
            column.add_arrow(array)
        self.rows += batch.num_rows

    def _names(self, names: Any) -> None:
        if not self.columns:
            self.columns = {str(c): _Column(self.spool) for c in names}
        if [str(c) for c in names] != list(self.columns):
            raise ValueError("every batch of a data file must have the same columns")

    def finish(self, stem: str) -> DataFile:
        body = [b'{"n":', str(self.rows).encode(), b',"columns":{']
        for i, (name, column) in enumerate(self.columns.items()):
            body += [b"," if i else b"", _escaped_json(name), b":", *column.parts()]
        body.append(b"}}")
        digest = hashlib.sha1()
        for part in body:
            digest.update(part)
        return DataFile(f"{stem}.{digest.hexdigest()[:8]}", body)


def arrow_types(schema: Any) -> bool:
    """Whether ``Encoder.add_arrow`` takes every column of ``schema`` (pyarrow): ints, bools, floats,
    dates, timestamps without a zone and strings, whose text is the same as through DuckDB's pandas
    conversion. Anything else (decimals, lists, zoned times, ...) goes through pandas."""
    import pyarrow as pa

    t = pa.types
    return all(
        t.is_integer(f.type) or t.is_boolean(f.type) or t.is_floating(f.type) or t.is_date(f.type)
        or (t.is_timestamp(f.type) and f.type.tz is None) or t.is_string(f.type) or t.is_large_string(f.type)
        or t.is_null(f.type)
        for f in schema
    )  # fmt: skip


def frame_file(stem: str, df: pd.DataFrame) -> DataFile:
    """The data file of ``df``: the bytes of ``data_file(stem, encode(df))``, encoded column-wise."""
    enc = Encoder()
    enc.add(df)
    if not enc.columns:  # no column: nothing for add() to learn the columns from
        enc.columns = {}
    return enc.finish(stem)


# A page's data file in parts of at most ROWS_PER_PART rows (~9 MB at today's columns, about 176 bytes a
# run): no file of the site over 20 MB at a million runs (one file was 148 MB). The page loads every part
# of its set (space-separated in data-lb-src / data-lb-key) and joins the rows in order; a set of fewer
# rows is one file, byte for byte the file ``frame_file`` writes.
ROWS_PER_PART = 50_000


def frame_files(stem: str, df: pd.DataFrame, rows: int | None = None) -> list[DataFile]:
    """The data files of ``df`` in row order, ``rows`` rows each (the last fewer; at least one file;
    ``ROWS_PER_PART`` as it is when called, by default)."""
    return list(frame_parts(stem, df, rows))


def frame_parts(stem: str, df: pd.DataFrame, rows: int | None = None) -> Iterator[DataFile]:
    """``frame_files``, each part encoded when it is asked for: a caller that spills each part before the
    next holds one part's text, not every part's (1M runs: 20 parts, ~180 MB)."""
    rows = rows or ROWS_PER_PART
    if len(df) <= rows:
        yield frame_file(stem, df)
        return
    for i in range(0, len(df), rows):
        yield frame_file(stem, df.iloc[i : i + rows].reset_index(drop=True))


# Run cards (runs.html#<id>) in partitions: a card loads the one file holding its run, never every card of
# the data set (379 MB at a million runs). A run's partition is a stable hash of its id, computed the same
# way by the page script (docs/assets/js/data/cards.js cardPart; tests/site/test_cards.py runs both).
CARDS_PER_PART = 1000  # ~0.4 MB a part at today's columns (about 380 bytes of every column per run)


def card_parts(runs: int) -> int:
    """How many card partitions ``runs`` runs take (at least one)."""
    return max(1, math.ceil(runs / CARDS_PER_PART))


def card_part(run_id: str, parts: int) -> int:
    """The partition of a run: FNV-1a (32 bit) of its id's UTF-8 bytes, modulo ``parts``."""
    h = 0x811C9DC5
    for byte in run_id.encode("utf-8"):
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h % parts


def card_part_array(run_ids: list[str], parts: int) -> Any:
    """``card_part`` of every id at once (numpy int64): FNV-1a a byte column at a time over the ids' UTF-8
    bytes, so a million ids are a dozen array passes, not a million Python loops (the run cards'
    share at 1M runs). An id's hash stops at its own length; the product of a 32-bit hash and the 25-bit
    prime fits in 64 bits before the mask."""
    import numpy as np

    raw = [i.encode("utf-8") for i in run_ids]
    width = max(map(len, raw), default=0)
    lens = np.fromiter(map(len, raw), dtype=np.int64, count=len(raw))
    # a matrix of the bytes, each id's row padded with zeros (lens says where the id ends)
    table = np.frombuffer(b"".join(r.ljust(width, b"\0") for r in raw), dtype=np.uint8).reshape(
        len(raw), width
    )
    h = np.full(len(raw), 0x811C9DC5, dtype=np.uint64)
    for k in range(width):
        step = ((h ^ table[:, k]) * np.uint64(0x01000193)) & np.uint64(0xFFFFFFFF)
        h = np.where(k < lens, step, h)
    return (h % np.uint64(parts)).astype(np.int64)


class PartitionedEncoder:
    """An ``Encoder`` per card partition: each batch's rows go to the partition of their ``run_id``. The
    encoded text waits in a ``Spool`` on disk until ``finish``: every column of every run is most of the
    data set's bytes (~0.4 GB at a million runs), where the build's peak is counted."""

    def __init__(self, parts: int) -> None:
        self.spool = Spool()
        self.encoders = [Encoder(self.spool) for _ in range(parts)]

    @property
    def rows(self) -> int:
        return sum(e.rows for e in self.encoders)

    def add(self, batch: Any) -> None:
        """A batch's rows, each to the encoder of its partition, in the batch's order: what one
        ``Encoder.add`` per partition of that partition's rows gives. A pyarrow batch is encoded column by
        column once, its rows sorted by partition (``_Column.add_arrow_ranges``): at 1M runs a batch
        of 100,000 rows meets all 1,000 partitions, and an ``add`` per partition and column was ~10^6
        small encodings."""
        import numpy as np

        n = len(self.encoders)
        ids = batch.column("run_id").to_pylist() if hasattr(batch, "schema") else batch["run_id"].tolist()
        part = card_part_array([str(i) for i in ids], n)
        if not hasattr(batch, "schema"):
            for p in np.unique(part):
                self.encoders[int(p)].add(batch.iloc[np.flatnonzero(part == p)])
            return
        # each partition's rows together, in the batch's order; sorted a column at a time (the card encoding
        # of the 200k set alone peaked at 550 MB before, 691 MB with a sorted copy of each whole batch,
        # 606 MB this way)
        order = np.argsort(part, kind="stable")
        part = part[order]
        present = np.unique(part)
        starts, ends = np.searchsorted(part, present, "left"), np.searchsorted(part, present, "right")
        encoders = [self.encoders[int(p)] for p in present]
        for enc in encoders:
            enc._names(batch.schema.names)
        for name, array in zip(batch.schema.names, batch.columns, strict=True):
            columns = [e.columns[str(name)] for e in encoders]
            _Column.add_arrow_ranges(columns, array, starts, ends, order)
        for enc, a, b in zip(encoders, starts.tolist(), ends.tolist(), strict=True):
            enc.rows += b - a

    def finish(self, stem: str) -> list[DataFile]:
        """One data file per partition (``stem-<i>``), each with every column (an empty one included)."""
        return list(self.finish_each(stem))

    def finish_each(self, stem: str) -> Iterator[DataFile]:
        """``finish``'s files one at a time (a file spilled before the next is read back from the spool,
        only one partition's text in memory); the spool is closed after the last. Once only."""
        names = next((list(e.columns) for e in self.encoders if e.columns), [])
        try:
            for i, enc in enumerate(self.encoders):
                if not enc.columns:
                    enc.columns = {name: _Column(self.spool) for name in names}
                yield enc.finish(f"{stem}-{i}")
                enc.columns = {}  # its dictionaries freed
        finally:
            self.spool.close()


# The explorer's first view at scale (issue 29): above SUMMARY_FROM_RUNS runs, the explorer opens on the
# best run of each cell below (a few thousand rows whatever the number of runs per cell), drawn by the
# same chart specs, and loads every run when the reader asks (a filter, a preset, "show every run").
# Below it the whole file is about as small as the summary would be, so the page loads it at once.
SUMMARY_FROM_RUNS = 20_000
SUMMARY_CELL = ("gpu", "model_name", "precision", "workload")
SUMMARY_FIGURE = "output_tps_per_gpu"  # what the explorer's first chart draws


def cells(runs: pd.DataFrame) -> Any:
    """Each run's ``SUMMARY_CELL`` as one integer (numpy), a missing value a cell of its own. The summary
    groups the runs by their cell once per dimension it takes a filter on: by this number, pandas does
    not factorize a million texts of four columns again each time (about 0.25 s a grouping at 1M)."""
    return runs.groupby(list(SUMMARY_CELL), sort=False, dropna=False, observed=True).ngroup().to_numpy()


def best_per_cell(runs: pd.DataFrame, extra: tuple[str, ...] = (), cell: Any = None) -> pd.DataFrame:
    """The run with the highest ``SUMMARY_FIGURE`` of each ``SUMMARY_CELL`` (ties: the smallest run id),
    every column kept, plus ``cell_runs``: how many runs the cell holds. A cell with no figure at all is
    left out (the first chart draws no point for it either). Rows in the order of the runs frame.
    ``extra``: more columns of the cell (``summary_by``: the best run of each cell and TP size).
    ``cell``: ``cells(runs)`` where the caller has it."""
    import numpy as np
    import pandas as pd

    cell = cells(runs) if cell is None else cell
    if extra:
        keys = [pd.Series(cell, index=runs.index), *(runs[c] for c in extra)]
        cell = runs.groupby(keys, sort=False, dropna=False, observed=True).ngroup().to_numpy()
    sizes = np.bincount(cell, minlength=1)[cell]  # each run's cell's number of runs
    figure = runs[SUMMARY_FIGURE].astype("float64")
    # the runs at their cell's highest figure (a cell without any figure has none), then the smallest run
    # id of each cell among them: no sort of every run (4.6 s of strings at a million runs)
    top = figure.groupby(cell).transform("max").to_numpy()
    at_top = np.flatnonzero(figure.to_numpy() == top)  # NaN equals nothing
    ties = pd.DataFrame(
        {"run_id": runs["run_id"].iloc[at_top].to_numpy(), "cell": cell[at_top], "at": at_top}
    )
    rows = np.sort(ties.sort_values("run_id", kind="stable").drop_duplicates("cell")["at"].to_numpy())
    best = runs.iloc[rows].assign(cell_runs=sizes[rows].astype("int64"))
    return best.reset_index(drop=True)


def js_text(value: Any) -> str:
    """The text the page script makes of ``value`` read back from a data file (``String(v)``, what its
    filters compare): a whole float is written as an integer (``_number``), a bool as true/false."""
    import numpy as np

    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (float, np.floating)):
        return json.dumps(_number(float(value)))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return str(value)


def summary_by(
    runs: pd.DataFrame, best: pd.DataFrame, column: str, sort_column: str | None = None, cell: Any = None
) -> tuple[pd.DataFrame, dict[Any, pd.DataFrame]]:
    """What lets the explorer's summary (``best``, of ``runs``) take a filter on one more dimension
    (``column``: TP, a release) without loading every run:

    - its counts: the runs of each of ``best``'s cells by value of ``column``, one row each
      ``{cell: best's row number, column, sort_column, cell_runs}`` (a null value is a group of its own;
      a cell ``best`` leaves out is left out here too), for the filter bar's counts and the count line;
    - each value's best runs: ``best_per_cell`` of the runs with that value, a frame per value, so a
      filter on a value loads that value's file only (at most one row per cell).

    ``cell``: ``cells(runs)`` where the caller has it (the explorer asks for every dimension).
    """
    import pandas as pd

    keys = list(SUMMARY_CELL)
    cell = cells(runs) if cell is None else cell
    by = [column] if sort_column is None else [column, sort_column]
    number = pd.Series(cell, index=runs.index, name="_cell")
    groups = runs.groupby([number, *(runs[c] for c in by)], sort=False, dropna=False, observed=True).size()
    groups = groups.rename("cell_runs").reset_index()
    # best's rows by their cell's number: the number of one run of each cell, matched on the four texts
    numbers = runs[keys].assign(_cell=cell).drop_duplicates("_cell")
    own = best[keys].reset_index(drop=True).reset_index(names="cell").merge(numbers, on=keys, how="inner")
    counts = own[["cell", "_cell"]].merge(groups, on="_cell", how="inner").sort_values("cell", kind="stable")
    counts = counts[["cell", *by, "cell_runs"]].reset_index(drop=True)
    counts["cell_runs"] = counts["cell_runs"].astype("int64")
    present = runs[column].notna().to_numpy()
    per_value = best_per_cell(runs[present], (column,), cell[present])
    return counts, {
        v: part.reset_index(drop=True) for v, part in per_value.groupby(column, sort=True, observed=True)
    }
