"""Compare mode (``docs/compare.md``, the ``<!-- compare -->`` marker): A against B along one dimension
(two GPUs, releases, precisions or engines) over the configurations both have, read as "how many times
faster is B than A" (B ÷ A per configuration; their median, range and count first, the list on demand).

The matching rule lives here and is shipped to the page script as data: two runs are comparable when
every column of ``MATCH`` but the compared one is equal; per side the best per-GPU output throughput of a
configuration is taken. Sources of a kind in ``EXCLUDED_KINDS`` never enter a comparison (MLPerf figures
are not to be set beside others), and ``pages.py`` uses ``matched`` for the GPU pages' "compare with"
links, so the page and its links agree.
"""

from __future__ import annotations

from dataclasses import dataclass
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
# Estimates (issue 28) are paired among themselves, never with a measurement, and shown beside the
# measured pair of the same configuration. One estimator models one release for everyone, so the source
# and the release are left out of an estimate's configuration.
ESTIMATE_KIND = "modelled"
ESTIMATE_MATCH: tuple[str, ...] = tuple(c for c in MATCH if c not in ("publisher", "engine_version"))

# A match column a comparison may leave free ("free=precision" in the URL): each side's best whatever its
# precision. NVIDIA publishes B200 at FP4 and H200 at FP8 only, so their only comparison is this one; the
# rows then name both precisions.
FREE = ("precision",)

# (label, by, A, B, extra URL parameters): kept only when the data match at least one configuration.
# The page answers "how many times faster is B than A" (B ÷ A), so each preset puts first what its question
# measures against: the older GPU, the wider precision; the answer then reads above 1 (tested on the data).
PRESETS: tuple[tuple[str, str, str, str, dict[str, str]], ...] = (
    ("H100 vs H200", "gpu", "H100 SXM 80GB", "H200 SXM 141GB", {}),
    (
        "H200 vs B200 (each at its best precision)",
        "gpu",
        "H200 SXM 141GB",
        "B200 180GB",
        {"free": "precision"},
    ),
    ("FP16 vs FP8 on H200", "precision", "FP16", "FP8", {"gpu": "H200 SXM 141GB"}),
)

UI = (  # the page's words: keys of the catalogue's compare section (site_gen/i18n/<lang>.yaml)
    "by", "a", "b", "model", "workload", "any", "presets", "none", "ratio", "free", "config", "answer",
    "stats", "one_config", "fixed", "list", "estimates", "estimate", "measured", "est_answer", "est_none",
    "est_low", "est_held",
)  # fmt: skip


def _usable(runs: pd.DataFrame) -> pd.DataFrame:
    """Runs a comparison may use: with the metric, of an included kind, not above their bound."""
    df = within_bound(runs[runs[METRIC].notna()])
    if EXCLUDED_KINDS:
        df = df[~df["source_kind"].isin(EXCLUDED_KINDS)]
    return df


# The columns of compare mode's pickers and filters (model, workload and every BY column) with the columns
# that order their values (pages/compare.js SORT_COLUMN): what ``combos`` keeps.
PICKED: tuple[str, ...] = ("model_name", "workload", *(c for _, _, c in BY))
ORDER: dict[str, str] = {
    "gpu": "gpu_order",
    "engine_version": "version_key",
    "precision": "precision_order",
    "workload": "workload_order",
}


def combos(runs: pd.DataFrame) -> pd.DataFrame:
    """Each combination of the pickers' columns (``PICKED``) that a usable run has, once, with the columns
    that order their values: at scale the page fills its pickers and filters from these (the GPUs that
    have runs of the chosen model, ...) and loads the runs of the GPUs it compares only."""
    df = _usable(runs)
    columns = [c for c in PICKED if c in df.columns]
    columns += [ORDER[c] for c in columns if c in ORDER and ORDER[c] in df.columns]
    return df[columns].drop_duplicates().reset_index(drop=True)


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


def ratios(
    runs: pd.DataFrame, column: str, a: str, b: str, where: dict[str, str] | None = None
) -> list[float]:
    """B ÷ A for each configuration both have (``matched``'s rule; per side its best run): "how many
    times faster is B than A". The Python twin of the page's ``calc/compare.js`` pairs."""
    both = _pairs(runs, column, a, b, where)
    return [float(x) for x in (both[b] / both[a]).tolist()] if len(both) else []


def workloads(runs: pd.DataFrame, column: str, a: str, b: str, where: dict[str, str] | None = None) -> int:
    """How many workloads the pairs of ``ratios`` span: the lines of the page's dot plot."""
    both = _pairs(runs, column, a, b, where)
    return int(both.index.get_level_values("workload").nunique()) if len(both) else 0


