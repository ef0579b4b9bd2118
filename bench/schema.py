"""The result-file contract: the pydantic model of one ``results/**/*.yaml`` submission.

A submission says who measured or published what, when and where (``submission``, ``hardware``,
``software``, ``model``) and lists its ``runs``. Every metric carries its unit in its name; a metric
that was not measured is absent, never 0. ``SCHEMA_VERSION`` is bumped on any incompatible change and
the JSON Schema in ``results/result.schema.json`` is generated from this module (``llmbench schema``).

This module is the only part of ``bench`` that ``site_gen`` imports (with ``resultfile`` and
``registry``, which read and check files against it).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, HttpUrl, model_validator

SCHEMA_VERSION = 1

PositiveFloat = Annotated[float, Field(gt=0)]
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
    date: dt.date = Field(description="Date the numbers were measured or published.")
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
    engine_version: NonEmptyStr
    workflow: Literal["pytorch", "legacy-engine"] | None = Field(
        default=None, description="TensorRT-LLM workflow; null for other engines."
    )
    benchmark_tool: NonEmptyStr = Field(
        description="trtllm-bench, gptManagerBenchmark, llmbench-transformers..."
    )
    container_image: str | None = None

    @model_validator(mode="after")
    def _workflow_only_for_trtllm(self) -> Software:
        if self.engine == "tensorrt-llm" and self.workflow is None:
            raise ValueError("workflow is required for engine tensorrt-llm (pytorch or legacy-engine)")
        return self


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
            raise ValueError(
                "at least one of output_tokens_per_s, output_tokens_per_s_per_gpu, "
                "output_tokens_per_s_per_user is required"
            )
        return self


class Run(_Strict):
    parallelism: Parallelism = Parallelism()
    workload: Workload
    engine_settings: EngineSettings = EngineSettings()
    metrics: Metrics
    timestamp: dt.datetime | None = None
    command: str | None = Field(default=None, max_length=20000, description="Exact command that produced it.")
    notes: str | None = Field(default=None, max_length=4000)


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
