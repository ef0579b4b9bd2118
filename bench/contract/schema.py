"""The result-file contract: the pydantic model of one ``results/**/*.yaml`` submission.

A submission says who measured or published what, when and where (``submission``, ``hardware``,
``software``, ``model``) and lists its ``runs``. Every metric carries its unit in its name; a metric
that was not measured is absent, never 0. ``SCHEMA_VERSION`` is bumped on any incompatible change and
the JSON Schema in ``results/result.schema.json`` is generated from this module (``llmbench schema``).

``site_gen`` imports this module, ``resultfile`` and ``registry`` (which read and check files against
it) and ``errors``; no other part of ``bench``.
"""

from __future__ import annotations

import datetime as dt
import functools
import types
import typing
from typing import Annotated, Any, Literal, NotRequired

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, HttpUrl, TypeAdapter, model_validator
from typing_extensions import TypedDict

SCHEMA_VERSION = 2  # the newest version; 1 (every non-MLPerf file) stays valid unchanged
MLPERF_SCHEMA_VERSION = 2  # MLPerf Inference submissions (``MlperfResultFile``)
# A run note's text after this marker says why its published figure is known to be wrong (the figure is
# kept as published); import-csv writes it from bench/data/errata.yaml, ingest shows it as `erratum`.
ERRATUM_MARKER = "Erratum: "

# The largest value of the site database's INTEGER columns (site_gen/data/load.py, DuckDB's 32-bit INTEGER):
# a number that validates must also ingest.
DB_INT_MAX = 2**31 - 1
PositiveFloat = Annotated[float, Field(gt=0, allow_inf_nan=False)]  # .inf or .nan is never a figure
NonNegFloat = Annotated[float, Field(ge=0, allow_inf_nan=False)]
PositiveInt = Annotated[int, Field(gt=0, le=DB_INT_MAX)]
# One line: the site puts these in Markdown tables and headings, where a line break breaks the page.
NonEmptyStr = Annotated[str, Field(min_length=1, max_length=500, pattern=r"^[^\r\n]+$")]
LineStr = Annotated[str, Field(max_length=500, pattern=r"^[^\r\n]*$")]
# One command line as a page writes it: one line, non-empty, longer than a LineStr allows.
CommandLine = Annotated[str, Field(min_length=1, max_length=2000, pattern=r"^[^\r\n]*$")]


def _not_after_today(d: dt.date) -> dt.date:
    # a day of slack: the submitter's time zone may be ahead of this machine's
    if d > dt.date.today() + dt.timedelta(days=1):
        raise ValueError(f"expected a date not after today, got {d.isoformat()}")
    return d


def _not_in_future(t: dt.datetime) -> dt.datetime:
    _not_after_today(t.date())
    return t


def _check_world(tp: int, pp: int, ep: int | None) -> None:
    if tp * pp > DB_INT_MAX:
        raise ValueError(
            f"expected tp x pp (the GPU count) of at most {DB_INT_MAX}, got {tp} x {pp} = {tp * pp}"
        )


Precision = Literal["FP32", "FP16", "BF16", "FP8", "FP4", "INT8", "INT4", "Mixed"]


class _Strict(BaseModel):
    """Unknown keys are typos; strings are never coerced to numbers."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


# A setting or fact of an estimate: AIConfigurator's arguments and what it reported, as plain scalars.
EstimateValue = str | int | float | bool | None


class Estimator(_Strict):
    """How a modelled file's figures were computed (``source.kind: modelled``): never a measurement."""

    name: NonEmptyStr = Field(description="The performance model, e.g. aiconfigurator.")
    version: Annotated[str, Field(pattern=r"^[0-9][0-9A-Za-z.+-]*$", max_length=50)] = Field(
        description="The installed estimator's version (and its core's, in perf_data_versions' notes)."
    )
    perf_data_versions: dict[str, NonEmptyStr] = Field(
        min_length=1,
        description="Performance-data version per 'system/backend' the estimates read, e.g. "
        "h200_sxm/trtllm: 1.3.0rc20.",
    )
    core_version: LineStr | None = Field(default=None, description="aiconfigurator-core's version.")


