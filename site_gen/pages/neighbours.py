"""What a GPU page opens on: the GPU's best figures beside its neighbours' (issue 26); and what a model
page opens on: the best GPUs at each precision and workload of the model (``model_rows``).

A neighbour is another GPU with runs of the same model, precision and workload (ISL/OSL): the one
definition of "comparable" the page states above its table. Per side the best output tokens/s per GPU
of any run is taken, whatever its parallelism, source or release, among the runs a comparison may use
(``compare._usable``: with the metric, not above their bound); estimates (``source_kind`` modelled) are
not measurements and stay out.

Hand-worked case (tests/site/test_neighbours.py): H200 runs Llama 8B FP16 128/128 at 16,000 tok/s on one
GPU; A100 runs it at 7,000 (TP 1), 12,500 (TP 2) and 21,000 (TP 4) over all GPUs, i.e. 7,000, 6,250 and
5,250 per GPU: the H200 row reads 16,000 beside A100 7,000.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from site_gen.pages import compare

if TYPE_CHECKING:
    import pandas as pd

KEY = ("model_name", "precision", "workload")  # what a neighbour shares with the GPU
METRIC = compare.METRIC  # output tokens/s per GPU
NOT_MEASURED = ("modelled",)


@dataclass(frozen=True)
class Best:
    gpu: str
    value: float  # output tokens/s per GPU
    run_id: str


@dataclass(frozen=True)
class Row:
    model: str
    precision: str
    workload: str
    mine: Best
    neighbours: tuple[Best, ...]  # best first


Index = dict[tuple[str, str, str], tuple[Best, ...]]


def index(runs: pd.DataFrame) -> Index:
    """KEY -> each GPU's best run there, best first (the smaller run id on a tie): built once per build,
    then read by every GPU page."""
    if runs.empty:
        return {}
    df = compare._usable(runs)
    df = df[~df["source_kind"].isin(NOT_MEASURED)]
    # only each group's top figure can be its best: sorting those few rows, not every run by its text id,
    # gives the same rows in the same order (a million runs: 2.2 -> 0.2 s)
    groups = df.groupby(["gpu", *KEY], dropna=False, sort=False, observed=True)[METRIC]
    df = df[df[METRIC] == groups.transform("max")]
    df = df.sort_values([METRIC, "run_id"], ascending=[False, True], kind="mergesort")
    df = df.drop_duplicates(["gpu", *KEY])
    out: dict[tuple[str, str, str], list[Best]] = {}
    for gpu, model, precision, workload, value, run_id in zip(
        df["gpu"], df["model_name"], df["precision"], df["workload"], df[METRIC], df["run_id"], strict=True
    ):
        out.setdefault((str(model), str(precision), str(workload)), []).append(
            Best(str(gpu), float(value), str(run_id))
        )
    return {k: tuple(v) for k, v in out.items()}


def rows(best: Index, gpu: str, top: int = 8, neighbours: int = 3) -> list[Row]:
    """The GPU's configurations that other GPUs also ran, most neighbours first (then its higher
    figure), at most ``top``; each with its ``neighbours`` best neighbours."""
    out = []
    for (model, precision, workload), sides in best.items():
        mine = next((b for b in sides if b.gpu == gpu), None)
        near = tuple(b for b in sides if b.gpu != gpu)
        if mine is None or not near:
            continue
        out.append((len(near), Row(model, precision, workload, mine, near[:neighbours])))
    out.sort(key=lambda x: (-x[0], -x[1].mine.value, x[1].model, x[1].precision, x[1].workload))
    return [row for _, row in out[:top]]


@dataclass(frozen=True)
class ModelRow:
    precision: str
    workload: str
    gpus: tuple[Best, ...]  # each GPU's best, best first


def model_rows(best: Index, model: str, top: int = 6, gpus: int = 4) -> list[ModelRow]:
    """The model's precisions and workloads that two GPUs or more ran, most GPUs first (then the higher
    best figure), at most ``top``; each with its ``gpus`` best GPUs, best first."""
    out = [
        (len(sides), ModelRow(precision, workload, sides[:gpus]))
        for (name, precision, workload), sides in best.items()
        if name == model and len(sides) > 1
    ]
    out.sort(key=lambda x: (-x[0], -x[1].gpus[0].value, x[1].precision, x[1].workload))
    return [row for _, row in out[:top]]
