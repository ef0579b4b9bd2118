"""The page script's pure modules (docs/assets/js: state/filter.js, data/crossfilter.js, calc/compare.js,
format.js) run under node and agree with their Python twins on the same cases: the URL query the build
writes (site_gen.pages.widgets.presets, urlencode), the rows a filter keeps (site_gen.data.dimensions.mask and
LIMITS), compare mode's matched configurations (site_gen.pages.compare.matched), the cost column
(site_gen.charts.latency_views.cost_per_million_tokens); and hand-worked cases for counts, geomean and
formats.

node imports the modules as they are (ES modules, copied beside a package.json saying so): no bundler.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

import pandas as pd
import pytest

from site_gen.charts import latency_views, snapshot
from site_gen.data import dimensions
from site_gen.pages import compare

Node = Callable[..., list]  # node(jobs, lang=None) -> each job's result
JS = Path(__file__).resolve().parents[2] / "docs" / "assets" / "js"
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")

# What the driver runs: each job names a module, an export (or a JS function of the module and the
# arguments, for a call that needs more than one export) and its arguments; results come back as JSON
# (typed arrays as lists, undefined as null).
DRIVER = """
globalThis.load = (module) => import("./js/" + module); // another module, for a job that needs two
const jobs = JSON.parse(require("fs").readFileSync(0, "utf8"));
(async () => {
  const out = [];
  for (const [module, name, args] of jobs) {
    const m = await import("./js/" + module);
    const f = name.includes("=>") ? new Function("return " + name)() : (...a) => m[name](...a);
    out.push(await (name.includes("=>") ? f(m, ...args) : f(...args)));
  }
  const plain = (k, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v === undefined ? null : v);
  process.stdout.write(JSON.stringify(out, plain));
})().catch((e) => { console.error(e); process.exit(1); });
"""


@pytest.fixture(scope="module")
def node(tmp_path_factory: pytest.TempPathFactory) -> Node:
    """run(jobs, lang=None) -> results: the modules imported under node (as lang's page, when given)."""
    work = tmp_path_factory.mktemp("js")
    shutil.copytree(JS, work / "js")
    (work / "js" / "package.json").write_text('{"type": "module"}')

    def run(jobs: list, lang: str | None = None) -> list:
        pre = f"globalThis.LLMBENCH_I18N = {{lang: {json.dumps(lang)}, ui: {{}}}};" if lang else ""
        script = work / f"driver-{lang or 'en'}.cjs"
        script.write_text(pre + DRIVER)
        proc = subprocess.run(
            ["node", str(script)],
            input=json.dumps(jobs),
            capture_output=True,
            text=True,
            timeout=60,
            cwd=work,
        )
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    return run


DIMS = [d.as_json() for d in dimensions.DIMENSIONS if d.key in ("gpu", "precision", "tp")]
LIMITS = [lim.as_json() for lim in dimensions.LIMITS]


def test_filter_state_reads_the_query_the_build_writes_and_writes_it_back(node: Node) -> None:
    pairs = [("gpu", "H200 SXM 141GB"), ("gpu", "A100 SXM4 80GB"), ("precision", "FP8")]
    query = "?" + urlencode(pairs)  # site_gen.pages.widgets.presets' href
    keys = DIMS + LIMITS
    hostile = "?gpu=%3Cimg%3E&tpot_max=0x10&ttft_max=50&ttft_max=60&user_min=1e308&other=1"
    state, back, defaults, cleared, bad, other = node(
        [
            ["state/filter.js", "stateFromQuery", [keys, query, {}]],
            [
                "state/filter.js",
                "queryFromState",
                [DIMS, {"gpu": ["H200 SXM 141GB", "A100 SXM4 80GB"], "precision": ["FP8"]}, {}],
            ],
            ["state/filter.js", "stateFromQuery", [keys, "?unrelated=1", {"gpu": ["H200 SXM 141GB"]}]],
            ["state/filter.js", "queryFromState", [DIMS, {}, {"gpu": ["H200 SXM 141GB"]}]],
            ["state/filter.js", "stateFromQuery", [keys, hostile, {}]],
            ["state/filter.js", "withOtherParams", ["?gpu=A", DIMS, "?gpu=B&price=2.5"]],
        ]
    )
    assert state == {"gpu": ["H200 SXM 141GB", "A100 SXM4 80GB"], "precision": ["FP8"]}
    assert parse_qsl(back[1:]) == pairs
    assert defaults == {"gpu": ["H200 SXM 141GB"]}  # no filter in the URL: the scope's defaults
    assert cleared == "?gpu=*"  # a default the reader cleared is written as "all", not dropped
    # values are text (escaped where shown); a limit takes its first plain decimal only
    assert bad == {"gpu": ["<img>"], "ttft_max": ["50"]}
    assert other == "?gpu=A&price=2.5"


def test_a_url_not_naming_the_source_kind_keeps_the_estimates_off(node: Node) -> None:
    """Issue 28: "kind" keeps its default (every kind but "modelled") when a hand-written URL names other
    filters only; "?kind=*" is every kind, estimates included; a dimension without keep_default is "all"."""
    from site_gen.data.dimensions import DIMENSIONS

    keys = [d.as_json() for d in DIMENSIONS]
    assert next(d for d in keys if d["key"] == "kind")["keep_default"] is True
    defaults = {"kind": ["measured", "published"], "gpu": ["H200"]}
    hand, star, named = node(
        [
            ["state/filter.js", "stateFromQuery", [keys, "?gpu=L40S", defaults]],
            ["state/filter.js", "stateFromQuery", [keys, "?gpu=L40S&kind=*", defaults]],
            ["state/filter.js", "stateFromQuery", [keys, "?kind=modelled", defaults]],
        ]
    )
    assert hand == {"gpu": ["L40S"], "kind": ["measured", "published"]}
    # and the page writes such a state back without naming "kind" (it is at its default)
    (query,) = node([["state/filter.js", "queryFromState", [keys, hand, defaults]]])
    assert query == "?gpu=L40S"
    assert star == {"gpu": ["L40S"]}
    assert named == {"kind": ["modelled"]}


@pytest.mark.parametrize(
    ("text", "limit", "price"),
    [
        ("2", 2, 2),
        ("2.5", 2.5, 2.5),
        (".5", 0.5, 0.5),
        (" 7 ", 7, 7),
        ("1001", 1001, None),
        ("0x10", None, None),
        ("1e3", None, None),
        ("Infinity", None, None),
        ("-1", None, None),
        ("", None, None),
    ],
)
def test_limit_and_price_text(node: Node, text: str, limit: float | None, price: float | None) -> None:
    got = node([["state/filter.js", "limitValue", [text]], ["state/filter.js", "priceValue", [text]]])
    assert got == [limit, price]


RUNS = [  # hand-worked in the docstring of the counts test
    {"gpu": "H200", "gpu_order": 2, "precision": "FP8", "precision_order": 1, "tp": 1, "tpot_ms_avg": 10.0},
    {"gpu": "H200", "gpu_order": 2, "precision": "FP16", "precision_order": 2, "tp": 2, "tpot_ms_avg": 30.0},
    {"gpu": "A100", "gpu_order": 1, "precision": "FP16", "precision_order": 2, "tp": 1, "tpot_ms_avg": None},
    {"gpu": "A100", "gpu_order": 1, "precision": "FP16", "precision_order": 2, "tp": 2, "tpot_ms_avg": 20.0},
    {"gpu": "B200", "gpu_order": 3, "precision": "FP4", "precision_order": 0, "tp": 8, "tpot_ms_avg": 5.0},
]


FILTER = (
    "(m, rows, dims, limits, state) => { const ix = m.createIndex(rows, dims, limits); "
    "return {values: ix.values, ...ix.filter(state)}; }"
)


def _filter(node, state: dict) -> dict:
    return node([["data/crossfilter.js", FILTER, [RUNS, DIMS, LIMITS, state]]])[0]


def test_option_counts_are_each_dimension_under_the_other_filters(node: Node) -> None:
    """gpu = H200 and tpot_max = 25: kept is run 0 only (run 1 is over 25 ms, runs 2-4 are other GPUs).
    GPU counts ignore the GPU filter but keep the limit: H200 1 (run 0), A100 1 (run 3; run 2 has no
    TPOT), B200 1 (run 4). Precision counts keep both: FP8 1; FP16 0 (run 1 over the limit); FP4 0.
    TP: 1 → 1, 2 → 0, 8 → 0. Missing: 0 (run 2 lacks TPOT but is an A100, out by the GPU filter anyway)."""
    got = _filter(node, {"gpu": ["H200"], "tpot_max": ["25"]})
    assert got["values"] == {
        "gpu": ["A100", "H200", "B200"],
        "precision": ["FP4", "FP8", "FP16"],
        "tp": ["1", "2", "8"],
    }
    assert got["counts"] == {"gpu": [1, 1, 1], "precision": [0, 1, 0], "tp": [1, 0, 0]}
    assert [r["gpu"] + r["precision"] for r in got["rows"]] == ["H200FP8"]
    assert got["missing"] == 0 and got["limited"] is True
    # no gpu filter: run 2 (an A100 without TPOT) is the one a limit hides for want of its figure
    assert _filter(node, {"tpot_max": ["25"]})["missing"] == 1


WIDE = """(m, n) => {
  const rows = Array.from({ length: n }, (_, i) => ({ v: i, w: i % 3 }));
  const ix = m.createIndex(rows, [{ key: "v", column: "v", numeric: true }, { key: "w", column: "w" }], []);
  const last = ix.filter({ v: [String(n - 1)] }), first = ix.filter({ v: ["0"] }), all = ix.filter({});
  return { last: last.rows.map((r) => r.v), first: first.rows.map((r) => r.v), w: last.counts.w,
    counted: Array.from(all.counts.v).every((c) => c === 1), values: ix.values.v.length };
}"""


@pytest.mark.parametrize("n", [127, 128, 129, 300, 32_767, 32_768, 70_000])
def test_a_dimension_of_many_values_filters_and_counts_its_last_value(node: Node, n: int) -> None:
    """A dimension's codes are kept in the narrowest integer array that holds them (8, 16 or 32 bits):
    at the widths' edges, its last value is still found and counted (a code wrapped past the array's
    range would read as "no value")."""
    (got,) = node([["data/crossfilter.js", WIDE, [n]]])
    assert got["last"] == [n - 1] and got["first"] == [0] and got["values"] == n and got["counted"]
    assert got["w"] == [int((n - 1) % 3 == k) for k in range(3)]


@pytest.mark.parametrize(
    "state",
    [
        {},
        {"gpu": ["H200"]},
        {"gpu": ["H200", "A100"], "precision": ["FP16"]},
        {"precision": ["FP4"], "tp": ["8", "1"]},
        {"gpu": ["nope"]},
        {"tpot_max": ["20"]},
        {"gpu": ["A100"], "tpot_max": ["20"]},
    ],
)
def test_rows_and_counts_equal_pythons_mask(node: Node, state: dict) -> None:
    df = pd.DataFrame(RUNS)
    got = _filter(node, state)
    dims = {k: v for k, v in state.items() if k in {d["key"] for d in DIMS}}

    def kept(filters: dict) -> pd.Series:
        m = dimensions.mask(df, filters)
        for lim in dimensions.LIMITS:
            if lim.key in state:
                v, col = float(state[lim.key][0]), df[lim.column]
                m &= col.le(v) if lim.bound == "max" else col.ge(v)  # NaN fails either way
        return m

    assert len(got["rows"]) == int(kept(dims).sum())
    for d in DIMS:
        others = {k: v for k, v in dims.items() if k != d["key"]}
        for value, n in zip(got["values"][d["key"]], got["counts"][d["key"]], strict=True):
            assert n == int(kept({**others, d["key"]: [value]}).sum()), (d["key"], value)


# Every run of the GPUs a filter names, from their files (data/runs.js, issue 29): a fake Source whose
# files are RUNS by GPU (run ids added), each load logged; the index's answer after each state.
PART_JOB = """async (m, all, byValue, parts, dims, limits, states) => {
  const { createIndex } = await load("data/crossfilter.js");
  const loads = [];
  const source = {
    rows: async () => (loads.push("every run"), all),
    load: async (file) => (loads.push(file.key), byValue[file.key]),
    index: createIndex,
  };
  const runs = m.openRuns(source, parts, dims, limits, {});
  const out = [];
  for (const state of states) {
    const before = runs.loading(state), at = loads.length;
    const grew = await runs.cover(state);
    const partial = runs.partial();
    out.push({ before, grew, loads: loads.slice(at), values: runs.index.values, ...runs.index.filter(state),
      partial: partial && [partial.key, ...[...partial.values].sort()] });
  }
  return out;
}"""


def _part(runs: list[dict], column: str, key: str) -> tuple[dict, dict]:
    """A part of ``runs`` by ``column`` as the build writes it (markers._parts: {dim, files, order}), and
    its files' rows by key (the value, prefixed with the dimension: two parts' keys never meet)."""
    values = sorted({r[column] for r in runs})
    files = {v: {"src": f"{key}-{v}.json", "key": f"{key}-{v}"} for v in values}
    order = {r[column]: r.get(f"{column}_order") for r in runs}
    return {"dim": key, "files": files, "order": order}, {
        f"{key}-{v}": [r for r in runs if r[column] == v] for v in values
    }


def _as_every_run(node: Node, runs: list[dict], states: list[dict], got: list[dict], dim: str) -> None:
    """Each state's rows are those pandas' ``mask`` keeps, and every option's count the one every run gives,
    but the values of ``dim`` said not loaded (``partial``: shown without a count, never a false 0)."""
    df = pd.DataFrame(runs)
    for state, g in zip(states, got, strict=True):
        every = _filter(node, state)  # every run indexed at once: the page's answer without parts
        # the part's every value listed, in every run's order (the others: those of the runs loaded)
        assert g["values"][dim] == every["values"][dim], state
        dims = {k: v for k, v in state.items() if k != "tpot_max"}
        kept = dimensions.mask(df, dims)
        if "tpot_max" in state:
            kept &= df["tpot_ms_avg"].le(float(state["tpot_max"][0]))
        assert sorted(r["run_id"] for r in g["rows"]) == sorted(df[kept].run_id), state
        assert (g["missing"], g["limited"]) == (every["missing"], every["limited"])
        unknown = set(g["partial"][1:]) if g["partial"] and g["partial"][0] == dim else set()
        for key, values in every["values"].items():
            mine = dict(zip(g["values"][key], g["counts"][key], strict=True))
            for value, n in zip(values, every["counts"][key], strict=True):
                if key == (g["partial"] or [None])[0] and value in unknown:
                    continue  # not loaded: shown without a count
                assert mine.get(value, 0) == n, (state, key, value)


def test_every_run_of_the_chosen_gpus_loads_their_files_and_filters_as_every_run(node: Node) -> None:
    """A state naming GPUs loads those GPUs' files only (once each) and gives the rows pandas' ``mask``
    keeps and every option the count every run gives; the GPU list is every run's, in its order, and a GPU
    not loaded is said so (no count), never counted 0. No GPU, or one without a file (a hand-made link),
    loads every run once, and nothing more after it."""
    runs = [{**r, "run_id": f"r{i}"} for i, r in enumerate(RUNS)]
    gpu, by_gpu = _part(runs, "gpu", "gpu")
    states = [
        {"gpu": ["H200"]},
        {"gpu": ["H200"], "tp": ["2"]},
        {"gpu": ["H200", "A100"], "precision": ["FP16"], "tpot_max": ["25"]},
        {"gpu": ["A100"]},
        {"gpu": ["nope"]},
        {"gpu": ["B200"]},
    ]
    (got,) = node([["data/runs.js", PART_JOB, [runs, by_gpu, [gpu], DIMS, LIMITS, states]]])
    assert [g["loads"] for g in got] == [["gpu-H200"], [], ["gpu-A100"], [], ["every run"], []]
    assert [g["before"] for g in got] == [["H200"], None, ["A100"], None, [], None]
    assert [g["grew"] for g in got] == [True, False, True, False, True, False]
    assert [g["partial"] for g in got] == [
        ["gpu", "A100", "B200"], ["gpu", "A100", "B200"], ["gpu", "B200"], ["gpu", "B200"], None, None
    ]  # fmt: skip
    assert all(g["values"]["gpu"] == ["A100", "H200", "B200"] for g in got)
    _as_every_run(node, runs, states, got, "gpu")


def test_with_no_gpu_named_the_second_part_serves_and_a_gpu_named_again_the_first(node: Node) -> None:
    """Two parts, GPUs then precisions (the build's GPUs then models, markers._slice): a state naming
    precisions and no GPU loads those precisions' files; naming a GPU then loads the GPU's file and forgets
    the precisions' rows (the two files hold the same runs: no run twice); back to the precisions, their
    files are asked for again (the page keeps each file's rows, data/payload.js: no fetch). A GPU without a
    file (a hand-made link) leaves the state to the precisions; naming neither loads every run. Every state
    gives the rows and counts every run gives, the part's values not loaded said so."""
    runs = [{**r, "run_id": f"r{i}"} for i, r in enumerate(RUNS)]
    gpu, by_gpu = _part(runs, "gpu", "gpu")
    precision, by_precision = _part(runs, "precision", "precision")
    states = [
        {"precision": ["FP16"]},
        {"precision": ["FP16", "FP8"], "tp": ["1"]},
        {"precision": ["FP16"], "gpu": ["H200"]},  # a GPU named: the GPUs' part, though FP16 is loaded
        {"precision": ["FP16"]},
        {"precision": ["FP4"], "gpu": ["nope"]},  # a GPU without a file: the precisions' part
        {"gpu": ["nope"]},  # and where no part serves: every run
    ]
    files = {**by_gpu, **by_precision}
    (got,) = node([["data/runs.js", PART_JOB, [runs, files, [gpu, precision], DIMS, LIMITS, states]]])
    assert [g["loads"] for g in got] == [
        ["precision-FP16"],
        ["precision-FP8"],
        ["gpu-H200"],
        ["precision-FP16"],
        ["precision-FP4"],
        ["every run"],
    ]
    assert [g["partial"] for g in got] == [
        ["precision", "FP4", "FP8"],
        ["precision", "FP4"],
        ["gpu", "A100", "B200"],
        ["precision", "FP4", "FP8"],
        ["precision", "FP8"],
        None,
    ]
    assert all(len(g["rows"]) == len({r["run_id"] for r in g["rows"]}) for g in got)  # no run twice
    for at, dim in ((slice(0, 2), "precision"), (slice(2, 3), "gpu"), (slice(3, 6), "precision")):
        _as_every_run(node, runs, states[at], got[at], dim)


# data/payload.js decoding real data files (site_gen.data.dataset.encode / data_file) under node: fetch()
# answers each file's JSON text from ``files`` ({name: text}) and counts the fetches.
PAYLOAD_JOB = """async (m, files) => {
  const fetched = [];
  globalThis.fetch = async (url) => {
    fetched.push(url);
    if (files[url] === undefined) return { ok: false, status: 404 };
    return { ok: true, json: async () => JSON.parse(files[url]) };
  };
  const names = Object.keys(files), keys = names.map((n) => n.replace(/[.]json$/, ""));
  const joined = await m.loadRows(names.join(" "), keys.join(" "));
  const alone = await m.loadRows(names[1], keys[1]); // the second part, asked for by itself
  const again = await m.loadRows(names.join(" "), keys.join(" "));
  let missing = null;
  await m.loadRows("nowhere.json", "nowhere").catch((e) => (missing = e.message));
  return { joined, same: again === joined, reused: alone[0] === joined[2], fetched, missing,
    keys: joined.map((r) => Object.keys(r).join()) };
}"""


def test_data_files_decode_to_their_frames_rows_and_are_fetched_once(node: Node) -> None:
    """Two parts of a set (``dataset.frame_files``' way: each file its own dictionaries) decode to the
    frame's rows in order, every column and the jitter; asked for again, the set is the same rows, and a
    part asked for alone is its rows as decoded (one object each): each file is fetched once. A file that
    is not there is an error naming it."""
    from site_gen.data import dataset

    frame = pd.DataFrame(
        {
            "run_id": ["a", "b", "c", "d", "e"],
            "gpu": ["H200", "A100", "H200", None, "B200"],
            "tp": pd.array([1, 2, None, 8, 4], dtype="Int64"),
            "output_tps": [1.5, None, 3.25, 4.0, 1e6],
        }
    )
    files = {}
    for part in (frame.iloc[:2], frame.iloc[2:].reset_index(drop=True)):
        key, text = dataset.data_file("runs", dataset.encode(part))
        files[dataset.data_name(key)] = text
    (got,) = node([["data/payload.js", PAYLOAD_JOB, [files]]])
    want = json.loads(frame.to_json(orient="records"))
    assert [{k: r[k] for k in frame.columns} for r in got["joined"]] == want
    # the live chart's sideways offsets are the picture's (snapshot.with_jitter), the parts counted on
    jitter = snapshot.with_jitter(frame, range(5))["lb_jitter"].tolist()
    assert [r["lb_jitter"] for r in got["joined"]] == jitter
    assert got["keys"] == [",".join([*frame.columns, "lb_jitter"])] * 5  # every row the same fields, in order
    assert got["same"] and got["reused"] and got["fetched"] == [*files, "nowhere.json"]
    assert got["missing"] == "could not load the page data nowhere.json (HTTP 404)"


# A data set for the explorer's summary (issue 29): three cells with runs, one cell without any figure
# (left out of the summary), one run without a figure in a cell that has others.
SUMMARY_RUNS = [
    {"run_id": f"r{i}", "gpu": g, "gpu_order": o, "model_name": m, "precision": p, "precision_order": 1,
     "workload": "128/128", "workload_order": 1, "output_tps_per_gpu": v}
    for i, (g, o, m, p, v) in enumerate([
        ("H200", 2, "L70", "FP8", 100.0), ("H200", 2, "L70", "FP8", 140.0), ("H200", 2, "L70", "FP8", None),
        ("H200", 2, "L8", "FP8", 900.0), ("A100", 1, "L70", "FP8", 50.0), ("A100", 1, "L70", "FP8", 70.0),
        ("A100", 1, "L8", "FP16", None), ("B200", 3, "L8", "FP16", 1500.0),
    ])
]  # fmt: skip
CELL_COLUMNS = ("gpu", "model_name", "precision", "workload")
CELL_DIMS = [d.as_json() for d in dimensions.DIMENSIONS if d.column in CELL_COLUMNS]


@pytest.mark.parametrize(
    "state",
    [
        {},
        {"gpu": ["H200"]},
        {"gpu": ["A100", "B200"], "precision": ["FP16"]},
        {"model": ["L70"]},
        {"gpu": ["x"]},
    ],
)
def test_the_summary_filters_its_cells_as_every_run_would(node: Node, state: dict) -> None:
    """The explorer's summary (``dataset.best_per_cell``) filtered by its cells' dimensions in the page gives
    the best runs of the runs that filter keeps (pandas: ``mask`` then ``best_per_cell``), and each option
    counts the runs of the cells it would show (each best run weighs its ``cell_runs``): a cell without
    any figure is in neither (r6: A100 L8 FP16)."""
    from site_gen.data import dataset

    runs = pd.DataFrame(SUMMARY_RUNS)
    best = dataset.best_per_cell(runs)
    job = (
        "(m, rows, dims, state) => { const ix = m.createIndex(rows, dims, [], 'cell_runs'); "
        "return {values: ix.values, ...ix.filter(state)}; }"
    )
    rows = json.loads(best.to_json(orient="records"))
    (got,) = node([["data/crossfilter.js", job, [rows, CELL_DIMS, state]]])
    want = dataset.best_per_cell(runs[dimensions.mask(runs, state)])
    assert [r["run_id"] for r in got["rows"]] == list(want.run_id)
    figured = runs[runs.groupby(list(dataset.SUMMARY_CELL))["output_tps_per_gpu"].transform("count") > 0]
    for d in CELL_DIMS:
        others = {k: v for k, v in state.items() if k != d["key"]}
        for value, n in zip(got["values"][d["key"]], got["counts"][d["key"]], strict=True):
            assert n == int(dimensions.mask(figured, {**others, d["key"]: [value]}).sum()), (d["key"], value)
    assert "L8" in got["values"]["model"] and "FP16" in got["values"]["precision"]  # B200's cell


# The summary taking a filter on one more dimension (TP here, ``dataset.summary_by``): SUMMARY_RUNS with a TP
# each; r2 (no figure) is its cell's only TP 4 run, r4 has no TP.
TP_RUNS = [{**r, "tp": tp} for r, tp in zip(SUMMARY_RUNS, [1, 2, 4, 1, None, 2, 1, 8], strict=True)]
TP_DIM = dimensions.get("tp").as_json()


@pytest.mark.parametrize(
    "state",
    [
        {},
        {"tp": ["1"]},
        {"tp": ["2", "8"]},
        {"tp": ["4"]},
        {"tp": ["1", "2"], "gpu": ["H200"]},
        {"gpu": ["A100"], "model": ["L70"]},
        {"tp": ["16"]},
    ],
)
def test_the_summary_filters_one_more_dimension_as_every_run_would(node: Node, state: dict) -> None:
    """With the counts of each cell by TP and each TP's best runs (``dataset.summary_by``), the page gives
    the rows pandas gives (``mask`` then ``best_per_cell``) and each option, TP's included, the runs of the
    summary's cells that the other filters keep (a null TP counts for no TP, a TP without any figure for
    its runs and no point)."""
    from site_gen.data import dataset

    runs = pd.DataFrame(TP_RUNS).astype({"tp": "Int64"})
    best = dataset.best_per_cell(runs)
    counts, parts = dataset.summary_by(runs, best, "tp")
    records = lambda df: json.loads(df.to_json(orient="records"))  # noqa: E731
    (rows,) = node([["data/cells.js", "countRows", [records(counts), records(best), CELL_DIMS]]])
    job = (
        "(m, rows, dims, state) => { const ix = m.createIndex(rows, dims, [], 'cell_runs');"
        " return {values: ix.values, ...ix.filter(state)}; }"
    )
    (got,) = node([["data/crossfilter.js", job, [rows, [*CELL_DIMS, TP_DIM], state]]])
    chosen = [
        r for v, part in parts.items() if dataset.js_text(v) in state.get("tp", []) for r in records(part)
    ]
    keep = {d["column"]: state[d["key"]] for d in CELL_DIMS if d["key"] in state}
    job = (
        "(m, rows, keep, cell, figure) => m.bestPerCell(rows.filter((r) =>"
        " Object.entries(keep).every(([c, vs]) => vs.includes(String(r[c])))), cell, figure)"
    )
    (shown,) = node(
        [["data/cells.js", job, [chosen, keep, list(dataset.SUMMARY_CELL), dataset.SUMMARY_FIGURE]]]
    )
    if "tp" in state:  # no TP chosen: the summary's own rows (the test above)
        want = dataset.best_per_cell(runs[dimensions.mask(runs, state)])
        assert sorted(r["run_id"] for r in shown) == sorted(want.run_id)
    figured = runs[runs.groupby(list(dataset.SUMMARY_CELL))["output_tps_per_gpu"].transform("count") > 0]
    assert sum(r["cell_runs"] for r in got["rows"]) == int(dimensions.mask(figured, state).sum())
    for key, values in got["values"].items():
        others = {k: v for k, v in state.items() if k != key}
        for value, n in zip(values, got["counts"][key], strict=True):
            assert n == int(dimensions.mask(figured, {**others, key: [value]}).sum()), (key, value)
    assert got["values"]["tp"] == ["1", "2", "4", "8"]  # a TP without a figure is still an option


def _compare_rows() -> list[dict]:
    base = {
        "model_name": "M",
        "workload": "128/128",
        "pp": 1,
        "ep": 1,
        "publisher": "P",
        "engine": "tensorrt-llm",
        "engine_version": "1.0",
        "source_kind": "published",
        "precision_order": 1,
        "workload_order": 1,
        "version_key": 1,
        "pct_of_bound": 50.0,
    }
    rows = []
    for i, (gpu, precision, tp, metric) in enumerate(
        [
            ("H200", "FP8", 1, 100.0),
            ("H200", "FP8", 1, 120.0),
            ("A100", "FP8", 1, 60.0),
            ("H200", "FP16", 2, 80.0),
            ("A100", "FP16", 2, 20.0),
            ("A100", "FP16", 4, 30.0),
            ("H200", "FP4", 8, 500.0),
            ("B200", "FP4", 8, 900.0),
        ]
    ):
        rows.append(
            {
                **base,
                "run_id": f"r{i}",
                "gpu": gpu,
                "precision": precision,
                "tp": tp,
                "output_tps_per_gpu": metric,
            }
        )
    rows.append(
        {**rows[2], "run_id": "over", "output_tps_per_gpu": 999.0, "pct_of_bound": 140.0}
    )  # above its bound
    return rows


@pytest.mark.parametrize(
    ("a", "b", "free"),
    [
        ("H200", "A100", ""),
        ("A100", "H200", ""),
        ("H200", "B200", ""),
        ("H200", "A100", "precision"),
        ("H200", "nope", ""),
    ],
)
def test_compare_pairs_equal_pythons_matched(node: Node, a: str, b: str, free: str) -> None:
    rows = _compare_rows()
    cfg = {"metric": compare.METRIC, "excluded_kinds": list(compare.EXCLUDED_KINDS), "max_pct_of_bound": 100}
    opts = {"by": "gpu", "a": a, "b": b, "match": list(compare.MATCH), "metric": compare.METRIC, "free": free}
    (pairs,) = node(
        [["calc/compare.js", "(m, rows, cfg, opts) => m.pairs(m.usable(rows, cfg), opts)", [rows, cfg, opts]]]
    )
    where = {"free": free} if free else None
    assert len(pairs) == compare.matched(pd.DataFrame(rows), "gpu", a, b, where)
    if (a, b, free) == ("H200", "A100", ""):
        # FP8 TP1: H200's best is r1 (120 > 100); A100's r2 (60), not "over" (above its bound).
        # FP16 TP2: r3 against r4.
        assert [(p["a"]["run_id"], p["b"]["run_id"]) for p in pairs] == [("r1", "r2"), ("r3", "r4")]


def test_geomean_hand_worked(node: Node) -> None:
    got = node(
        [
            ["calc/compare.js", "geomean", [[2, 8]]],
            ["calc/compare.js", "geomean", [[]]],
            ["calc/compare.js", "geomean", [[1.5]]],
        ]
    )
    assert got[0] == pytest.approx(4.0, rel=1e-15) and got[1] is None and got[2] == pytest.approx(1.5)


@pytest.mark.parametrize(
    ("price", "gpus", "tps"), [(2.0, 1, 1000.0), (2.5, 8, 12345.6), (0.0, 4, 1.0), (1000, 1, 3.0)]
)
def test_cost_per_million_equals_python(node: Node, price: float, gpus: int, tps: float) -> None:
    (got,) = node([["format.js", "costPerMillion", [price, gpus, tps]]])
    assert got == pytest.approx(latency_views.cost_per_million_tokens(price, gpus, tps), rel=1e-15)


def test_cost_column_hand_worked_and_without_a_figure(node: Node) -> None:
    # $2/GPU-hour, 1 GPU, 1000 tok/s: 2 / 3,600,000 tokens × 10^6 = $0.5556 per million
    run = {"output_tps": 1000.0, "n_gpus": 1}
    got = node(
        [
            ["format.js", "runCost", [run, 2]],
            ["format.js", "runCost", [{**run, "output_tps": None}, 2]],
            ["format.js", "runCost", [{**run, "n_gpus": 0}, 2]],
        ]
    )
    assert got[0] == pytest.approx(5 / 9, rel=1e-15) and got[1:] == [None, None]
    assert math.isclose(got[0], latency_views.cost_per_million_tokens(2, 1, 1000.0))


FMT, TOOLTIP = "format.js", "(m, spec, v) => m.tooltipFormat(spec)(v)"


def test_number_formats_in_english_and_korean(node: Node) -> None:
    jobs = [
        ["format.js", "cell", [1234.56, True]],
        ["format.js", "cell", [None, True]],
        ["format.js", "cell", ["<b>", False]],
        ["format.js", "(m, v) => m.COST.format(v)", [5 / 9]],
        [FMT, TOOLTIP, [",.1f", 1234.56]],
        [FMT, TOOLTIP, [".0f", 1234.56]],
        [FMT, TOOLTIP, ["%", 0.5]],
    ]
    assert node(jobs) == ["1,234.6", "–", "<b>", "0.5556", "1,234.6", "1235", "0.5"]
    # Korean groups digits as English does; the formatters follow <html lang> / the catalogue's language
    assert node(jobs[:1], lang="ko") == ["1,234.6"]
    assert node([["format.js", "cell", [1234.56, True]]], lang="de") == ["1.234,6"]


def test_the_advisor_names_each_engine_once_as_the_ingest_labels_its_releases(node: Node) -> None:
    """The advisor's engine column and configuration label (advisor/html.js) from the release label the
    ingest stores (``dimensions.release_label``): a TensorRT-LLM release is a bare number, so the engine is
    named before it; any other engine's label names it already (it read "transformers transformers
    5.17.0")."""
    cases = [("tensorrt-llm", "1.2"), ("tensorrt-llm", "0.21.0"), ("transformers", "5.17.0"),
             ("vllm", "0.24.0"), ("sglang", "0.5.14")]  # fmt: skip
    configs = [{"engine": e, "version": dimensions.release_label(v, e)} for e, v in cases]
    rest = "gpu: 'G', n_gpus: 1, tp: 1, pp: 1, precision: 'FP8', publisher: 'P'"
    job = f"(m, cs) => cs.map((c) => [m.engineRelease(c), m.configLabel({{ ...c, {rest} }})])"
    got = node([["advisor/html.js", job, [configs]]])[0]
    assert [g[0] for g in got] == [
        "tensorrt-llm 1.2.0", "tensorrt-llm 0.21.0", "transformers 5.17.0", "vLLM 0.24.0", "SGLang 0.5.14"
    ]  # fmt: skip
    for (engine, _), (release, label) in zip(cases, got, strict=True):
        assert release.lower().count(engine) == 1 and f" · {release} · P" in label