class EstimateBand(_Strict):
    """How far estimates of one category were from published runs: signed error = estimate / published - 1."""

    category: NonEmptyStr = Field(description="GPU · dense/MoE · precision class · GPUs of the run.")
    pairs: int = Field(ge=0, description="Published runs of the category paired with their estimate.")
    median: float | None = Field(default=None, ge=-1, le=100, description="Median signed error.")
    p10: float | None = Field(default=None, ge=-1, le=100, description="10th percentile of the error.")
    p90: float | None = Field(default=None, ge=-1, le=100, description="90th percentile of the error.")
    confidence: Literal["validated", "low", "unvalidated"] = Field(
        description="unvalidated: no pair; low: under 5 pairs or median |error| over 25 %; else validated."
    )
    reason: LineStr | None = Field(
        default=None,
        description="Why the band is missing where 'no pair' says too little, e.g. a vLLM or SGLang "
        "estimate: the published runs it could be validated on are TensorRT-LLM runs.",
    )

    @model_validator(mode="after")
    def _figures_iff_pairs(self) -> EstimateBand:
        _check_band(self.pairs, [self.median, self.p10, self.p90], self.confidence)
        return self


def _check_band(pairs: int, figures: list[float | None], confidence: str) -> None:
    have = [x is not None for x in figures]
    if pairs and not all(have):
        raise ValueError("expected median, p10 and p90 for a band with pairs")
    if not pairs and (any(have) or confidence != "unvalidated"):
        raise ValueError("expected no figures and confidence unvalidated for a band of 0 pairs")
    if pairs and confidence == "unvalidated":
        raise ValueError("expected confidence validated or low for a band with pairs, got unvalidated")


def _check_band_dict(d: dict[str, Any]) -> dict[str, Any]:
    _check_band(d["pairs"], [d.get("median"), d.get("p10"), d.get("p90")], d["confidence"])
    return d


class RunEstimate(_Strict):
    """One modelled run: every setting passed to the estimator, its fidelity and the mapping choices."""

    settings: dict[str, EstimateValue] = Field(
        description="Every argument passed: batch size, context tokens, quant modes, estimate mode, ..."
    )
    fidelity: dict[str, EstimateValue] = Field(
        description="What the estimator said of its own data: ops read from silicon, empirical or mixed "
        "tables, low-fidelity fall-backs, MoE communication fall-backs, KV-cache warnings.",
    )
    mapping: dict[str, EstimateValue] = Field(
        description="Choices made to describe the run to the estimator: the model config used, the MoE "
        "kernel, expert and attention-DP parallelism where the run does not say.",
    )
    search: LineStr | None = Field(
        default=None, description="How batch size and context tokens were chosen (max-throughput search)."
    )
    band: EstimateBand | None = Field(
        default=None,
        description="The measured error of estimates of this category against published runs "
        "(bench/data/estimate_validation.csv; bench.contract.estimate_bands). llmbench estimate always "
        "writes it; a modelled file without it is shown as unvalidated.",
    )


class Source(_Strict):
    kind: Literal["measured", "published", "modelled"] = Field(
        description="modelled: computed by a performance model (``estimator``), never measured."
    )
    publisher: NonEmptyStr = Field(description="Short name of who produced the numbers, e.g. KISTI, NVIDIA.")
    title: NonEmptyStr = Field(description="Citation: the document, page or run that holds the numbers.")
    url: HttpUrl | None = Field(
        default=None,
        description="The exact page the numbers come from (a versioned page where there is one).",
    )
    site_url: HttpUrl | None = None
    commands: list[CommandLine] | None = Field(
        default=None,
        max_length=20,
        description="The commands that page gives for producing its numbers, each quoted exactly as the page "
        "writes it (placeholders such as $model_name kept); none where the page gives none.",
    )
    notes: str | None = Field(default=None, max_length=4000)
    estimator: Estimator | None = Field(default=None, description="Required for, and only for, modelled.")

    @model_validator(mode="after")
    def _estimator_iff_modelled(self) -> Source:
        _check_estimator(self.kind, self.estimator)
        return self


def _check_estimator(kind: str, estimator: object) -> None:
    if kind == "modelled" and estimator is None:
        raise ValueError(
            "expected an estimator (name, version, perf_data_versions) for kind modelled, got none"
        )
    if kind != "modelled" and estimator is not None:
        raise ValueError(f"expected no estimator for kind {kind} (only modelled files have one), got one")


