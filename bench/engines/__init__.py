"""Inference engines that llmbench runs itself (as opposed to trtllm-bench, which it only drives).

Node side (run on the benchmark machine; only the standard library, numpy, torch and transformers, never
llmbench's own dependencies, so ``python3 -m bench.engines.transformers_runner`` works from a bare
checkout on a GPU node): ``workload`` (dataset files), ``statistics`` (trtllm-bench's metrics),
``hf_model`` (build the model), ``batching`` (the three transformers batching modes), ``environment``,
``transformers_runner`` (one run -> report JSON) and ``transformers_suite`` (many runs in one process).

Head side (llmbench's own dependencies): ``transformers_engine`` (``engine: transformers`` in a sweep:
options, checks, command line; an ``EngineSpec`` of ``bench.sweep.engine``) and ``bundle_export`` (suite
output -> result file). Every engine reads the same token-norm-dist JSONL dataset as trtllm-bench and
writes trtllm-bench's ``--report_json`` format, so the report parser, run store and export handle it.
"""

# The engines a sweep can name, as modules each holding an ``ENGINE`` (``bench.sweep.engine.EngineSpec``);
# imported by ``bench.sweep.engine.engines()`` on first use. trtllm-bench is the default.
PLUGINS = ("bench.trtllm.command", "bench.engines.transformers_engine")
DEFAULT = "trtllm-bench"
