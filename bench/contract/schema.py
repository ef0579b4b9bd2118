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

SCHEMA_VERSION = 1
# A run note's text after this marker says why its published figure is known to be wrong (the figure is
# kept as published); import-csv writes it from bench/data/errata.yaml, ingest shows it as `erratum`.
ERRATUM_MARKER = "Erratum: "

PositiveFloat = Annotated[float, Field(gt=0, allow_inf_nan=False)]  # .inf or .nan is never a figure
PositiveInt = Annotated[int, Field(gt=0)]
NonEmptyStr = Annotated[str, Field(min_length=1, max_length=500)]
Precision = Literal["FP32", "FP16", "BF16", "FP8", "FP4", "INT8", "INT4", "Mixed"]


class _Strict(BaseModel):
    """Unknown keys are typos; strings are never coerced to numbers."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Source(_Strict):
    kind: Literal["measured", "published"]
    publisher: NonEmptyStr = Field(description="Short name of who produced the numbers, e.g. KISTI, NVIDIA.")
    title: NonEmptyStr = Field(description="Citation: the document, page or run that holds the numbers.")
    url: HttpUrl | None = None
    site_url: HttpUrl | None = None
    notes: str | None = Field(default=None, max_length=4000)


class Submission(_Strict):
    submitter: NonEmptyStr
    system: NonEmptyStr = Field(description="Name of the system, e.g. 'KISTI Neuron', 'DGX H200'.")
    # strict=False: a quoted "2026-04-20" is a date too (YAML writers often quote them); numbers stay refused
    date: dt.date = Field(strict=False, description="Date the numbers were measured or published.")
    source: Source


class Hardware(_Strict):
    gpu: NonEmptyStr = Field(description="Canonical GPU name from the GPU registry.")
    gpu_label: str | None = Field(default=None, description="The source's own label, kept verbatim.")
    gpus_per_node: PositiveInt | None = None
    nodes: PositiveInt = 1
    interconnect: str | None = None
    cpu: str | None = None


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
    container_image: str | None = None

    @model_validator(mode="after")
    def _workflow_only_for_trtllm(self) -> Software:
        _check_workflow(self.engine, self.workflow)
        return self


def _check_workflow(engine: str, workflow: str | None) -> None:
    if engine == "tensorrt-llm" and workflow is None:
        raise ValueError("expected a workflow (pytorch or legacy-engine) for engine tensorrt-llm, got none")


class Model(_Strict):
    id: NonEmptyStr = Field(description="Canonical Hugging Face id from the model registry.")
    label: str | None = Field(default=None, description="The source's own model label, kept verbatim.")
    checkpoint: str | None = Field(
        default=None, description="Checkpoint actually run, e.g. a pre-quantised one."
    )
    weight_precision: Precision
    kv_cache_dtype: str | None = None
    weights: Literal["pretrained", "random"] = Field(
        default="pretrained",
        description="random: throughput-only run with random weights of the architecture.",
    )


class Parallelism(_Strict):
    tp: PositiveInt = 1
    pp: PositiveInt = 1
    ep: PositiveInt | None = None
    attention_dp: bool = False


class Workload(_Strict):
    isl: PositiveInt = Field(description="Input sequence length (tokens).")
    osl: PositiveInt = Field(description="Output sequence length (tokens).")
    num_requests: PositiveInt | None = None
    concurrency: PositiveInt | None = Field(
        default=None, description="Max in-flight requests; null: unlimited."
    )
    dataset: str = "token-norm-dist"
    input_stdev: Annotated[float, Field(ge=0)] | None = None
    output_stdev: Annotated[float, Field(ge=0)] | None = None
    streaming: bool | None = None


class EngineSettings(_Strict):
    max_batch_size: PositiveInt | None = None
    max_num_tokens: PositiveInt | None = None
    kv_cache_free_gpu_mem_fraction: Annotated[float, Field(gt=0, le=1)] | None = None
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


class Run(_Strict):
    parallelism: Parallelism = Parallelism()
    workload: Workload
    engine_settings: EngineSettings = EngineSettings()
    metrics: Metrics
    timestamp: dt.datetime | None = Field(default=None, strict=False, description="When the run ended (ISO).")
    command: str | None = Field(default=None, max_length=20000, description="Exact command that produced it.")
    notes: str | None = Field(
        default=None,
        max_length=4000,
        description="Free text; anything after 'Erratum: ' marks the published figure as known to be wrong.",
    )


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
    Metrics: AfterValidator(_check_throughput_dict),
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


SCHEMA_FILE = "result.schema.json"  # written to results/ by `llmbench schema`, for editors and other tools


def json_schema_text() -> str:
    """The JSON Schema of a result file (generated from ``ResultFile``), as stable, diff-friendly text."""
    import json

    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://llmbench/result.schema.v{SCHEMA_VERSION}.json",
        **ResultFile.model_json_schema(),
    }
    schema["title"] = f"llmbench result file, schema_version {SCHEMA_VERSION}"
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