class Submission(_Strict):
    submitter: NonEmptyStr
    system: NonEmptyStr = Field(description="Name of the system, e.g. 'KISTI Neuron', 'DGX H200'.")
    # strict=False: a quoted "2026-04-20" is a date too (YAML writers often quote them); numbers stay refused
    date: Annotated[dt.date, AfterValidator(_not_after_today)] = Field(
        strict=False, description="Date the numbers were measured or published."
    )
    source: Source


class Hardware(_Strict):
    gpu: NonEmptyStr = Field(description="Canonical GPU name from the GPU registry.")
    gpu_label: LineStr | None = Field(default=None, description="The source's own label, kept verbatim.")
    gpus_per_node: PositiveInt | None = None
    nodes: PositiveInt = 1
    interconnect: LineStr | None = None
    cpu: LineStr | None = None


class Software(_Strict):
    engine: Literal["tensorrt-llm", "transformers", "vllm", "sglang"]
    engine_version: Annotated[str, Field(pattern=r"^[0-9][0-9A-Za-z.+-]*$", max_length=50)] = Field(
        description="Clean version, e.g. 1.2.0rc6 or 0.17; any longer wording goes to the source notes."
    )
    workflow: Literal["pytorch", "legacy-engine"] | None = Field(
        default=None, description="TensorRT-LLM workflow; null for other engines."
    )
    benchmark_tool: NonEmptyStr = Field(
        description="trtllm-bench, gptManagerBenchmark, llmbench-transformers..."
    )
    container_image: LineStr | None = None

    @model_validator(mode="after")
    def _workflow_only_for_trtllm(self) -> Software:
        _check_workflow(self.engine, self.workflow)
        return self


def _check_workflow(engine: str, workflow: str | None) -> None:
    if engine == "tensorrt-llm" and workflow is None:
        raise ValueError("expected a workflow (pytorch or legacy-engine) for engine tensorrt-llm, got none")


class Model(_Strict):
    id: NonEmptyStr = Field(description="Canonical Hugging Face id from the model registry.")
    label: LineStr | None = Field(default=None, description="The source's own model label, kept verbatim.")
    checkpoint: LineStr | None = Field(
        default=None, description="Checkpoint actually run, e.g. a pre-quantised one."
    )
    weight_precision: Precision
    kv_cache_dtype: LineStr | None = None
    weights: Literal["pretrained", "random"] = Field(
        default="pretrained",
        description="random: throughput-only run with random weights of the architecture.",
    )


class Parallelism(_Strict):
    tp: PositiveInt = 1
    pp: PositiveInt = 1
    ep: PositiveInt | None = None
    attention_dp: bool = False

    @model_validator(mode="after")
    def _world_fits(self) -> Parallelism:
        _check_world(self.tp, self.pp, self.ep)
        return self


def _check_world_dict(d: dict[str, Any]) -> dict[str, Any]:
    _check_world(d["tp"], d["pp"], d["ep"])
    return d


class Workload(_Strict):
    isl: PositiveInt = Field(description="Input sequence length (tokens).")
    osl: PositiveInt = Field(description="Output sequence length (tokens).")
    num_requests: PositiveInt | None = None
    concurrency: PositiveInt | None = Field(
        default=None, description="Max in-flight requests; null: unlimited."
    )
    dataset: LineStr = "token-norm-dist"
    input_stdev: NonNegFloat | None = None
    output_stdev: NonNegFloat | None = None
    streaming: bool | None = None


class EngineSettings(_Strict):
    max_batch_size: PositiveInt | None = None
    max_num_tokens: PositiveInt | None = None
    kv_cache_free_gpu_mem_fraction: Annotated[float, Field(gt=0, le=1, allow_inf_nan=False)] | None = None
    extra: dict[str, Any] | None = Field(default=None, description="Extra LLM-API options (the YAML passed).")


class Percentiles(_Strict):
    avg: PositiveFloat | None = None
    p50: PositiveFloat | None = None
    p90: PositiveFloat | None = None
    p95: PositiveFloat | None = None
    p99: PositiveFloat | None = None
    min: PositiveFloat | None = None
    max: PositiveFloat | None = None


