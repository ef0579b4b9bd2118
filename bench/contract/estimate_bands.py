"""The error band of an estimate: how far AIConfigurator was from published runs of the same category.

``llmbench estimate-validate`` pairs every run AIConfigurator can model with its estimate
(``bench.engines.estimate_validate``); ``--table`` writes those pairs as a compact CSV, committed as
``bench/data/estimate_validation.csv``. Every estimate ``llmbench estimate`` writes carries the band of its
category, computed here from that table, so that a reader of a modelled file (or of its run card) sees
how good estimates like it were, measured, without rerunning anything.

A category is what the validation found to move the error (issue 28): the GPU (it fixes the interconnect:
an L40S is PCIe, an H200 NVLink), dense or MoE, the precision class and how many GPUs the run spans.
Its band is the signed error's 10th percentile, median and 90th percentile over the category's pairs.
The confidence follows the issue's rule: ``unvalidated`` where no published run of the category was
paired, ``low`` where fewer than ``MIN_PAIRS`` were or the median |error| is above ``MAX_MEDIAN``,
``validated`` otherwise. No factor is fitted: the band describes the raw model's error, it corrects
nothing.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal


def quantile(xs: list[float], q: float) -> float:
    """Linear-interpolated quantile (numpy's default); ``estimate-validate``'s report uses it too."""
    s = sorted(xs)
    pos = (len(s) - 1) * q
    lo, hi = math.floor(pos), math.ceil(pos)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def summary(errors: list[float]) -> dict[str, float]:
    """n, median, p10, p90 and the shares within +-10 % and +-25 % of a list of signed errors."""
    return {
        "n": len(errors),
        "median": quantile(errors, 0.5),
        "p10": quantile(errors, 0.1),
        "p90": quantile(errors, 0.9),
        "within10": sum(abs(e) <= 0.10 for e in errors) / len(errors),
        "within25": sum(abs(e) <= 0.25 for e in errors) / len(errors),
    }


TABLE = Path(__file__).resolve().parent.parent / "data" / "estimate_validation.csv"  # bench/data
MIN_PAIRS = 5
MAX_MEDIAN = 0.25

# The compact table's columns: what a category and the "how good" page need, nothing per-run that the
# result file already holds (file#run points at it).
TABLE_COLUMNS = [
    "gpu", "model_config", "moe", "precision", "tp", "pp", "ep", "isl", "osl", "concurrency",
    "release", "publisher", "metric", "published", "estimate", "error", "file", "run", "backend",
]  # fmt: skip
DEFAULT_BACKEND = "trtllm"  # a table row without a backend column is a TensorRT-LLM pair (the first tables)
BACKEND_NAMES = {"trtllm": "TensorRT-LLM", "vllm": "vLLM", "sglang": "SGLang"}

Confidence = Literal["validated", "low", "unvalidated"]


def precision_class(precision: str) -> str:
    """FP16, BF16 and NVIDIA's "Mixed" rows all run 16-bit weights (bench/data/precisions.yaml)."""
    return "16-bit" if precision in ("FP16", "BF16", "Mixed") else precision


def gpus_class(tp: int, pp: int) -> str:
    """GPUs a run spans, in the classes where the validation's error changed: one GPU (no communication),
    2-4 (one NVLink island on every system here, PCIe on L40S), 8 and more (all-reduce over 8 ranks)."""
    n = tp * pp
    return "1 GPU" if n == 1 else "2-4 GPUs" if n <= 4 else "8+ GPUs"


def category(gpu: str, moe: bool, precision: str, tp: int, pp: int, backend: str = DEFAULT_BACKEND) -> str:
    """'H200 SXM 141GB · dense · FP8 · 1 GPU': the category whose pairs give an estimate its band.

    Another backend's estimates read other kernel tables, so they form their own categories
    ('... · 1 GPU · vLLM'): a TensorRT-LLM pair never vouches for a vLLM estimate."""
    parts = [gpu, "MoE" if moe else "dense", precision_class(precision), gpus_class(tp, pp)]
    if backend != DEFAULT_BACKEND:
        parts.append(BACKEND_NAMES.get(backend, backend))
    return " · ".join(parts)


@dataclass(frozen=True)
class Band:
    """The measured error of a category's estimates (signed: estimate / published - 1)."""

    category: str
    pairs: int
    median: float | None
    p10: float | None
    p90: float | None
    confidence: Confidence
    reason: str | None = None  # why a band is missing, where the plain "no pair" would say too little

    def as_record(self) -> dict[str, Any]:
        """The band as the result file stores it (``estimate.band``), errors rounded to 0.1 %."""
        d = asdict(self)
        for k in ("median", "p10", "p90"):
            d[k] = None if d[k] is None else round(d[k], 3)
        if d["reason"] is None:
            del d["reason"]
        return d


def band_of(category_name: str, errors: list[float]) -> Band:
    if not errors:
        return Band(category_name, 0, None, None, None, "unvalidated")
    med = quantile(errors, 0.5)
    low = len(errors) < MIN_PAIRS or abs(med) > MAX_MEDIAN
    return Band(
        category_name,
        len(errors),
        med,
        quantile(errors, 0.1),
        quantile(errors, 0.9),
        "low" if low else "validated",
    )


def _row_category(row: Mapping[str, Any]) -> str:
    return category(
        str(row["gpu"]),
        str(row["moe"]) in ("True", "true", "1", "MoE") or row["moe"] is True,
        str(row["precision"]),
        int(row["tp"]),
        int(row["pp"]),
        row.get("backend") or DEFAULT_BACKEND,
    )


def bands(rows: Iterable[Mapping[str, Any]]) -> dict[str, Band]:
    """Band per category of the pairs in ``rows`` (the validation table's rows)."""
    errors: dict[str, list[float]] = defaultdict(list)
    for r in rows:
        errors[_row_category(r)].append(float(r["error"]))
    return {k: band_of(k, v) for k, v in sorted(errors.items())}


def read_table(path: Path = TABLE) -> list[dict[str, str]]:
    """The committed validation table's rows (as text), or [] when it is not there."""
    if not path.exists():
        return []
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


@functools.cache
def committed_bands() -> dict[str, Band]:
    return bands(read_table())


def band_for(
    gpu: str,
    moe: bool,
    precision: str,
    tp: int,
    pp: int,
    table: dict[str, Band] | None = None,
    backend: str = DEFAULT_BACKEND,
) -> Band:
    """The band of an estimate's category; ``unvalidated`` where the validation paired no run of it.

    results/ holds published and measured runs of TensorRT-LLM only (at fixed ISL/OSL; MLPerf's vLLM
    entries are scenarios, not such runs), so a vLLM or SGLang estimate has no band: its record says why.
    """
    name = category(gpu, moe, precision, tp, pp, backend)
    found = (committed_bands() if table is None else table).get(name)
    if found:
        return found
    if backend == DEFAULT_BACKEND:
        return band_of(name, [])
    engine = BACKEND_NAMES.get(backend, backend)
    why = (
        f"not validated: no published {engine} run in results/ to compare with (the validation pairs are "
        "TensorRT-LLM runs); treat as low confidence"
    )
    return dataclasses.replace(band_of(name, []), reason=why)


def table_rows(pairs: Iterable[Mapping[str, Any]], is_moe: Any) -> list[dict[str, Any]]:
    """The compact table's rows from estimate-validate's pairs (figures to 4 significant digits)."""
    out = []
    for p in pairs:
        row = {c: p.get(c) for c in TABLE_COLUMNS}
        row["moe"] = bool(is_moe(p["model"]))
        for c in ("published", "estimate"):
            row[c] = float(f"{float(p[c]):.4g}")
        row["error"] = round(float(p["estimate"]) / float(p["published"]) - 1, 4)
        out.append(row)
    return out


def write_table(rows: list[dict[str, Any]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, TABLE_COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
