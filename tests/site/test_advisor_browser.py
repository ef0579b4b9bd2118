"""The advisor page in real headless Chromium on a site built from fixture result files (mkdocs build
--strict): inputs -> URL -> reload gives the same table, the first screen shows the answer without sideways
scrolling (1440x900 and 390x844, English and Korean), the nothing-meets message, run-card links that
resolve, hostile URL parameters and publisher names shown as text, no console errors.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import duckdb
import pytest

from bench.contract.resultfile import write_file
from site_gen.pages import advisor
from tests.site.conftest import XSS, Watched, build, free_port, result, serve

pytestmark = pytest.mark.browser

L8 = "meta-llama/Llama-3.1-8B-Instruct"
M7 = "mistralai/Mistral-7B-v0.1"


def lat_run(c: int, per_gpu: float, per_user: float, ttft90: float) -> dict:
    return {
        "parallelism": {"tp": 1},
        "workload": {"isl": 1024, "osl": 1024, "num_requests": 512, "concurrency": c},
        "metrics": {
            "output_tokens_per_s": per_gpu,
            "output_tokens_per_s_per_user": per_user,
            "ttft_ms": {"p50": ttft90 / 2, "p90": ttft90, "avg": ttft90 / 1.5},
            "tpot_ms": {"avg": 1000 / per_user},
        },
    }


@pytest.fixture(scope="module")
def advisor_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Two configurations with latency at several concurrencies (one publisher is the XSS probe) and a
    peak-only run the advisor must not ship."""
    work = tmp_path_factory.mktemp("advisor-site")
    files = {
        "a/h200.yaml": result("H200 SXM 141GB", L8, "FP8", "Fixture Lab", "1.2.0", [
            lat_run(1, 150.0, 150.0, 40.0), lat_run(8, 1000.0, 125.0, 80.0), lat_run(32, 3000.0, 94.0, 300.0),
        ]),
        "b/b200.yaml": result("B200 180GB", L8, "FP8", XSS, "1.2.0", [
            lat_run(2, 400.0, 200.0, 30.0), lat_run(16, 3500.0, 219.0, 60.0),
        ]),
        # the Pareto view's tables (Mistral 7B: 4 points, fewer than L8's 5, so the advisor still opens on L8)
        "d/h200-m7.yaml": result("H200 SXM 141GB", M7, "FP8", "Fixture Lab", "1.2.0", [
            lat_run(8, 500.0, 60.0, 100.0), lat_run(50, 1500.0, 30.0, 400.0),
        ]),
        "e/b200-m7.yaml": result("B200 180GB", M7, "FP8", "Fixture Lab", "1.2.0", [
            lat_run(44, 2000.0, 45.0, 90.0), lat_run(200, 4000.0, 20.0, 500.0),
        ]),
        "c/peak.yaml": result("A100 SXM4 80GB", L8, "FP16", "Peak Lab", "1.2.0", [
            {"parallelism": {"tp": 1}, "workload": {"isl": 1024, "osl": 1024},
             "metrics": {"output_tokens_per_s": 2000.0}},
        ]),
    }  # fmt: skip
    for name, res in files.items():
        write_file(res, work / "results" / name)
    port = free_port()
    build(work / "results", work, None, port)
    url, server = serve(work / "site", port)
    yield url
    server.shutdown()


def test_from_disk_the_page_says_how_to_serve_it(
    advisor_url: str, watched: Watched, tmp_path_factory
) -> None:
    """Module scripts do not run from file://: the placeholder's own text stays and names the command."""
    site = next(Path(p) for p in tmp_path_factory.getbasetemp().glob("advisor-site*/site"))
    watched.page.goto((site / "advisor.html").as_uri())
    watched.page.wait_for_load_state("load")
    assert "python3 -m http.server" in watched.page.text_content("#llmbench-advisor")


def _open(w: Watched, url: str) -> object:
    page = w.open(url)
    page.wait_for_selector("#llmbench-advisor[data-ready]", timeout=20_000)
    return page


def _table(page: object) -> list[list[str]]:
    return page.eval_on_selector_all(
        ".lb-advisor-table tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent))"
    )


