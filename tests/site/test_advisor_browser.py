"""The advisor page in real headless Chromium on a site built from fixture result files (mkdocs build
--strict): inputs -> URL -> reload gives the same table, the first screen shows the answer without sideways
scrolling (1440x900 and 390x844, English and Korean), the nothing-meets message, run-card links that
resolve, hostile URL parameters and publisher names shown as text, no console errors.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from bench.contract.resultfile import write_file
from tests.site.conftest import XSS, Watched, build, free_port, result, serve

pytestmark = pytest.mark.browser

L8 = "meta-llama/Llama-3.1-8B-Instruct"


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
    """Material swaps pages without a reload: the entry mounts on document$ each time the advisor's page
    comes in, once, and a page change away leaves no error behind."""
    page = watched.open(f"{advisor_url}/index.html")
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url))
    page.click("a.md-tabs__link[href$='advisor.html']")
    page.wait_for_selector("#llmbench-advisor[data-ready]", timeout=20_000)
    assert page.locator(".lb-advisor-form").count() == 1 and len(_table(page)) == 2
    page.click("a.md-tabs__link[href$='explorer.html']")
    page.wait_for_function("location.pathname.endsWith('explorer.html')")
    page.go_back()
    page.wait_for_selector("#llmbench-advisor[data-ready]", timeout=20_000)
    assert page.locator(".lb-advisor-form").count() == 1
    # the second mount found its data loaded: one request for it (tasks.js loads each URL once)
    src = page.get_attribute("#llmbench-advisor", "data-src").rsplit("/", 1)[-1]
    assert len([u for u in asked if u.endswith(src)]) == 1, asked
    assert watched.errors == []


def test_one_loader_runs_a_script_once_per_url_and_names_a_failed_one(
    advisor_url: str, watched: Watched
) -> None:
    """tasks.js loadScript is the page script's one classic-script loader (Vega, the planner's data, the
    page data, the advisor's data): two calls for one URL, in either spelling (absolute or asset path), share
    one <script>; a missing file rejects with an error naming its URL and what it was, leaves no <script>
    behind, and a later call tries again (a second request reaches the server)."""
    page = _open(watched, f"{advisor_url}/advisor.html")
    asked: list[str] = []
    page.on("request", lambda r: "no-such-file.js" in r.url and asked.append(r.url))
    # the advisor loaded its data through it: one <script> for its URL, the same promise on a second call
    src = page.get_attribute("#llmbench-advisor", "data-src")
    out = page.evaluate(
        """async (src) => {
          const t = await import(new URL("assets/js/tasks.js", document.baseURI).href);
          const abs = new URL(src, document.baseURI).href;
          const count = (u) => [...document.scripts].filter((s) => s.src === u).length;
          const same = t.loadScript(src) === t.loadScript(abs);
          await t.loadScript(abs);
          const planner = new URL("assets/js/planner-data.js", document.baseURI).href;
          await Promise.all([t.loadScripts(["js/planner-data.js"]), t.loadScript(planner)]);
          const missing = new URL("assets/js/no-such-file.js", document.baseURI).href;
          const fail = async () => {
            try { await t.loadScript(missing, { what: "the test data" }); return null; }
            catch (e) { return e.message; }
          };
          const first = await fail(), second = await fail();
          return { same, data: count(abs), planner: count(planner), left: count(missing), first, second };
        }""",
        src,
    )
    assert out["same"] and out["data"] == 1 and out["planner"] == 1 and out["left"] == 0
    assert "the test data" in out["first"] and "no-such-file.js" in out["first"]
    assert out["second"] == out["first"] and len(asked) == 2  # tried again: a second request
    assert all("no-such-file.js" in e or "404" in e for e in watched.errors), watched.errors
