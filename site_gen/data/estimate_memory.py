"""The memory planner against AIConfigurator: where they disagree on whether a configuration fits.

Every committed estimate is a configuration AIConfigurator found to fit: its search dropped the points it
reported out of memory or beyond the KV cache, so the batch size and context tokens the estimate records
(``max_batch_size``, ``max_num_tokens``) fit by its memory model. The planner (``site_gen.data.memory.plan``,
the same formulas as ``docs/assets/js/planner.js``) is asked about the same layout: that batch of sequences
of ISL + OSL tokens, the context tokens as ``max_num_tokens``, TP x PP, with an FP8 KV cache for FP8 and FP4
runs (the estimate's ``kvcache_quant_mode``) and 16 bit otherwise. Where the planner's total per GPU
exceeds the GPU's memory, the two disagree; the "How good are the estimates?" page lists those cases.

Why they can disagree: AIConfigurator budgets the KV cache as trtllm-bench does (what is left after
weights and activations, at the KV-cache fraction) and admits a batch when its sequences fit *on
average*, while the planner holds every sequence at its full length at once, the most it can take.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from site_gen.data import memory

PLANNER_KV = {"FP8": "FP8", "FP4": "FP8"}  # the estimates' FP8 KV cache; 16-bit precisions keep BF16


@dataclass(frozen=True)
class Disagreement:
    run_id: str
    gpu: str
    model: str
    precision: str
    tp: int
    pp: int
    batch: int
    seq_len: int
    planner_gib: float
    gpu_gib: float


def planner_total_gib(arch: dict[str, Any], precision: str, batch: int, seq_len: int, tp: int, pp: int,
                      max_num_tokens: int) -> float:  # fmt: skip
    """The planner's per-GPU total for an estimate's configuration, in GiB."""
    inp = memory.PlanInput(
        weight_precision=precision,
        kv_dtype=PLANNER_KV.get(precision, "BF16"),
        batch=batch,
        seq_len=seq_len,
        tp=tp,
        pp=pp,
        max_num_tokens=max_num_tokens,
    )
    return memory.plan(arch, inp).total / memory.GIB


def disagreements(estimates: list[dict[str, Any]]) -> list[Disagreement]:
    """The estimates (rows of the ``estimates`` table) whose configuration the planner says does not fit."""
    from bench.contract import registry

    out = []
    for e in estimates:
        m = registry.models().get(e["model"])
        arch = {k: getattr(m, k) for k in memory._ARCH_FIELDS}
        seq = int(e["isl"]) + int(e["osl"])
        gib = planner_total_gib(
            arch,
            e["precision"],
            int(e["max_batch_size"]),
            seq,
            int(e["tp"]),
            int(e["pp"]),
            int(e["max_num_tokens"]),
        )
        if gib > float(e["gpu_memory_gb"]):
            out.append(
                Disagreement(
                    e["run_id"],
                    e["gpu"],
                    e["model_name"],
                    e["precision"],
                    int(e["tp"]),
                    int(e["pp"]),
                    int(e["max_batch_size"]),
                    seq,
                    gib,
                    float(e["gpu_memory_gb"]),
                )
            )
    return out


def estimate_rows(db: Any) -> list[dict[str, Any]]:
    """The estimates' configurations from the site database (none when it has no estimates table)."""
    import duckdb

    con = duckdb.connect(str(db), read_only=True)
    try:
        if "estimates" not in {r[0] for r in con.execute("SHOW TABLES").fetchall()}:
            return []
        cur = con.execute(
            "SELECT run_id, gpu, model, model_name, precision, tp, pp, isl, osl, max_batch_size, "
            "max_num_tokens, gpu_memory_gb FROM estimates WHERE max_batch_size IS NOT NULL "
            "AND max_num_tokens IS NOT NULL ORDER BY run_id"
        )
        cols = [d[0] for d in cur.description]
        return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
    finally:
        con.close()


# --- The planner page's cross-check: AIConfigurator's memory figure beside the planner's ----------------
#
# ``llmbench estimate-memory`` (bench side, ``bench.engines.estimate_memory``) commits AIConfigurator's
# per-GPU breakdown of a few configurations both know to bench/data/estimate_memory.csv; here the planner
# computes the same configurations and the two are put side by side, part by part. Nothing here imports
# aiconfigurator: the site reads the committed table only.

MEMORY_TABLE = Path(__file__).resolve().parents[2] / "bench" / "data" / "estimate_memory.csv"
THRESHOLD = 0.03  # a total that differs by more than 3 % is listed with the parts behind it
# A part is named as a reason when it differs by more than this share of the planner's total: small
# enough that the parts named add up to most of a 3 % difference, large enough to skip rounding.
PART_SHARE = 0.01
# (label key, planner's Plan field, the table's AIConfigurator columns summed)
PARTS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("weights", "weights", ("weights_gib",)),
    ("kv_cache", "kv_cache", ("kv_cache_gib",)),
    ("activations", "activations", ("activations_gib",)),
    ("reserve", "overhead", ("nccl_gib", "others_gib")),  # NCCL buffers + CUDA context and workspaces
)


@dataclass(frozen=True)
class PartDiff:
    part: str  # weights, kv_cache, activations, reserve
    planner_gib: float
    aic_gib: float


