"""The chart layer: Altair/Vega-Lite specs (``specs``), the registry of chart views and the views
themselves, and the Vega-Lite -> Vega compiler.

Reads the data layer (``site_gen/data/``) and the UI strings (``site_gen/i18n/``) only; never a page or the
site (tests/test_architecture.py checks it).
"""
