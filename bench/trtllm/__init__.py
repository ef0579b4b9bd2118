"""Everything specific to trtllm-bench: its command lines per release, dataset and report formats.

Kept free of imports: the transformers runner imports ``bench.trtllm.dataset`` on GPU nodes, where only
the standard library, numpy, torch and transformers are installed.
"""
