"""The one table of filter dimensions: what a reader can filter the runs by.

Each dimension names the column of the ``runs`` table it filters, its label in the filter bar, table and
docs, and whether several values may be chosen at once. The same table feeds the SQL that ships a page's
data, the filter bar and URL state in the page script, the chart markers' fixed filters and the docs
(``docs/dev/architecture.md`` lists it; a test checks that it does). ``mask`` is the one rule for which
rows a set of filters keeps, in Python (starting filters, chart markers) as in the page script.

``LIMITS`` are the explorer's numeric latency filters ("TPOT ≤ 50 ms"), kept in the URL beside the
dimensions; ``llmbench list`` takes the same ones (``--tpot-max`` ...).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import pandas as pd

Filters = dict[str, list[str]]  # dimension key -> the values allowed (any of them)

_MAJOR_MINOR = re.compile(r"\d+\.\d+")


TRTLLM = "tensorrt-llm"  # the engine whose releases the Version filter lists by number alone
# How a release of another engine is named (the engine column's id otherwise, e.g. "transformers").
ENGINE_NAMES = {TRTLLM: "TensorRT-LLM", "vllm": "vLLM", "sglang": "SGLang"}


def release_label(version: str, engine: str = TRTLLM) -> str:
    """One spelling per release: '1.2' and '1.2.0' name the same TensorRT-LLM tag (v1.2.0), so a version
    of two parts gets its ".0" ('0.17' -> '0.17.0'); others ('1.0.0rc4', '5.17.0') stay as written. The
    ingest stores this in ``engine_version`` (the result file's own spelling in ``engine_version_file``),
    and chart markers' ``version=`` values are read through it.

    A release of another engine carries the engine's name ('vllm', '0.24.0' -> 'vLLM 0.24.0'): the Version
    filter lists every engine's releases in one list, where a bare vLLM 0.24.0 or SGLang 0.5.14 (the
    estimates, issue 28) would read as a TensorRT-LLM release, and vLLM 0.14.0 would be one value with
    TensorRT-LLM 0.14.0."""
    number = f"{version}.0" if _MAJOR_MINOR.fullmatch(version) else version
    return number if engine == TRTLLM else f"{ENGINE_NAMES.get(engine, engine)} {number}"


@dataclass(frozen=True)
class Dimension:
    key: str  # name in URLs and chart markers: ?gpu=H200+SXM+141GB, <!-- chart: x gpu="..." -->
    label: str
    column: str  # column of the runs table
    multi: bool = True  # several values at once; single-valued dimensions use a drop-down
    numeric: bool = False  # values sort as numbers
    sort_column: str | None = None  # column giving the display order (GPU year, version key)
    help: str = ""
    # a URL that names other filters but not this one keeps this one's default (not "all"): a hand-written
    # ?gpu=L40S must not turn the estimates on; "?kind=*" still chooses every kind
    keep_default: bool = False

    def as_json(self) -> dict:
        return asdict(self)


DIMENSIONS: tuple[Dimension, ...] = (
    Dimension("gpu", "GPU", "gpu", sort_column="gpu_order", help="Canonical GPU name (registry)."),
    Dimension("model", "Model", "model_name", help="Model display name (registry)."),
    Dimension(
        "precision",
        "Precision",
        "precision",
        sort_column="precision_order",
        help="Weight precision. “Mixed” is NVIDIA's label for the 16-bit A100 and H100 rows of releases 0.12"
        " and 0.15: their figures match FP16, so they count as 16-bit weights (registries: precisions.yaml).",
    ),
    Dimension(
        "workload",
        "Workload (ISL/OSL)",
        "workload",
        sort_column="workload_order",
        help="Input/output sequence lengths in tokens, e.g. 128/2048.",
    ),
    Dimension("tp", "TP", "tp", numeric=True, help="Tensor-parallel size."),
    Dimension("pp", "PP", "pp", numeric=True, help="Pipeline-parallel size."),
    # issue 27 (InferenceX #107): runs by the GPUs they take, whatever the TP × PP split
    Dimension("gpus", "GPUs", "n_gpus", numeric=True, help="GPUs a run uses (TP × PP)."),
    Dimension("engine", "Engine", "engine", help="Inference engine: tensorrt-llm, transformers, ..."),
    Dimension(
        "version",
        "Engine version",
        "engine_version",
        sort_column="version_key",
        help="TensorRT-LLM release by its number; another engine's with its name (vLLM 0.24.0).",
    ),
    Dimension(
        "kind",
        "Source kind",
        "source_kind",
        help="“measured”: run with llmbench's own sweeps; “published”: copied from a third party's tables"
        " (NVIDIA, KISTI, ...), each cited on its run card; “modelled”: an estimate of AIConfigurator's"
        " performance model, never a measurement, off unless ticked (its run card gives its measured error"
        " band). Only the explorer pages carry estimates (site_gen.data.estimates).",
        keep_default=True,
    ),
    Dimension("source", "Source", "publisher", help="Who measured or published the numbers."),
)

BY_KEY: dict[str, Dimension] = {d.key: d for d in DIMENSIONS}


def get(key: str) -> Dimension:
    """The dimension called ``key``; a KeyError names the known keys."""
    try:
        return BY_KEY[key]
    except KeyError:
        raise KeyError(f"unknown filter dimension {key!r}; known: {', '.join(BY_KEY)}") from None


@dataclass(frozen=True)
class Limit:
    """A numeric filter on a latency figure ("TPOT ≤ 50 ms"): a run passes when its figure is within the
    bound; a run without the figure (most published tables give only peak throughput) never passes."""

    key: str  # name in URLs: ?tpot_max=50
    label: str  # before the number box, e.g. "TPOT ≤"
    column: str  # column of the runs table
    bound: Literal["max", "min"]  # max: figure <= value; min: figure >= value
    unit: str  # after the number box ("ms"; "" for a rate)
    help: str = ""

    def as_json(self) -> dict:
        return asdict(self)

    @property
    def sql(self) -> str:
        """The condition with one parameter; NULL (no figure) fails it, as on the page."""
        return f"{self.column} {'<=' if self.bound == 'max' else '>='} ?"


# The explorer's latency filters, beside the dimensions in its filter bar and URL (issue 15).
LIMITS: tuple[Limit, ...] = (
    Limit(
        "tpot_max",
        "TPOT ≤",
        "tpot_ms_avg",
        "max",
        "ms",
        help="Time per output token after the first, mean over the run's requests.",
    ),
    Limit(
        "ttft_max",
        "TTFT ≤",
        "ttft_ms_avg",
        "max",
        "ms",
        help="Time to first token, mean over the run's requests.",
    ),
    Limit(
        "user_min",
        "Tok/s per user ≥",
        "output_tps_per_user",
        "min",
        "",
        help="Output tokens/s each user sees (interactivity).",
    ),
)


BY_LIMIT: dict[str, Limit] = {lim.key: lim for lim in LIMITS}


def distinct_text(column: pd.Series) -> list[str]:
    """A column's distinct values as text, sorted, missing values left out. Taken from its unique values:
    turning every row to text first (``astype(str)``) walks an Arrow string column one Python object a
    row, 0.16 s at 200,000 runs, and the build asks for each GPU's file on 20 pages."""
    return sorted({str(v) for v in column.dropna().unique()})


def mask(df: pd.DataFrame, filters: Filters) -> pd.Series:
    """Rows matching every filter (values compared as text, as the page script does)."""
    import pandas as pd

    m = pd.Series(True, index=df.index)
    for key, values in filters.items():
        m &= df[get(key).column].astype(str).isin(values)
    return m