class Metrics(_Strict):
    output_tokens_per_s: PositiveFloat | None = Field(
        default=None, description="Output tokens/s over all GPUs."
    )
    output_tokens_per_s_per_gpu: PositiveFloat | None = None
    output_tokens_per_s_per_user: PositiveFloat | None = None
    total_tokens_per_s: PositiveFloat | None = Field(default=None, description="(input + output) tokens/s.")
    requests_per_s: PositiveFloat | None = None
    ttft_ms: Percentiles | None = None
    tpot_ms: Percentiles | None = None
    request_latency_ms: Percentiles | None = None
    duration_s: PositiveFloat | None = Field(default=None, description="Benchmark wall time.")

    @model_validator(mode="after")
    def _some_throughput(self) -> Metrics:
        if (
            self.output_tokens_per_s is None
            and self.output_tokens_per_s_per_gpu is None
            and self.output_tokens_per_s_per_user is None
        ):
            raise ValueError(_NO_THROUGHPUT)
        return self


_NO_THROUGHPUT = (
    "expected at least one of output_tokens_per_s, output_tokens_per_s_per_gpu, "
    "output_tokens_per_s_per_user, got none of them"
)


def _check_throughput_dict(d: dict[str, Any]) -> dict[str, Any]:
    # Runs once per run in bulk checks: plain lookups (a generator here cost 5 ms per 1,000 runs).
    if (
        d["output_tokens_per_s"] is None
        and d["output_tokens_per_s_per_gpu"] is None
        and d["output_tokens_per_s_per_user"] is None
    ):
        raise ValueError(_NO_THROUGHPUT)
    return d


class Repetition(_Strict):
    """One repetition of a run: its figures, when and where it ran (the run's figures are their median)."""

    metrics: Metrics
    timestamp: Annotated[dt.datetime, AfterValidator(_not_in_future)] | None = Field(
        default=None, strict=False, description="When the repetition ended (ISO)."
    )
    call: NonEmptyStr = Field(
        description="The call (process, job) that ran it, e.g. its raw folder and job: "
        "'results/measured/raw/h200-20261201-call10 1024-1024-generate-c4'."
    )
    machine: LineStr | None = Field(
        default=None, description="Which machine it ran on, e.g. 'H200 lease of 2026-12-01, machine 2'."
    )


# A repeated run's figure is the median of its repetitions; floats written to YAML and read back are exact,
# the tolerance only absorbs a median computed another way (numpy, DuckDB) than statistics.median.
_MEDIAN_REL_TOL = 1e-9


def _metric_figures(m: dict[str, Any]) -> dict[str, float]:
    """A metrics dict's figures by dotted name (ttft_ms.p50), absent ones left out."""
    out: dict[str, float] = {}
    for k, v in m.items():
        if isinstance(v, dict):
            out |= {f"{k}.{q}": x for q, x in v.items() if x is not None}
        elif v is not None:
            out[k] = v
    return out


def _check_repetitions(metrics: dict[str, Any], reps: list[dict[str, Any]] | None) -> None:
    """Every figure of a repeated run must be the median of the same figure over its repetitions.

    Hand-worked: 12.2, 13.8 and 15.8 tok/s give 13.8; 12.2 and 13.8 give (12.2 + 13.8) / 2 = 13.0.
    """
    if not reps:
        return
    import statistics

    figures = [_metric_figures(r["metrics"]) for r in reps]
    for name, value in _metric_figures(metrics).items():
        missing = [i for i, f in enumerate(figures) if name not in f]
        if missing:
            raise ValueError(
                f"expected metrics.{name} in every repetition (the run reports it), "
                f"missing in repetitions.{missing[0]}"
            )
        median = statistics.median(f[name] for f in figures)
        if abs(value - median) > _MEDIAN_REL_TOL * abs(median):
            raise ValueError(
                f"expected metrics.{name} to be the median of its {len(reps)} repetitions, "
                f"{median!r}, got {value!r}"
            )


def _check_run_dict(d: dict[str, Any]) -> dict[str, Any]:
    _check_repetitions(d["metrics"], d["repetitions"])
    return d


