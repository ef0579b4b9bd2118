"""Compare mode (``docs/compare.md``, the ``<!-- compare -->`` marker): A against B along one dimension
(two GPUs, releases, precisions or engines) over the configurations both have.

The matching rule lives here and is shipped to the page script as data: two runs are comparable when
every column of ``MATCH`` but the compared one is equal; per side the best per-GPU output throughput of a
configuration is taken. Sources of a kind in ``EXCLUDED_KINDS`` never enter a comparison (MLPerf figures
are not to be set beside others), and ``pages.py`` uses ``matched`` for the GPU pages' "compare with"
links, so the page and its links agree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from site_gen.data.queries import MAX_PCT_OF_BOUND, within_bound

if TYPE_CHECKING:
    import pandas as pd

    from site_gen.i18n import Catalogue

# The dimensions one can compare along: key (URL), label, column of the runs.
BY: tuple[tuple[str, str, str], ...] = (
    ("gpu", "GPU", "gpu"),
    ("version", "Engine release", "engine_version"),
    ("precision", "Precision", "precision"),
    ("engine", "Engine", "engine"),
)
# A configuration: what must be equal on both sides (the compared column excepted).
MATCH: tuple[str, ...] = (
    "model_name", "precision", "workload", "tp", "pp", "ep", "publisher", "engine", "engine_version", "gpu",
)  # fmt: skip
METRIC = "output_tps_per_gpu"
EXCLUDED_KINDS: tuple[str, ...] = ("modelled",)  # kept out of every comparison: estimates (issue 28)

# A match column a comparison may leave free ("free=precision" in the URL): each side's best whatever its
# precision. NVIDIA publishes B200 at FP4 and H200 at FP8 only, so their only comparison is this one; the
# rows then name both precisions.
FREE = ("precision",)

# (label, by, A, B, extra URL parameters): kept only when the data match at least one configuration.
PRESETS: tuple[tuple[str, str, str, str, dict[str, str]], ...] = (
    ("H100 vs H200", "gpu", "H100 SXM 80GB", "H200 SXM 141GB", {}),
    (
        "B200 vs H200 (each at its best precision)",
        "gpu",
        "B200 180GB",
        "H200 SXM 141GB",
        {"free": "precision"},
    ),
    ("FP8 vs FP16 on H200", "precision", "FP8", "FP16", {"gpu": "H200 SXM 141GB"}),
)

UI = (  # the page's words: keys of the catalogue's compare section (site_gen/i18n/<lang>.yaml)
    "by", "a", "b", "model", "workload", "any", "presets", "matched", "none", "geomean", "ratio", "free",
    "config",
)  # fmt: skip


def _usable(runs: pd.DataFrame) -> pd.DataFrame:
    """Runs a comparison may use: with the metric, of an included kind, not above their bound."""
    df = within_bound(runs[runs[METRIC].notna()])
    if EXCLUDED_KINDS:
        df = df[~df["source_kind"].isin(EXCLUDED_KINDS)]
    return df


def matched(runs: pd.DataFrame, column: str, a: str, b: str, where: dict[str, str] | None = None) -> int:
    """How many configurations have runs with ``column == a`` and with ``column == b``."""
    df = _usable(runs)
    where = dict(where or {})
    free = where.pop("free", None)
    for key, value in where.items():
        df = df[df[_column(key)].astype(str) == value]
    keys = [c for c in MATCH if c not in (column, free) and c in df.columns]
    ids = config_ids(df, keys)
    values = df[column].astype(str)
    return len(set(ids[(values == a).to_numpy()]) & set(ids[(values == b).to_numpy()]))


def config_ids(df: pd.DataFrame, keys: list[str]) -> Any:
    """One integer per row naming its configuration (the values of ``keys``; missing values are one value
    per column): rows with equal ids have equal ``keys``, as the tuples of their text would be, without a
    Python tuple per row (a million runs took seconds per call that way)."""
    import numpy as np

    if not keys:
        return np.zeros(len(df), dtype=np.int64)
    return df.groupby(keys, dropna=False, sort=False).ngroup().to_numpy()


def partners(runs: pd.DataFrame, column: str = "gpu", top: int = 3) -> dict[str, list[tuple[str, int]]]:
    """For each value of ``column``: the values sharing the most configurations with it (``matched``'s
    rule), most first, for the "compare with" links of the GPU pages."""

    df = _usable(runs)
    keys = [c for c in MATCH if c != column and c in df.columns]
    df = df[df[column].notna()]  # groupby's rule: a run without a value of ``column`` is in no group
    ids = config_ids(df, keys)
    codes, values = pd_factorize_sorted(df[column])
    shared = _shared_counts(codes, ids, len(values))
    out: dict[str, list[tuple[str, int]]] = {}
    for i, v in enumerate(values):
        counts = [(str(w), int(shared[i, j])) for j, w in enumerate(values) if j != i]
        out[str(v)] = sorted([c for c in counts if c[1]], key=lambda c: -c[1])[:top]
    return out


_CHUNK = 1 << 16  # configurations per block of the product below (n_values x 65,536 float32: a few MB)


def _shared_counts(codes: Any, ids: Any, n_values: int) -> Any:
    """``shared[v, w]``: how many configurations (``ids``) rows of value ``v`` and of value ``w`` (``codes``)
    both have. A 0/1 matrix (value x configuration) times its transpose, block by block: float32 sums
    are exact within a block (at most 65,536), the blocks are added as integers."""
    import numpy as np

    shared = np.zeros((n_values, n_values), dtype=np.int64)
    if not len(ids):
        return shared
    pairs = np.unique(ids.astype(np.int64) * n_values + codes)  # one per (configuration, value)
    cfg, val = pairs // n_values, pairs % n_values
    for start in range(0, int(cfg[-1]) + 1, _CHUNK):
        lo, hi = np.searchsorted(cfg, [start, start + _CHUNK])
        has = np.zeros((n_values, _CHUNK), dtype=np.float32)
        has[val[lo:hi], cfg[lo:hi] - start] = 1.0
        shared += (has @ has.T).astype(np.int64)
    return shared


def pd_factorize_sorted(series: pd.Series) -> tuple[Any, list[Any]]:
    """(code per row, distinct values in sorted order): the groups of ``series.groupby`` in its order."""
    import pandas as pd

    codes, uniques = pd.factorize(series, sort=True)
    return codes, list(uniques)


def _column(key: str) -> str:
    from site_gen.data.dimensions import get

    return get(key).column


def href(page: str, by: str, a: str, b: str, where: dict[str, str] | None = None) -> str:
    """The compare page's URL for a pair (relative ``page``, e.g. ``../../compare.html``)."""
    return f"{page}?" + urlencode({"by": by, "a": a, "b": b, **(where or {})})


def presets(runs: pd.DataFrame) -> list[dict[str, str]]:
    out = []
    for label, by, a, b, where in PRESETS:
        column = dict((k, c) for k, _, c in BY)[by]
        if matched(runs, column, a, b, where):
            out.append({"label": label, "href": href("", by, a, b, where)})
    return out


def config(runs: pd.DataFrame, cat: Catalogue | None = None) -> dict[str, Any]:
    """What the page script needs: the dimensions, the matching rule, the metric, the presets, words (in
    the catalogue's language, English by default)."""
    from site_gen import i18n

    cat = cat or i18n.load(i18n.DEFAULT)
    return {
        "by": [
            {"key": k, "label": cat.messages.get(f"compare.dim_{k}", label), "column": c}
            for k, label, c in BY
        ],
        "match": list(MATCH),
        "free": list(FREE),
        "metric": METRIC,
        "excluded_kinds": list(EXCLUDED_KINDS),
        "max_pct_of_bound": MAX_PCT_OF_BOUND,
        "presets": presets(runs),
        "ui": {k: cat.t(f"compare.{k}") for k in UI},
    }