@dataclass(frozen=True)
class MemoryCheck:
    """One configuration: the planner's per-GPU total and AIConfigurator's, and the parts that differ."""

    gpu: str
    model: str
    model_name: str
    precision: str
    tp: int
    pp: int
    batch: int
    seq_len: int
    planner_gib: float
    aic_gib: float
    parts: tuple[PartDiff, ...]  # every part, planner and AIConfigurator side by side
    reasons: tuple[PartDiff, ...]  # the parts that differ by more than PART_SHARE, largest first
    aic_version: str = ""

    @property
    def difference(self) -> float:
        """AIConfigurator / planner - 1."""
        return self.aic_gib / self.planner_gib - 1

    @property
    def listed(self) -> bool:
        return abs(self.difference) > THRESHOLD


def read_memory_table(path: Path = MEMORY_TABLE) -> list[dict[str, str]]:
    """The committed AIConfigurator memory rows (as text), or [] when the table is not there."""
    import csv

    if not path.exists():
        return []
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def memory_check(row: dict[str, str]) -> MemoryCheck:
    """The planner's figures for one row of the table, beside AIConfigurator's."""
    from bench.contract import registry

    m = registry.models().get(row["model"])
    arch = {k: getattr(m, k) for k in memory._ARCH_FIELDS}
    precision, tp, pp = row["precision"], int(row["tp"]), int(row["pp"])
    seq = int(row["isl"]) + int(row["osl"])
    inp = memory.PlanInput(
        weight_precision=precision,
        kv_dtype=PLANNER_KV.get(precision, "BF16"),
        batch=int(row["batch"]),
        seq_len=seq,
        tp=tp,
        pp=pp,
        max_num_tokens=int(row["max_num_tokens"]),
    )
    p = memory.plan(arch, inp)
    parts = tuple(
        PartDiff(label, getattr(p, field) / memory.GIB, sum(float(row[c]) for c in cols))
        for label, field, cols in PARTS
    )
    planner_total = p.total / memory.GIB
    reasons = sorted(
        (d for d in parts if abs(d.aic_gib - d.planner_gib) > PART_SHARE * planner_total),
        key=lambda d: -abs(d.aic_gib - d.planner_gib),
    )
    return MemoryCheck(
        row["gpu"], row["model"], m.name, precision, tp, pp, int(row["batch"]), seq,
        planner_total, float(row["total_gib"]), parts, tuple(reasons), row.get("aiconfigurator", ""),
    )  # fmt: skip


def memory_checks(rows: list[dict[str, str]] | None = None) -> list[MemoryCheck]:
    """Every row of the committed table (or ``rows``), largest |difference| first."""
    checks = [memory_check(r) for r in (read_memory_table() if rows is None else rows)]
    return sorted(checks, key=lambda c: -abs(c.difference))


def _gib(x: float) -> str:
    return f"{x:,.2f}"


def render_memory_check(t: Any, checks: list[MemoryCheck]) -> str:
    """The planner page's cross-check (``<!-- memory-check -->``): a sentence, the table of every
    configuration with both totals, and for each one over 3 % the parts behind the difference.
    ``t`` is the page language's message lookup (``memcheck.*``); every cell is escaped here, once."""
    import html

    if not checks:
        return f"<p>{html.escape(t('memcheck.no_table'))}</p>"
    listed = [c for c in checks if c.listed]
    first = checks[0]
    intro = t(
        "memcheck.intro",
        n=len(checks),
        over=len(listed),
        batch=first.batch,
        seq=f"{first.seq_len:,}",
        version=first.aic_version,
    )
    head = [t(f"memcheck.{k}") for k in ("model", "layout", "planner", "aic", "difference", "why")]
    rows = []
    for c in checks:
        # one part a line (escaped, then joined by <br>): the eye runs down the column
        why = "<br>".join(
            html.escape(t(f"memcheck.part_{d.part}") + f" {_gib(d.planner_gib)} / {_gib(d.aic_gib)}")
            for d in c.reasons
        )
        cells = [
            f"{c.model_name} {c.precision}",
            f"{c.gpu}, TP{c.tp}" + (f" × PP{c.pp}" if c.pp > 1 else ""),
            _gib(c.planner_gib),
            _gib(c.aic_gib),
            f"{c.difference:+.1%}".replace("%", " %"),
        ]
        tds = "".join(
            f'<td style="text-align:right">{html.escape(x)}</td>'
            if 2 <= i <= 4
            else f"<td>{html.escape(x)}</td>"
            for i, x in enumerate(cells)
        )
        tds += f"<td>{(why or html.escape(t('memcheck.parts_agree'))) if c.listed else ''}</td>"
        rows.append(f'<tr class="lb-memcheck-listed">{tds}</tr>' if c.listed else f"<tr>{tds}</tr>")
    ths = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    parts = "".join(
        f"<li><strong>{html.escape(t(f'memcheck.part_{k}'))}</strong>: "
        f"{html.escape(t(f'memcheck.why_{k}'))}</li>"
        for k, _, _ in PARTS
    )
    return (
        # Material styles only tables without a class, inside its own scroll wrappers (as Markdown's)
        f'<p>{html.escape(intro)}</p>\n<div class="lb-memcheck md-typeset__scrollwrap">'
        f'<div class="md-typeset__table"><table><thead><tr>{ths}</tr></thead><tbody>'
        + "".join(rows)
        + f"</tbody></table></div></div>\n<p>{html.escape(t('memcheck.parts_h'))}</p>\n<ul>{parts}</ul>"
    )