class Run(_Strict):
    parallelism: Parallelism = Parallelism()
    workload: Workload
    engine_settings: EngineSettings = EngineSettings()
    metrics: Metrics
    timestamp: Annotated[dt.datetime, AfterValidator(_not_in_future)] | None = Field(
        default=None, strict=False, description="When the run ended (ISO)."
    )
    command: str | None = Field(default=None, max_length=20000, description="Exact command that produced it.")
    estimate: RunEstimate | None = Field(
        default=None,
        description="Modelled runs only: how the estimate was made (settings, fidelity, mapping).",
    )
    notes: str | None = Field(
        default=None,
        max_length=4000,
        description="Free text; anything after 'Erratum: ' marks the published figure as known to be wrong.",
    )
    repetitions: list[Repetition] | None = Field(
        default=None,
        min_length=2,
        description="Measured runs repeated on separate model loads or machines: each repetition's figures. "
        "The run's metrics must then be the median of them, figure by figure; absent: a single sample.",
    )

    @model_validator(mode="after")
    def _median_of_repetitions(self) -> Run:
        if self.repetitions:
            _check_repetitions(
                self.metrics.model_dump(), [{"metrics": r.metrics.model_dump()} for r in self.repetitions]
            )
        return self


class ResultFile(_Strict):
    schema_version: Literal[1]
    submission: Submission
    hardware: Hardware
    software: Software
    model: Model
    environment: dict[str, str | int | float | bool | None] | None = Field(
        default=None,
        description="Measured runs: GPU names, driver, CUDA, engine version, host, image digest.",
    )
    runs: list[Run] = Field(min_length=1)

    @model_validator(mode="after")
    def _estimates_only_modelled(self) -> ResultFile:
        _check_run_estimates(self.submission.source.kind, [r.estimate for r in self.runs])
        return self


def _check_run_estimates(kind: str, estimates: list[Any]) -> None:
    for i, e in enumerate(estimates):
        if (e is None) == (kind == "modelled"):
            want = "an estimate record" if kind == "modelled" else "no estimate record"
            raise ValueError(
                f"expected {want} in runs.{i} of a {kind} file, got {'none' if e is None else 'one'}"
            )


def _check_source_dict(d: dict[str, Any]) -> dict[str, Any]:
    _check_estimator(d["kind"], d["estimator"])
    return d


def _check_result_file_dict(d: dict[str, Any]) -> dict[str, Any]:
    _check_run_estimates(d["submission"]["source"]["kind"], [r["estimate"] for r in d["runs"]])
    return d


# --- schema_version 2: MLPerf(R) Inference results ----------------------------------------------------------
# An MLPerf result is not a trtllm-bench run: it is a whole system's figure under a scenario's latency
# limits, filed under a benchmark, a round, a division and an availability category, with a result ID that
# MLCommons' rules require next to it. One file holds one round x submitter x system (the submission's
# system folder); each run is one benchmark x scenario (x division) of it. MLCommons forbids comparing
# MLPerf results with any other kind, so these files have their own version and their own table in the site
# database: nothing written for schema_version 1 can read them by accident.

MlperfMetric = Literal["tokens_per_s", "samples_per_s", "queries_per_s", "latency_p90_ns"]
MlperfScenario = Literal["Offline", "Server", "Interactive", "SingleStream"]
_DECIMAL = r"^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?$"  # as LoadGen prints it: 31267.4, 2.49431e+06


class MlperfInfo(_Strict):
    round: Annotated[str, Field(pattern=r"^v[0-9]+\.[0-9]+$")] = Field(
        description="MLPerf Inference round (benchmark version), e.g. v5.1."
    )
    suite: Literal["datacenter", "edge"]
    system_id: NonEmptyStr = Field(description="The submission's system folder name (systems/<id>.json).")
    system_json_path: str | None = Field(
        default=None, description="The system description in the repository."
    )
    repository: HttpUrl = Field(description="MLCommons' results repository of the round.")
    data_origin: NonEmptyStr = Field(description="Repository and commit the figures were read from.")


class MlperfHardware(_Strict):
    gpu: NonEmptyStr | None = Field(
        description="Canonical accelerator name from the GPU registry; null: several accelerator types."
    )
    gpu_label: NonEmptyStr = Field(description="The accelerator as the submission writes it, verbatim.")
    gpus_per_node: PositiveInt = Field(description="Accelerators per node (NVL72 systems count 4 per node).")
    nodes: PositiveInt
    total_accelerators: PositiveInt = Field(description="gpus_per_node x nodes, as the submission counts it.")

    @model_validator(mode="after")
    def _total(self) -> MlperfHardware:
        _check_total(self.gpus_per_node, self.nodes, self.total_accelerators)
        return self


