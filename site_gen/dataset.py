"""A page's runs as one compact JavaScript data file, shipped once per page whatever its chart count.

The payload is columnar: numbers as plain lists, strings dictionary-encoded (``{"dict": [...], "codes":
[...]}``), missing values as ``null``. ``llmbench.js`` decodes it into row objects once and every chart,
the table and the CSV export of the page share those rows. The file assigns a global instead of being
fetched, because ``fetch()`` is refused from ``file://`` while a ``<script src>`` works everywhere.
The file name carries a content hash, so a browser never reuses a stale copy.
"""

from __future__ import annotations

import hashlib
import json
import math
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


def data_file(stem: str, payload: dict[str, Any]) -> tuple[str, str]:
    """(key, JavaScript) of a data file: the key is ``stem.<8 hex of the content hash>``, and the script
    registers the payload under it (JSON is valid JavaScript; the file is never parsed as HTML)."""
    body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
    body = body.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    key = f"{stem}.{hashlib.sha1(body.encode()).hexdigest()[:8]}"
    return key, f"(window.LLMBENCH_DATA=window.LLMBENCH_DATA||{{}})[{json.dumps(key)}]={body};\n"