@pytest.mark.parametrize(("width", "height", "lang"), [(1440, 900, ""), (390, 844, "ko/")])
def test_first_screen_answers_without_sideways_scrolling(
    browser: object, advisor_url: str, width: int, height: int, lang: str
) -> None:
    w = Watched(browser, width, height)
    try:
        page = _open(w, f"{advisor_url}/{lang}advisor.html")
        box = page.locator(".lb-advisor-best").bounding_box()
        assert box is not None and box["y"] + box["height"] <= height, box
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        # the defaults (TTFT p90 <= 2000 ms, >= 10 tok/s per user, 10,000 tok/s, the published prices):
        # both GPUs meet them at their top measured concurrency; the cheapest per token leads
        assert len(_table(page)) == 2
        if lang:
            assert "인스턴스" in page.text_content(".lb-advisor-table thead")
        assert w.errors == [] and w.external == [] and w.dialogs == []
    finally:
        w.close()


def test_inputs_go_to_the_url_and_a_reload_gives_the_same_table(advisor_url: str, watched: Watched) -> None:
    """TTFT p90 <= 200 ms and >= 100 tok/s per user: H200 stops between 8 and 32 (TTFT 80 -> 300 crosses
    200 at c = 8 + 24 x 120/220 = 21.1, so 21; per user 125 -> 94 crosses 100 at c = 8 + 24 x 25/31 = 27.4),
    B200 meets both up to its top point, 16."""
    page = _open(watched, f"{advisor_url}/advisor.html")
    page.fill("input[name=ttft]", "200")
    page.press("input[name=ttft]", "Enter")
    page.fill("input[name=user]", "100")
    page.press("input[name=user]", "Enter")
    page.wait_for_function("location.search.includes('user=100')")
    q = parse_qs(urlsplit(page.url).query)
    assert q["ttft"] == ["200"] and q["user"] == ["100"] and q["pct"] == ["p90"]
    before = _table(page)
    conc = {r[1]: r[6] for r in before}
    assert conc == {"H200 SXM 141GB": "21", "B200 180GB": "16"}
    assert any(
        "8" in r[12] and "32" in r[12] for r in before if r[1].startswith("H200")
    )  # says: interpolated
    page.reload()
    page.wait_for_selector("#llmbench-advisor[data-ready]", timeout=20_000)
    assert _table(page) == before
    assert page.input_value("input[name=ttft]") == "200"
    assert watched.errors == [] and watched.dialogs == []


def test_run_card_and_planner_links_resolve(advisor_url: str, watched: Watched) -> None:
    page = _open(watched, f"{advisor_url}/advisor.html")
    hrefs = page.eval_on_selector_all(".lb-advisor-table a", "as => as.map(a => a.href)")
    cards = [h for h in hrefs if "runs.html#" in h]
    planners = [h for h in hrefs if "07-memory.html?" in h]
    assert cards and planners
    q = parse_qs(urlsplit(planners[0]).query)
    assert q["model"] == [L8] and q["tp"] == ["1"] and q["weights"] == ["FP8"]
    page.goto(cards[0])
    page.wait_for_function("document.querySelector('.lb-card-fields')", timeout=20_000)
    assert "No run has the id" not in page.text_content(".lb-runcard")
    assert watched.errors == []


def test_nothing_meets_says_so_and_names_the_closest_limit(advisor_url: str, watched: Watched) -> None:
    """>= 300 tok/s per user: the nearest point is B200 at c=16 (219 tok/s per user, 37 % short), whose
    TTFT (60 ms) is within 2000."""
    page = _open(watched, f"{advisor_url}/advisor.html?user=300")
    assert page.is_visible(".lb-advisor-nothing")
    text = page.text_content(".lb-advisor-closest")
    assert "B200 180GB" in text and "16" in text and "tok/s per user" in text and "37 %" in text
    assert _table(page) == []
    assert watched.errors == []