def _check_total(per_node: int, nodes: int, total: int) -> None:
    if per_node * nodes != total:
        raise ValueError(
            f"expected total_accelerators = {per_node} x {nodes} = {per_node * nodes}, got {total}"
        )


class MlperfRun(_Strict):
    benchmark: NonEmptyStr = Field(
        description="Benchmark as filed (results folder), e.g. llama3_1-70b-fp8_dyn."
    )
    benchmark_official: NonEmptyStr = Field(
        description="The MLPerf benchmark it is filed under, e.g. llama2-70b-99."
    )
    model: NonEmptyStr | None = Field(
        description="Model id from the model registry; null: not in the registry."
    )
    scenario: MlperfScenario
    division: Literal["closed", "open"]
    availability: Literal["available", "preview", "rdi"] = Field(
        description="Availability category: available, preview, or research/development/internal (rdi)."
    )
    result_id: Annotated[str, Field(pattern=r"^v?[0-9]+\.[0-9]+-[0-9]{4}$")] = Field(
        description="MLPerf result ID, e.g. 5.1-0075; MLCommons' rules require it next to the figure."
    )
    system_name: NonEmptyStr = Field(description="The system under test as the submission names it.")
    framework: NonEmptyStr = Field(description="The software stack as the submission writes it, verbatim.")
    engine: Literal["tensorrt-llm", "vllm", "sglang", "other"]
    engine_basis: Literal["explicit", "inferred", "override", "unspecified"] = Field(
        description="How the engine was determined: named in the system description, inferred (NVIDIA's "
        "harness listed as 'TensorRT x.y' on NVIDIA GPUs), set by hand, or not known."
    )
    engine_evidence: str | None = Field(default=None, max_length=1000)
    metric: MlperfMetric = Field(
        description="What value measures: whole-system tokens/s, or (flagged, never plotted as tokens/s) "
        "samples/s, queries/s or the SingleStream p90 latency in ns."
    )
    value: PositiveFloat = Field(description="The figure for the whole system, the number of value_text.")
    value_text: Annotated[str, Field(pattern=_DECIMAL)] = Field(
        description="The figure exactly as the log prints it."
    )
    tokens_inferred: bool = Field(
        default=False, description="tokens/s derived by LoadGen from samples/s (the harness gave no tokens)."
    )
    ttft_limit_ms: PositiveFloat | None = Field(
        default=None, description="p99 TTFT limit in force (Server, Interactive)."
    )
    tpot_limit_ms: PositiveFloat | None = Field(default=None, description="p99 TPOT limit in force.")
    ttft_p99_ms: PositiveFloat | None = Field(default=None, description="Measured p99 time to first token.")
    tpot_p99_ms: PositiveFloat | None = Field(default=None, description="Measured p99 time per output token.")
    log_url: HttpUrl = Field(description="The LoadGen log (mlperf_log_summary.txt) the figure was read from.")
    summary_url: HttpUrl | None = Field(
        default=None, description="The round's summary table it was checked against."
    )
    notes: str | None = Field(default=None, max_length=4000)

    @model_validator(mode="after")
    def _value_is_text(self) -> MlperfRun:
        _check_value_text(self.value, self.value_text)
        return self


def _check_value_text(value: float, text: str) -> None:
    """value must be the number value_text prints, not a rounding of it."""
    from decimal import Decimal

    if Decimal(repr(value)) != Decimal(text):
        raise ValueError(f"expected value to equal value_text {text!r} exactly, got {value!r}")


class MlperfResultFile(_Strict):
    schema_version: Literal[2]
    submission: Submission
    mlperf: MlperfInfo
    hardware: MlperfHardware
    runs: list[MlperfRun] = Field(min_length=1)


def _check_mlperf_hardware_dict(d: dict[str, Any]) -> dict[str, Any]:
    _check_total(d["gpus_per_node"], d["nodes"], d["total_accelerators"])
    return d


def _check_mlperf_run_dict(d: dict[str, Any]) -> dict[str, Any]:
    _check_value_text(d["value"], d["value_text"])
    return d


