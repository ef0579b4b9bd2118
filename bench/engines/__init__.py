"""Node-side inference engines that llmbench runs itself (as opposed to trtllm-bench, which it only drives).

Modules here run on the benchmark machine: they import only the standard library, numpy, torch and
transformers, never llmbench's own dependencies (yaml_rs, typer, DuckDB), so ``python3 -m
bench.engines.transformers_runner`` works from a bare checkout on a GPU node. Each engine reads the same
token-norm-dist JSONL dataset as trtllm-bench and writes a report in trtllm-bench's ``--report_json`` format,
so the report parser, run store and export handle it unchanged.
"""
