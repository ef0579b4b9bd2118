"""A figure no run can have (10^308 tokens/s, an infinity) never reaches a page's data file as a number
(issue 24, item 8, the site's side): it is shipped as missing, so it cannot stretch a chart's axis to
10^308. The data file's payload is read back as strict JSON (where an Infinity would not even parse)."""

from __future__ import annotations

import json
import math

import pandas as pd

from site_gen.data import dataset


def shipped(values: list[float]) -> list[object]:
    _key, body = dataset.data_file("runs", dataset.encode(pd.DataFrame({"output_tps": values})))
    return json.loads(body)["columns"]["output_tps"]  # strict JSON: an Infinity would not parse


def test_absurd_and_non_finite_figures_are_shipped_as_missing() -> None:
    real = [1234.56, 0.5, 2.5e6]  # the largest real figures are whole-system tokens/s, ~10^6
    got = shipped([*real, 1e308, 1.8e308 * 10, -math.inf, math.nan, 1e15])
    assert got[:3] == real
    assert got[3:] == [None] * 5