def test_hostile_parameters_and_names_stay_text(advisor_url: str, watched: Watched) -> None:
    bad = (
        f"?model={XSS}&wl=%3Cscript%3E&ttft=1e308&user=0x10&d=-5&price.{XSS}=1"
        "&price.H200+SXM+141GB=%3Cb%3E&n=%3Cx%3E&base=%22%3E%3Cimg+src%3Dx%3E"
    )
    page = _open(watched, f"{advisor_url}/advisor.html{bad}")
    notes = page.text_content(".lb-advisor-notes")
    assert "1e308" in notes and "0x10" in notes and "-5" in notes and "<b>" in notes
    assert page.locator("#llmbench-advisor img, #llmbench-advisor script").count() == 0
    assert XSS in page.text_content("#llmbench-advisor")  # the hostile publisher, shown as text
    assert page.input_value("select[name=model]") == "Llama 3.1 8B"
    assert watched.errors == [] and watched.dialogs == [] and watched.external == []


def test_the_data_file_leaves_out_runs_that_cannot_answer(advisor_url: str) -> None:
    import urllib.request

    html = urllib.request.urlopen(f"{advisor_url}/advisor.html").read().decode()
    src = html.split('data-src="', 1)[1].split('"', 1)[0]
    data = urllib.request.urlopen(f"{advisor_url}/{src}").read().decode()
    assert "A100 SXM4 80GB" not in data and "H200 SXM 141GB" in data


def test_instant_navigation_mounts_it_and_tears_it_down(advisor_url: str, watched: Watched) -> None:
    """Material swaps pages without a reload: main.js mounts pages/advisor.js each time the advisor's page
    comes in, once, and a page change away leaves no error behind."""
    page = watched.open(f"{advisor_url}/index.html")
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    page.click("a.md-tabs__link[href$='advisor.html']")
    page.wait_for_selector("#llmbench-advisor[data-ready]", timeout=20_000)
    assert page.locator(".lb-advisor-form").count() == 1 and len(_table(page)) == 2
    page.click("a.md-tabs__link[href$='explorer.html']")
    # the explorer's content in place, not only its address: Material may push the address before it swaps
    # the page, and a Back then would find the first advisor still there, [data-ready] and about to go
    page.wait_for_function(
        "location.pathname.endsWith('explorer.html') && document.querySelector('.lb-scope')"
        " && !document.getElementById('llmbench-advisor')"
    )
    page.go_back()
    page.wait_for_selector("#llmbench-advisor[data-ready]", timeout=20_000)
    assert page.locator(".lb-advisor-form").count() == 1
    # the second mount found its data loaded: one request for it (advisor/ui.js keeps it per URL)
    src = page.get_attribute("#llmbench-advisor", "data-src").rsplit("/", 1)[-1]
    assert len([u for u in asked if u.endswith(src)]) == 1, asked
    assert watched.errors == []


def test_one_loader_runs_a_script_once_per_url_and_names_a_failed_one(
    advisor_url: str, watched: Watched
) -> None:
    """tasks.js loadScript is the page script's one classic-script loader (Vega, the planner's data): two
    calls for one URL, in either spelling (absolute or asset path), share one <script>; a missing file
    rejects with an error naming its URL and what it was, leaves no <script> behind, and a later call
    tries again (a second request reaches the server). Its loadJson fetches a data file (the advisor's,
    as the server has it) and names a missing one with its HTTP status."""
    import urllib.request

    page = _open(watched, f"{advisor_url}/advisor.html")
    asked: list[str] = []
    page.on("request", lambda r: "no-such-file" in r.url and asked.append(r.url))
    src = page.get_attribute("#llmbench-advisor", "data-src")
    out = page.evaluate(
        """async (src) => {
          const t = await import(new URL("assets/js/tasks.js", document.baseURI).href);
          const planner = new URL("assets/js/planner-data.js", document.baseURI).href;
          const count = (u) => [...document.scripts].filter((s) => s.src === u).length;
          const same = t.loadScript("assets/js/planner-data.js") === t.loadScript(planner);
          await Promise.all([t.loadScripts(["js/planner-data.js"]), t.loadScript(planner)]);
          const missing = new URL("assets/js/no-such-file.js", document.baseURI).href;
          const fail = async (load) => {
            try { await load(); return null; } catch (e) { return e.message; }
          };
          const script = () => t.loadScript(missing, { what: "the test data" });
          const first = await fail(script), second = await fail(script);
          const data = await t.loadJson(src, { what: "the advisor's data" });
          const nowhere = "assets/data/no-such-file.json";
          const json = await fail(() => t.loadJson(nowhere, { what: "the test data" }));
          return { same, planner: count(planner), left: count(missing), first, second, data, json };
        }""",
        src,
    )
    assert out["same"] and out["planner"] == 1 and out["left"] == 0
    assert "the test data" in out["first"] and "no-such-file.js" in out["first"]
    assert out["second"] == out["first"]  # tried again: a second request
    want = json.loads(urllib.request.urlopen(f"{advisor_url}/{src}").read().decode())
    assert out["data"] == want
    assert out["json"].startswith("could not load the test data ") and out["json"].endswith(
        "/assets/data/no-such-file.json (HTTP 404)"
    )
    assert len(asked) == 3  # the script twice, the JSON once
    assert all("no-such-file" in e or "404" in e for e in watched.errors), watched.errors


