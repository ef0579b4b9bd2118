"""Every view's chart in Korean (issue 26): the text its Vega-Lite spec computes (quoted strings of
``calculate``: "all sources", " GPUs", the over-bound callout, "mixed: ...") and its input labels ("Split
by source") come out of ``markers.localize`` in Korean, but for the names and terms kept in English: GPU,
DEP (NVIDIA's label), the engines' own names. Read from the specs the build localizes, every view."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from bench.contract import registry
from site_gen import i18n
from site_gen.charts import specs as charts
from site_gen.charts import views
from site_gen.charts.specs import ChartContext
from site_gen.pages.markers import _LITERAL, localize

KEPT = {"GPU", "DEP", "transformers", "tensorrt", "llm"}


def _computed_text(spec: Any) -> Iterator[str]:
    if isinstance(spec, dict):
        for k, v in spec.items():
            if k == "calculate" and isinstance(v, str):
                yield from (m.group(1) for m in _LITERAL.finditer(v))
            elif k == "bind" and isinstance(v, dict) and isinstance(v.get("name"), str):
                yield v["name"]
            else:
                yield from _computed_text(v)
    elif isinstance(spec, list):
        for v in spec:
            yield from _computed_text(v)


def _texts(lang: str) -> dict[str, list[str]]:
    ctx = ChartContext(gpus=tuple(g.name for g in registry.gpus().entries))
    words = i18n.translator(lang)
    out = {}
    for view in views.all_views().values():
        out[view.name] = [
            s for c in view.build(ctx) for s in _computed_text(localize(charts.to_spec(c), words))
        ]
    return out


def test_the_english_specs_hold_the_strings_this_test_is_about() -> None:
    """The test can fail: in English the TP-scaling views compute "all sources" and bind "Split by
    source", the TP × PP view " GPUs"."""
    en = [s for texts in _texts("en").values() for s in texts]
    assert {"all sources", "Split by source ", " GPUs", " runs"} <= set(en)


@pytest.mark.parametrize("lang", ["ko"])
def test_no_english_word_in_a_korean_chart_but_names(lang: str) -> None:
    left = {
        (name, s)
        for name, texts in _texts(lang).items()
        for s in texts
        if set(re.findall(r"[A-Za-z]{3,}", s)) - KEPT
    }
    assert sorted(left) == []
    ko = i18n.load(lang)
    every = {s for texts in _texts(lang).values() for s in texts}
    assert {ko.t("chart.calc_all_sources"), ko.t("chart.split_by_source")} <= every