def _pairs(runs: pd.DataFrame, column: str, a: str, b: str, where: dict[str, str] | None) -> pd.DataFrame:
    """Per configuration both have (index: its id and workload), the best metric of A and of B (columns
    ``a``, ``b``); an empty frame for none."""
    import pandas as pd

    df = _usable(runs)
    where = dict(where or {})
    free = where.pop("free", None)
    for key, value in where.items():
        df = df[df[_column(key)].astype(str) == value]
    keys = [c for c in MATCH if c not in (column, free) and c in df.columns]
    df = df.assign(_cfg=config_ids(df, keys), _side=df[column].astype(str))
    # the workload is one of the configuration's keys, so grouping by it too splits no configuration
    best = df[df["_side"].isin([a, b])].groupby(["_cfg", "workload", "_side"])[METRIC].max().unstack()
    if a == b or a not in best.columns or b not in best.columns:
        return pd.DataFrame(columns=[a, b])
    return best.dropna(subset=[a, b])


def summary(values: list[float]) -> dict[str, float] | None:
    """Median, range and count of the ratios (None for none): what the page says before its list."""
    import statistics

    if not values:
        return None
    return {"n": len(values), "median": statistics.median(values), "min": min(values), "max": max(values)}


def most_compared(
    runs: pd.DataFrame, column: str = "gpu", order: str = "gpu_order"
) -> tuple[str, str] | None:
    """The two values of ``column`` sharing the most configurations (``matched``'s rule), the one first in
    ``order`` (the older GPU) as A: where the Compare tab opens without a preset. Ties: the first pair in
    name order. None when no two values share a configuration."""
    import numpy as np

    df = _usable(runs)
    df = df[df[column].notna()]
    keys = [c for c in MATCH if c != column and c in df.columns]
    codes, values = pd_factorize_sorted(df[column])
    shared = _shared_counts(codes, config_ids(df, keys), len(values))
    np.fill_diagonal(shared, 0)
    if not len(values) or shared.max() == 0:
        return None
    i, j = (int(x) for x in np.unravel_index(int(np.argmax(shared)), shared.shape))  # first max: i < j
    rank = df.groupby(column)[order].min() if order in df.columns else None
    first, second = str(values[i]), str(values[j])
    if rank is not None and rank[values[j]] < rank[values[i]]:
        first, second = second, first
    return first, second


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


@dataclass(frozen=True)
class Facts:
    """What compare mode's page takes from its runs, the same in every language: the pair it opens on
    (``most_compared``) and the presets the data can fill (their places in ``PRESETS``). A build computes
    them once for all its languages (``markers.Page._render_compare``): at a million runs, 1.3 s a time."""

    pair: tuple[str, str] | None
    fillable: tuple[int, ...]


def facts(runs: pd.DataFrame) -> Facts:
    return Facts(most_compared(runs), _fillable(runs))


def _fillable(runs: pd.DataFrame) -> tuple[int, ...]:
    """The places in ``PRESETS`` of the presets whose pair the data match at least once."""
    column = {k: c for k, _, c in BY}
    return tuple(
        i for i, (_, by, a, b, where) in enumerate(PRESETS) if matched(runs, column[by], a, b, where)
    )


def presets(
    runs: pd.DataFrame, cat: Catalogue | None = None, known: Facts | None = None
) -> list[dict[str, str]]:
    """The presets the data can fill (``known.fillable``, computed from ``runs`` when not given), labelled
    in the catalogue's language (``compare.preset_<i>``, the English label where it has none)."""
    out = []
    for i in known.fillable if known else _fillable(runs):
        label, by, a, b, where = PRESETS[i]
        text = cat.messages.get(f"compare.preset_{i}", label) if cat else label
        out.append({"label": text, "href": href("", by, a, b, where)})
    return out


def config(runs: pd.DataFrame, cat: Catalogue | None = None, known: Facts | None = None) -> dict[str, Any]:
    """What the page script needs: the dimensions, the matching rule, the metric, the presets, words (in
    the catalogue's language, English by default). ``known``: ``facts(runs)``, where already computed."""
    from site_gen import i18n

    cat = cat or i18n.load(i18n.DEFAULT)
    known = known or facts(runs)
    pair = known.pair
    return {
        # where the page opens without a choice in its URL: the most-compared pair of GPUs in the data
        "default": {"by": "gpu", "a": pair[0], "b": pair[1]} if pair else None,
        "by": [
            {"key": k, "label": cat.messages.get(f"compare.dim_{k}", label), "column": c}
            for k, label, c in BY
        ],
        "match": list(MATCH),
        "free": list(FREE),
        "metric": METRIC,
        "excluded_kinds": list(EXCLUDED_KINDS),
        "estimate_kind": ESTIMATE_KIND,
        "estimate_match": list(ESTIMATE_MATCH),
        "max_pct_of_bound": MAX_PCT_OF_BOUND,
        "presets": presets(runs, cat, known),
        "ui": {k: cat.t(f"compare.{k}") for k in UI},
    }