# --- the Pareto view's per-interactivity tables (issue 27), on the same fixture site -------------------

PARETO = "generated/views/latency-pareto.html"
H200_M7 = "H200 SXM 141GB · tensorrt-llm · FP8 · 1024/1024"
B200_M7 = "B200 180GB · tensorrt-llm · FP8 · 1024/1024"


def _site_work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return next(Path(p) for p in tmp_path_factory.getbasetemp().glob("advisor-site*"))


def _frontier_tables(page: object) -> dict[str, dict[str, str]]:
    """{table class: {series: [cell texts]}} and the column heads, read off the page."""
    return page.evaluate(
        """() => Object.fromEntries(["lb-frontier-table", "lb-frontier-advantage"].map((cls) => {
          const t = document.querySelector("table." + cls);
          return [cls, {
            head: [...t.tHead.rows[0].cells].map((c) => c.textContent),
            rows: Object.fromEntries([...t.tBodies[0].rows].map((r) =>
              [r.cells[0].textContent, [...r.cells].slice(1).map((c) => c.textContent)])),
            order: [...t.tBodies[0].rows].map((r) => r.cells[0].textContent),
          }];
        }))"""
    )


def near_the_tables(page: object) -> None:
    """Scroll to the Pareto view's tables as a reader does (they are drawn as the reader comes near them,
    pages/frontier.js) and wait until they are drawn."""
    page.locator(".lb-frontier").scroll_into_view_if_needed()
    page.wait_for_selector(".lb-frontier[data-lb-drawn] table.lb-frontier-table", timeout=20_000)


def test_pareto_tables_wait_for_the_reader_to_come_near_them(advisor_url: str, browser: object) -> None:
    """On a phone the tables are over a screen below the top: not drawn in the page load, their title
    stands in their place until the reader scrolls; a scroll near them draws them. The address #frontier
    (the advisor's link) draws them at once, and so does a window tall enough to show them at first."""
    w = Watched(browser, 390, 844)
    try:
        page = w.open(f"{advisor_url}/{PARETO}?model=Mistral+7B")
        page.wait_for_timeout(500)  # time enough for a drawing that was not held back
        box = page.locator(".lb-frontier")
        assert box.get_attribute("data-lb-drawn") is None
        assert box.evaluate("(n) => n.getBoundingClientRect().top") > 844
        assert page.inner_text(".lb-frontier h2") and page.locator(".lb-frontier table").count() == 0
        page.mouse.wheel(0, 300)  # a reader's scroll: the watch starts
        near_the_tables(page)
        page.goto("about:blank")  # a page load, not a move within the page
        page = w.open(f"{advisor_url}/{PARETO}?model=Mistral+7B#frontier")
        page.wait_for_selector(".lb-frontier[data-lb-drawn] table.lb-frontier-table", timeout=20_000)
        page.set_viewport_size({"width": 1440, "height": 3000})
        page.goto("about:blank")
        page = w.open(f"{advisor_url}/{PARETO}?model=Mistral+7B")
        assert box.evaluate("(n) => n.getBoundingClientRect().top") < 3000
        page.wait_for_selector(".lb-frontier[data-lb-drawn] table.lb-frontier-table", timeout=20_000)
        assert w.errors == []
    finally:
        w.close()


