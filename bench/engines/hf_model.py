"""Build the transformers model a benchmark runs: random weights from architecture figures, or a checkpoint.

Throughput does not depend on weight values, so a run can use random weights of the real architecture
(``weights: random``): the figures come from the model registry (bench/data/models.yaml) as a small JSON
object, or from a checkpoint's config.json; nothing is downloaded. Node-side: torch and transformers only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
PRECISION = {"bf16": "BF16", "fp16": "FP16", "fp32": "FP32"}

# Registry figure -> LlamaConfig argument; the first seven are required.
_ARCH_KEYS = {
    "layers": "num_hidden_layers",
    "hidden_size": "hidden_size",
    "intermediate_size": "intermediate_size",
    "attention_heads": "num_attention_heads",
    "kv_heads": "num_key_value_heads",
    "head_dim": "head_dim",
    "vocab_size": "vocab_size",
    "max_position_embeddings": "max_position_embeddings",
    "rms_norm_eps": "rms_norm_eps",
    "rope_theta": "rope_theta",
    "tie_word_embeddings": "tie_word_embeddings",
}
_REQUIRED = list(_ARCH_KEYS)[:7]


class ModelSpecError(ValueError):
    """The model description cannot be turned into a model; the message names the field."""


@dataclass(frozen=True)
class ModelSpec:
    """Which model to build and how."""

    name: str
    arch: dict[str, Any] | None = None  # registry figures (random weights)
    model_path: Path | None = None  # HF checkpoint folder (config.json, weights unless random)
    weights: str = "random"  # random | pretrained
    dtype: str = "bf16"
    device: str = "cpu"
    attn_implementation: str = "sdpa"


def read_arch(source: str | Path) -> dict[str, Any]:
    """Architecture figures (the registry's field names) from inline JSON (``{...}``) or a JSON file."""
    path = source
    try:
        text = (
            str(source) if str(source).lstrip().startswith("{") else Path(source).read_text(encoding="utf-8")
        )
        data = json.loads(text)
    except (OSError, json.JSONDecodeError) as e:
        raise ModelSpecError(f"{path}: expected a JSON object of architecture figures ({e})") from None
    if not isinstance(data, dict):
        raise ModelSpecError(f"{path}: expected a JSON object, got {type(data).__name__}")
    return data


def llama_config(arch: dict[str, Any]) -> Any:
    """A LlamaConfig from registry figures; MoE and unknown figures are refused by name."""
    from transformers import LlamaConfig

    missing = [k for k in _REQUIRED if k not in arch]
    if missing:
        raise ModelSpecError(f"architecture: expected figures {', '.join(missing)}, got nothing")
    if arch.get("experts"):
        raise ModelSpecError(
            "architecture: experts: expected a dense Llama-family model, got a mixture of experts"
        )
    kwargs = {_ARCH_KEYS[k]: v for k, v in arch.items() if k in _ARCH_KEYS}
    # The registry's figures beyond the architecture (name, params_b, source...) are ignored on purpose.
    config = LlamaConfig(**kwargs)
    config.bos_token_id = config.eos_token_id = config.pad_token_id = None  # EOS is ignored: fixed OSL
    return config


def build(spec: ModelSpec) -> Any:
    """The model in eval mode on its device, with EOS disabled so every request generates exactly its OSL."""
    from transformers import AutoConfig, AutoModelForCausalLM

    if spec.dtype not in DTYPES:
        raise ModelSpecError(f"dtype: expected one of {', '.join(DTYPES)}, got {spec.dtype!r}")
    dtype = DTYPES[spec.dtype]
    if spec.weights == "pretrained":
        if spec.model_path is None:
            raise ModelSpecError(
                "weights pretrained: expected --model_path (a checkpoint folder), got nothing"
            )
        model = AutoModelForCausalLM.from_pretrained(
            spec.model_path, dtype=dtype, device_map=spec.device, attn_implementation=spec.attn_implementation
        )
    else:
        if spec.model_path is not None:
            config = AutoConfig.from_pretrained(spec.model_path)
        elif spec.arch is not None:
            config = llama_config(spec.arch)
        else:
            raise ModelSpecError(
                "weights random: expected --arch (figures JSON) or --model_path, got neither"
            )
        config._attn_implementation = spec.attn_implementation
        torch.manual_seed(0)
        with torch.device(spec.device):  # initialise on the device: an 8B model in seconds, not minutes
            model = AutoModelForCausalLM.from_config(config, dtype=dtype)
    model.eval()
    gen = model.generation_config
    gen.eos_token_id = None
    gen.pad_token_id = 0
    gen.do_sample = False
    gen.temperature = gen.top_p = gen.top_k = None
    return model


def parameter_count(model: Any) -> int:
    """Number of parameters (tied embeddings counted once)."""
    return sum(p.numel() for p in model.parameters())
