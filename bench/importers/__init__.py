"""Published sources -> result files (``tables``: the KISTI and NVIDIA CSV tables)."""