def _num(text: str) -> float | None:
    t = text.replace("★", "").replace("×", "").replace(",", "").strip()
    return None if t == "–" else float(t)


def _duckdb_table(work: Path, where: str) -> dict[str, Any]:
    """The Python twin (site_gen.pages.advisor.frontier_table) on the series a DuckDB query groups, the
    chart's way: GPU · engine · precision · workload, runs with both figures above 0."""
    con = duckdb.connect(str(work / "llmbench.duckdb"), read_only=True)
    rows = con.execute(
        "SELECT gpu || ' · ' || engine || ' · ' || precision || ' · ' || workload AS s,"
        " list(output_tps_per_user), list(output_tps_per_gpu) FROM runs"
        f" WHERE output_tps_per_user > 0 AND output_tps_per_gpu > 0 AND {where} GROUP BY s ORDER BY s"
    ).fetchall()
    con.close()
    curves = [{"label": s, "user_tps": u, "gpu_tps": g} for s, u, g in rows]
    table = advisor.frontier_table(curves, advisor.BUCKETS)
    return {"labels": [c["label"] for c in curves], **table}


@pytest.mark.parametrize(("width", "height", "lang"), [(1440, 900, ""), (390, 844, "ko/")])
def test_pareto_view_tables_are_the_charts_frontiers_read_at_each_bucket(
    browser: object,
    advisor_url: str,
    tmp_path_factory: pytest.TempPathFactory,
    width: int,
    height: int,
    lang: str,
) -> None:
    """Mistral 7B, every GPU: two series. Worked by hand (tok/s per user, tok/s per GPU):
    H200: (60, 500), (30, 1500): both on the frontier; spans 30-60: at 30 1500, at 40 1500 - 1000 x 10/30
    = 1166.7, at 50 833.3; area (60 - 30) x (1500 + 500) / 2 = 30,000.
    B200: (45, 2000), (20, 4000): spans 20-45: at 20 4000, at 30 4000 - 2000 x 10/25 = 3200, at 40 2400;
    area 25 x 6000 / 2 = 75,000, the larger: first row and the default baseline.
    Columns 20, 30, 40, 50 (5, 10, 75...: outside both); best: B200 at 20-40, H200 at 50. Advantage over
    B200: H200 at 30 1500/3200 = 0.47, at 40 1166.7/2400 = 0.49; area 30,000/75,000 = 0.40.
    The same cells come from a DuckDB query through the Python twin; the page never scrolls sideways."""
    w = Watched(browser, width, height)
    try:
        page = w.open(f"{advisor_url}/{lang}{PARETO}?model=Mistral+7B")
        near_the_tables(page)
        got = _frontier_tables(page)
        main = got["lb-frontier-table"]
        assert main["order"] == [B200_M7, H200_M7]
        assert [_num(h.split()[0]) for h in main["head"][1:-1]] == [20, 30, 40, 50]
        cells = {s: [_num(c) for c in v] for s, v in main["rows"].items()}
        assert cells[B200_M7] == [4000, 3200, 2400, None, 75000]
        assert cells[H200_M7] == [None, 1500, 1167, 833, 30000]
        assert [c.endswith("★") for c in main["rows"][B200_M7][:4]] == [True, True, True, False]
        assert main["rows"][H200_M7][3].endswith("★")
        adv = {s: [_num(c) for c in v] for s, v in got["lb-frontier-advantage"]["rows"].items()}
        assert adv[H200_M7] == [None, 0.47, 0.49, None, 0.4] and adv[B200_M7] == [1, 1, 1, None, 1]
        # the same selection through DuckDB and the Python twin
        twin = _duckdb_table(_site_work(tmp_path_factory), "model_name = 'Mistral 7B'")
        assert twin["buckets"] == [20, 30, 40, 50]
        for label, row, auc in zip(twin["labels"], twin["cells"], twin["auc"], strict=True):
            assert cells[label] == [None if v is None else round(v) for v in row] + [round(auc)]
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        if lang:
            assert "계열" in main["head"][0] and "토큰/초/사용자" in main["head"][1]
        page.screenshot(path=f"/tmp/pareto-{width}.png")
        page.locator(".lb-frontier").scroll_into_view_if_needed()
        page.screenshot(path=f"/tmp/pareto-{width}-table.png")
        assert w.errors == [] and w.external == []
    finally:
        w.close()