# --- The same contract over plain dicts, for bulk checking -------------------------------------------------
# Building ~8 model instances per run is half the cost of validating a large results tree. The TypedDicts
# below are generated from the models above (same fields, constraints, defaults and checks), so pydantic-core
# validates YAML data into plain dicts with every default filled in, two to three times as fast. The models
# stay the contract and the source of the JSON Schema; a test checks that both validators agree.


def _check_workflow_dict(d: dict[str, Any]) -> dict[str, Any]:
    _check_workflow(d["engine"], d["workflow"])
    return d


_DICT_CHECKS: dict[type[BaseModel], AfterValidator] = {
    Software: AfterValidator(_check_workflow_dict),
    Source: AfterValidator(_check_source_dict),
    EstimateBand: AfterValidator(_check_band_dict),
    ResultFile: AfterValidator(_check_result_file_dict),
    Metrics: AfterValidator(_check_throughput_dict),
    Run: AfterValidator(_check_run_dict),
    Parallelism: AfterValidator(_check_world_dict),
    MlperfHardware: AfterValidator(_check_mlperf_hardware_dict),
    MlperfRun: AfterValidator(_check_mlperf_run_dict),
}
_DICT_CONFIG = ConfigDict(extra="forbid", strict=True)


def _as_dict_type(tp: Any) -> Any:
    """An annotation with every model class in it replaced by its TypedDict twin."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return _typed_dict(tp)
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is Annotated:
        return Annotated[(_as_dict_type(args[0]), *tp.__metadata__)]
    if origin in (typing.Union, types.UnionType):
        return typing.Union[tuple(_as_dict_type(a) for a in args)]  # noqa: UP007 - built from a tuple
    if origin is list:
        return list[_as_dict_type(args[0])]
    return tp


@functools.cache
def _typed_dict(model: type[BaseModel]) -> Any:
    fields: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        ann = _as_dict_type(info.annotation)
        meta = list(info.metadata)
        if info.is_required():
            fields[name] = Annotated[(ann, *meta)] if meta else ann
            continue
        # A model default (parallelism: {}) is validated so that its own defaults are filled in too;
        # plain defaults are used as they are (validating them for every run costs time).
        nested = isinstance(info.default, BaseModel)
        default = info.default.model_dump() if nested else info.default
        fields[name] = NotRequired[Annotated[(ann, *meta, Field(default=default, validate_default=nested))]]
    td = TypedDict(f"{model.__name__}Dict", fields)  # type: ignore[operator]
    td.__pydantic_config__ = _DICT_CONFIG  # type: ignore[attr-defined]
    return Annotated[td, _DICT_CHECKS[model]] if model in _DICT_CHECKS else td


@functools.cache
def dict_validator() -> TypeAdapter[dict[str, Any]]:
    """Validates result-file data (as parsed from YAML) into plain dicts with all defaults filled in.

    Same fields, constraints, error locations and messages as ``ResultFile.model_validate``; use it where
    many files are checked and the models are not needed (``bench.contract.resultfile.check_many``).
    """
    return TypeAdapter(_typed_dict(ResultFile))


@functools.cache
def mlperf_dict_validator() -> TypeAdapter[dict[str, Any]]:
    """``dict_validator`` for schema_version 2 (``MlperfResultFile``)."""
    return TypeAdapter(_typed_dict(MlperfResultFile))


def is_mlperf(data: Any) -> bool:
    """Whether parsed result data claims schema_version 2 (an MLPerf file): it picks the model."""
    return isinstance(data, dict) and data.get("schema_version") == MLPERF_SCHEMA_VERSION


SCHEMA_FILE = "result.schema.json"  # written to results/ by `llmbench schema`, for editors and other tools
SCHEMA_ID = "https://llmbench/result.schema"  # in every version's $id: how `schema` knows a file it wrote


def json_schema_text() -> str:
    """The JSON Schema of a result file (generated from ``ResultFile``), as stable, diff-friendly text."""
    import json

    both = TypeAdapter(ResultFile | MlperfResultFile).json_schema()
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{SCHEMA_ID}.v{SCHEMA_VERSION}.json",
        "title": f"llmbench result file, schema_version 1 or {SCHEMA_VERSION}",
        "description": "schema_version 1: measured and published runs (ResultFile); "
        "2: MLPerf Inference results (MlperfResultFile).",
        **both,
    }
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
