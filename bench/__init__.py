"""llmbench upstream: plan and run TensorRT-LLM sweeps, record runs, export and check result files."""