def test_pareto_tables_follow_the_filters_and_keep_the_baseline_in_the_address(
    advisor_url: str, watched: Watched, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A filter change redraws the tables from the chart's rows (the same DuckDB query, narrowed); the
    baseline picked is in the address and survives a reload: over H200, B200 at 30 is 3200/1500 = 2.13."""
    page = watched.open(f"{advisor_url}/{PARETO}?model=Mistral+7B")
    near_the_tables(page)
    page.select_option(".lb-frontier select[name=base]", H200_M7)
    page.wait_for_function("new URLSearchParams(location.search).get('base') !== null")
    adv = _frontier_tables(page)["lb-frontier-advantage"]["rows"]
    assert _num(adv[B200_M7][1]) == 2.13 and _num(adv[H200_M7][1]) == 1
    page.reload()
    page.wait_for_function("document.body.dataset.lbReady")
    near_the_tables(page)
    assert page.input_value(".lb-frontier select[name=base]") == H200_M7
    # the scope's filter bar drives it: one GPU ticked, the tables follow from the chart's rows
    drawn = page.get_attribute(".lb-frontier", "data-lb-drawn")
    page.click('.lb-filter[data-dim="gpu"] .lb-filter-button')
    page.check('.lb-filter[data-dim="gpu"] input[value="B200 180GB"]')
    page.wait_for_function(f"document.querySelector('.lb-frontier').dataset.lbDrawn !== '{drawn}'")
    assert parse_qs(urlsplit(page.url).query)["gpu"] == ["B200 180GB"]
    rows = _frontier_tables(page)["lb-frontier-table"]["rows"]
    twin = _duckdb_table(_site_work(tmp_path_factory), "model_name = 'Mistral 7B' AND gpu = 'B200 180GB'")
    assert list(rows) == twin["labels"] == [B200_M7]
    assert watched.errors == []


def test_the_advisor_links_to_the_pareto_tables_of_its_model_and_workload(
    advisor_url: str, watched: Watched
) -> None:
    page = _open(watched, f"{advisor_url}/advisor.html")
    href = page.get_attribute(".lb-advisor-frontier a", "href")
    q = parse_qs(urlsplit(href).query)
    assert href.startswith(PARETO) and q == {"model": ["Llama 3.1 8B"], "workload": ["1024/1024"]}
    page.click(".lb-advisor-frontier a")
    page.wait_for_selector(".lb-frontier[data-lb-drawn] table.lb-frontier-table", timeout=20_000)
    rows = _frontier_tables(page)["lb-frontier-table"]["order"]
    assert sorted(rows) == sorted(
        ["H200 SXM 141GB · tensorrt-llm · FP8 · 1024/1024", "B200 180GB · tensorrt-llm · FP8 · 1024/1024"]
    )
    assert watched.errors == []


def test_the_advisor_page_preloads_its_module_chain(advisor_url: str) -> None:
    """The advisor's modules sit at the end of an import chain (main.js -> pages/advisor.js -> ...): the
    page preloads exactly the modules reachable from pages/advisor.js that main.js does not import itself
    (the import graph of the folder, as tests/test_architecture.py reads it), each a file that is there."""
    import re
    import urllib.request

    from tests.test_architecture import JS_ROOT, js_imports

    graph = js_imports(JS_ROOT)
    reach, todo = set(), ["pages/advisor.js"]
    while todo:
        m = todo.pop()
        if m not in reach:
            reach.add(m)
            todo += graph[m]
    page = urllib.request.urlopen(f"{advisor_url}/advisor.html").read().decode()
    hrefs = re.findall(r'<link rel="modulepreload" href="([^"]+)"', page)
    # main.js imports pages/advisor.js with import() (the chain's head, preloaded); the rest it imports
    # itself is fetched with main.js anyway
    already = graph["main.js"] - {"pages/advisor.js"}
    assert sorted(hrefs) == sorted(f"assets/js/{m}" for m in reach - already)
    for h in hrefs:
        assert urllib.request.urlopen(f"{advisor_url}/{h}").status == 200
