"""The sweep file's ``trtllm:`` section: TensorRT-LLM version, workflow, backend and engine builds."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

PosInt = Annotated[int, Field(gt=0)]


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BuildSpec(_Spec):
    """Legacy TensorRT engines: how to build one engine per (tp, pp, max_batch_size, max_num_tokens)."""

    tool: Literal["trtllm-bench", "trtllm-build"] = "trtllm-bench"
    quantization: str | None = Field(default=None, description="trtllm-bench build --quantization (FP8...).")
    max_seq_len: PosInt | None = None
    checkpoint_dir: str | None = Field(
        default=None, description="trtllm-build only: converted checkpoint; {tp} and {pp} are filled in."
    )
    extra_args: list[str] = []


class TrtllmSpec(_Spec):
    version: str = Field(description="TensorRT-LLM version installed on the nodes, e.g. 1.2.0 or 0.21.0.")
    workflow: Literal["pytorch", "legacy-engine"] = "pytorch"
    backend: Literal["pytorch", "_autodeploy", "autodeploy"] | None = Field(
        default=None, description="PyTorch workflow backend (default pytorch)."
    )
    extra_llm_api_options: str | None = Field(
        default=None, description="LLM-API options YAML (--config / --extra_llm_api_options)."
    )
    build: BuildSpec = BuildSpec()

    @field_validator("version")
    @classmethod
    def _version_shape(cls, v: str) -> str:
        if not re.match(r"^\d+\.\d+(\.\d+)?([.-]?(rc|post|dev)\d*)?", v):
            raise ValueError(f"a TensorRT-LLM version like 1.2.0 or 0.21.0, got {v!r}")
        return v
