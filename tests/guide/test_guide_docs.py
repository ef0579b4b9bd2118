"""The guide pages: in the nav, numbers equal to the code and the data, markers valid, diagrams offline,
and every page rendering in real Chromium without errors or outside requests (planner included)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import duckdb
import pytest
import yaml

from bench.contract import registry
from site_gen import bound, load, markers, memory, views

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "guide"
PAGES = sorted(GUIDE.glob("[0-9][0-9]-*.md"))
GIB = 2**30


def _text(name: str) -> str:
    return (GUIDE / name).read_text(encoding="utf-8")


def _flat(text: str) -> str:
    """Page text with line breaks and admonition indents folded to single spaces (numbers span lines)."""
    return re.sub(r"\s+", " ", text)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("guide") / "runs.duckdb"
    load.ingest(ROOT / "results", path)
    return path


def test_every_guide_page_is_in_the_nav_in_order() -> None:
    class _Loader(yaml.SafeLoader):
        pass

    _Loader.add_multi_constructor("", lambda loader, suffix, node: None)  # !!python/name tags of extensions
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_Loader)
    guide = next(entry["Guide"] for entry in config["nav"] if isinstance(entry, dict) and "Guide" in entry)
    listed = [next(iter(item.values())) for item in guide]
    assert listed == [f"guide/{p.name}" for p in PAGES]
    assert len(PAGES) == 8


def test_memory_page_numbers_equal_the_planner_maths() -> None:
    page = _flat(_text("07-memory.md"))
    arch = registry.models().get("Llama 3.1 70B").model_dump()
    exact = memory.kv_bytes_per_token(arch, 2)
    simple = memory.kv_bytes_per_token_simplified(arch, 2)
    assert f"2 × 80 × 8 × 128 × 2 B = **{exact:,.0f} B = {exact / 1024:.0f} KiB**" in page
    assert f"2 × 80 × 8,192 × 2 B = {simple:,.0f} B = {simple / 2**20:.1f} MiB per token" in page
    assert simple / exact == arch["attention_heads"] / arch["kv_heads"] == 8
    assert "overstates the KV cache 8-fold for Llama 3.1 70B" in page
    assert f"**{memory.kv_bytes_per_sequence(arch, 2, 4096) / GIB:.2f} GiB**" in page

    plan = memory.plan(arch, memory.PlanInput("FP16", "FP16", 32, 4096, 4, 1))
    for part in ("weights", "kv_cache", "activations", "overhead"):
        assert f"| {getattr(plan, part) / GIB:.2f} GiB |" in page, part
    assert f"**{plan.total / GIB:.2f} GiB** of 80" in page
    free = 80 * GIB - plan.weights - plan.activations - plan.overhead
    per_seq = memory.kv_bytes_per_sequence_per_gpu(arch, 2, 4096, 4, 1)
    assert f"{free / GIB:.2f} GiB left" in page and f"is {0.9 * free / GIB:.2f} GiB" in page
    assert f"room for {int(0.9 * free // per_seq)} sequences" in page
    one_gpu = memory.plan(arch, memory.PlanInput("FP16", "FP16", 32, 4096, 1, 1))
    assert f"needs {one_gpu.total / GIB:.2f} GiB" in page

    ds = registry.models().get("DeepSeek R1").model_dump()
    ds_exact, ds_simple = memory.kv_bytes_per_token(ds, 2), memory.kv_bytes_per_token_simplified(ds, 2)
    assert (
        f"{round(ds_simple / ds_exact)} times too much: "
        f"{ds_exact:,.0f} B per token instead of {ds_simple:,.0f} B" in page
    )


def test_speed_of_light_page_worked_example_equals_the_bound() -> None:
    page = _flat(_text("08-speed-of-light.md"))
    g = registry.gpus().get("H200 SXM 141GB")
    figures = bound.GpuFigures(g.memory_gb, g.hbm_bandwidth_tb_s, bound.peak_tflops(g.tflops_dense, "FP16"))
    b = bound.output_tps_bound(
        registry.models().get("Llama 3.1 8B").model_dump(), figures, bound.RunShape("FP16", 2, 128, 128, 1)
    )
    assert b is not None
    assert f"**B = {b.batch:,}**" in page
    assert f"**{b.prefill_s * 1e3:.2f} ms**" in page
    assert f"**{b.step_s * 1e3:.1f} ms**" in page
    assert f"**{b.output_tps:,.0f} output tokens/s**" in page
    assert f"**{100 * 16_660 / b.output_tps:.1f}%**" in page


def test_quantisation_matrix_equals_the_gpu_registry() -> None:
    rows = {}
    for line in _text("05-quantisation.md").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and registry.gpus().find(cells[0]):
            rows[cells[0]] = cells[2:]
    assert set(rows) == {g.name for g in registry.gpus().entries}
    for name, cells in rows.items():
        t = registry.gpus().get(name).tflops_dense
        want = [t[k] for k in ("FP16", "BF16", "INT8", "FP8", "FP4")]
        got = [None if c == "—" else float(c.replace(",", "")) for c in cells]
        assert got == want, name


def test_figures_quoted_from_the_data_are_in_the_data(db: Path) -> None:
    con = duckdb.connect(str(db), read_only=True)

    def tps(where: str, column: str = "output_tps") -> float:
        rows = con.execute(f"SELECT max({column}) FROM runs WHERE {where}").fetchall()
        return rows[0][0]

    kisti = "publisher = 'KISTI' AND model_name = 'Llama 3.1 8B' AND workload = '128/2048' AND tp = 4"
    parallel = _flat(_text("04-parallelism.md"))
    nvlink, pcie = tps(kisti + " AND gpu = 'V100 SXM2 32GB'"), tps(kisti + " AND gpu = 'V100 PCIe 32GB'")
    assert f"{nvlink:,.0f} output tokens/s" in parallel and f"only {pcie:,.0f}" in parallel
    h100 = (
        "gpu = 'H100 SXM 80GB' AND model_name = 'Llama 3 70B' AND workload = '128/2048'"
        " AND engine_version = '0.14.0'"
    )
    fp8 = tps(h100 + " AND precision = 'FP8'", "output_tps_per_gpu")
    fp16 = tps(h100 + " AND precision = 'FP16'", "output_tps_per_gpu")
    assert f"({fp8:,.0f} against {fp16:,.0f} tokens/s per GPU)" in _flat(_text("05-quantisation.md"))
    h200 = "publisher = 'KISTI' AND gpu = 'H200 SXM 141GB' AND model_name = 'Llama 3.1 8B'"
    h200 += " AND precision = 'FP16'"
    assert tps(h200 + " AND tp = 1 AND workload = '128/128'") == 16_660


def test_every_marker_names_a_view_and_matches_runs(db: Path) -> None:
    from site_gen import queries

    runs = queries.site_runs(db)
    found = 0
    for page in PAGES:
        for m in markers.MARKER.finditer(page.read_text(encoding="utf-8")):
            mk = markers.parse(m.group(1), m.group(2))
            found += 1
            if mk.name:
                views.get(mk.name)
            assert markers.mask(runs, mk.filters).any(), (page.name, m.group(0))
    assert found >= 8


def test_diagrams_are_self_contained_svg_with_a_title() -> None:
    svgs = sorted((GUIDE / "img").glob("*.svg"))
    assert svgs
    used = " ".join(p.read_text(encoding="utf-8") for p in PAGES)
    for svg in svgs:
        root = ET.parse(svg).getroot()
        ns = "{http://www.w3.org/2000/svg}"
        assert root.find(f"{ns}title") is not None, svg.name
        text = svg.read_text(encoding="utf-8")
        assert "<script" not in text and 'href="http' not in text and "url(http" not in text, svg.name
        assert f"img/{svg.name}" in used, f"{svg.name} is not used by any guide page"


# ------------------------------------------------------------------------------------- in a browser


@pytest.fixture(scope="module")
def site_url(real_url: str) -> str:
    return real_url  # the real-results site, built and served once per session (tests/conftest.py)


@pytest.mark.browser
def test_guide_pages_render_charts_and_planner_offline(site_url: str, browser: object) -> None:
    errors: list[str] = []
    external: list[str] = []

    def route(r: object) -> None:
        url = r.request.url  # type: ignore[attr-defined]
        if url.startswith((site_url, "data:", "blob:")):
            r.continue_()  # type: ignore[attr-defined]
        else:
            external.append(url)
            r.abort()  # type: ignore[attr-defined]

    def drive(browser: object) -> None:
        context = browser.new_context(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
        context.route("**/*", route)
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        for p in PAGES:
            page.goto(f"{site_url}/guide/{p.stem}.html")
            if "<!-- " in p.read_text(encoding="utf-8"):
                page.wait_for_function("document.body.dataset.lbReady", timeout=20_000)
                assert page.locator(".lb-chart svg, .lb-chart canvas").count() >= 1, p.name
                assert page.locator(".lb-error, .lb-empty").count() == 0, p.name
        # Reached by Material's instant navigation (no full page load), the planner still mounts.
        page.goto(f"{site_url}/guide/01-inference.html")
        page.click('article a[href$="07-memory.html"]')
        page.wait_for_selector(".llmbench-planner__row")
        assert page.url == f"{site_url}/guide/07-memory.html"  # unchanged until the reader changes something
        # A shared planner link restores its state and shows the Python numbers.
        arch = registry.models().get("Mixtral 8x7B").model_dump()
        page.goto(
            f"{site_url}/guide/07-memory.html?model=mistralai/Mixtral-8x7B-v0.1&weights=FP8&kv=FP8"
            "&batch=64&seq=2048&tp=2&pp=1&max_num_tokens=4096"
        )
        page.wait_for_selector(".llmbench-planner__row")
        want = memory.plan(arch, memory.PlanInput("FP8", "FP8", 64, 2048, 2, 1, 4096))
        assert f"= {want.total / GIB:.1f} GiB" in page.inner_text(".llmbench-planner__summary")
        assert page.locator(".llmbench-planner__row").count() == len(registry.gpus().entries)

    drive(browser)
    assert errors == []
    assert external == []
