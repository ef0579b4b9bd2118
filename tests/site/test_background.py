"""The build's worker (site_gen.pages.background) and the data files it makes while the pages render
(``Site.keep_later``): the order of its jobs, who runs a job the page needs, errors, the end of a build,
and that a page's placeholders become the keys the files would have had if encoded there and then."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pandas as pd
import pytest

from site_gen.charts.specs import ChartContext
from site_gen.data import dataset
from site_gen.pages import background, markers
from site_gen.pages.markers import Page, Site

ROOT = Path(__file__).resolve().parents[2]
WAIT = 30  # seconds a test waits for another thread before it fails instead of hanging


def test_jobs_run_in_order_in_the_worker_and_give_their_results() -> None:
    worker = background.Worker()
    ran: list[tuple[int, str]] = []
    jobs = [
        worker.submit(lambda stop, i=i: ran.append((i, threading.current_thread().name)) or i * i)
        for i in range(5)
    ]
    assert [j.result() for j in jobs] == [0, 1, 4, 9, 16]
    assert sorted(ran) == ran  # in the order given, whichever thread ran each
    assert {name for _, name in ran} <= {"llmbench-background", threading.current_thread().name}


def test_a_job_the_worker_has_not_begun_is_run_by_the_thread_that_asks() -> None:
    """The page thread never waits behind the worker's long job for one it can do itself."""
    worker = background.Worker()
    release = threading.Event()
    begun = threading.Event()

    def long(stop: threading.Event) -> str:
        begun.set()
        release.wait(WAIT)
        return threading.current_thread().name

    first = worker.submit(long)
    assert begun.wait(WAIT)
    second = worker.submit(lambda stop: threading.current_thread().name)
    assert second.result() == threading.current_thread().name  # while the worker still holds ``long``
    release.set()
    assert first.result() == "llmbench-background"


def test_a_thread_waiting_for_a_begun_job_runs_the_next_ones_meanwhile() -> None:
    """Waiting for the worker's job, the asking thread takes the queue's next job: here that job is what
    lets the worker's job end, so without it the wait would last until the worker's own timeout."""
    worker = background.Worker()
    release = threading.Event()
    begun = threading.Event()

    def held(stop: threading.Event) -> bool:
        begun.set()
        return release.wait(WAIT)  # True: released by the next job, not timed out

    first = worker.submit(held)
    assert begun.wait(WAIT)
    helper = worker.submit(lambda stop: (release.set(), threading.current_thread().name)[1])
    assert first.result() is True
    assert helper.result() == threading.current_thread().name


def test_a_jobs_error_is_raised_where_its_result_is_asked_for_and_later_jobs_still_run() -> None:
    worker = background.Worker()

    def fails(stop: threading.Event) -> None:
        raise OSError(28, "No space left on device")

    bad = worker.submit(fails)
    good = worker.submit(lambda stop: "after")
    with pytest.raises(OSError, match="No space left"):
        bad.result()
    assert good.result() == "after"


def test_an_idle_worker_holds_no_thread() -> None:
    """A serve rebuild makes a new site and worker: the old one must not keep a thread for ever."""
    worker = background.Worker()
    begun = threading.Event()

    def job(stop: threading.Event) -> threading.Thread:
        begun.set()
        return threading.current_thread()

    done = worker.submit(job)
    assert begun.wait(WAIT)  # the worker's thread took it (a job asked for first runs where asked)
    thread = done.result()
    assert thread.name == "llmbench-background"
    thread.join(WAIT)
    assert not thread.is_alive()
    assert worker.submit(lambda stop: 7).result() == 7  # and a new job starts one again


def test_cancel_stops_the_running_job_and_drops_the_queued_ones() -> None:
    worker = background.Worker()
    begun = threading.Event()

    def until_stopped(stop: threading.Event) -> bool:
        begun.set()
        return stop.wait(WAIT)

    running = worker.submit(until_stopped)
    assert begun.wait(WAIT)
    queued = worker.submit(lambda stop: "never")
    worker.cancel()
    assert running.result() is True  # it saw the stop
    with pytest.raises(background.Cancelled):
        queued.result()
    with pytest.raises(background.Cancelled):
        worker.submit(lambda stop: "after the end").result()


def test_background_work_is_stopped_and_waited_for_before_the_interpreter_finalises(tmp_path) -> None:
    """A build that ends while the worker is still encoding (an error on another page, a full disk) must
    not leave its thread inside DuckDB's or Arrow's C++ when Python finalises: a daemon thread unwound
    there aborts the process (exit -6, "FATAL: exception not rethrown", seen in CI). At exit the work is
    told to stop, and the exit waits for it: here it writes that it saw the stop."""
    seen = tmp_path / "stopped"
    script = textwrap.dedent(
        f"""
        import sys
        import threading
        from pathlib import Path
        from site_gen.pages import background

        begun = threading.Event()

        def work(stop):
            begun.set()
            stop.wait(60)  # a step longer than the build has left
            Path({str(seen)!r}).write_text("stop seen" if stop.is_set() else "timed out")

        background.Worker().submit(work)
        begun.wait(60)
        sys.exit(3)
        """
    )
    ran = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert (ran.returncode, ran.stderr) == (3, "")
    assert seen.read_text() == "stop seen"


def _runs(n: int) -> pd.DataFrame:
    """``n`` runs over three GPUs and two models, a string, an int and a float column."""
    import numpy as np

    rng = np.random.default_rng(7)
    return pd.DataFrame(
        {
            "run_id": [f"r{i:06d}" for i in range(n)],
            "gpu": rng.choice(["H100 SXM 80GB", "H200 SXM 141GB", "A100 SXM4 80GB"], n),
            "model_name": rng.choice(["Llama 3.1 8B", "Mixtral 8x7B"], n),
            "tp": rng.choice([1, 2, 4, 8], n),
            "output_tps_per_gpu": rng.gamma(2.0, 500.0, n),
        }
    )


def test_a_pages_placeholders_become_the_keys_of_the_files_encoded_at_once(monkeypatch) -> None:
    """Each GPU's file, and every run's in parts, made by the worker: the page's HTML, once resolved,
    names the files ``frame_files`` gives for the same runs at once (same keys, same parts, same
    bytes), and the site holds each of them to write."""
    monkeypatch.setattr(dataset, "ROWS_PER_PART", 400)
    runs = _runs(1000)
    site = Site(runs=runs, ctx=ChartContext(gpus=()))
    page = Page(site, "explorer.html")
    page._with_estimates = False
    mk = markers.parse("explorer", "")
    every = page._data_key([{}])
    by_gpu = page._value_files(mk, runs, "gpu")
    html = json.dumps({"every": every, "gpus": by_gpu})
    assert site.nonce in html and len(every.split()) == 3  # 1000 runs in parts of 400
    out = json.loads(site.resolve(html))
    assert site.nonce not in json.dumps(out)
    want = dataset.frame_files("runs", runs)
    assert out["every"].split() == [f.key for f in want]
    for gpu, file in out["gpus"].items():
        rows = runs[runs["gpu"] == gpu].reset_index(drop=True)
        (one,) = dataset.frame_files("runs", rows)
        assert file["key"] == one.key
        assert file["src"] == f"assets/data/{dataset.data_name(one.key)}"
        assert site.files[dataset.data_name(one.key)].text() == one.text()
    for f in want:
        assert site.files[dataset.data_name(f.key)].text() == f.text()


def test_a_text_from_a_result_file_that_looks_like_a_placeholder_is_left_alone() -> None:
    """The build's nonce is in every placeholder: a GPU named like one (a stranger's result file) stays
    as written."""
    runs = _runs(10)
    site = Site(runs=runs, ctx=ChartContext(gpus=()))
    page = Page(site, "explorer.html")
    page._with_estimates = False
    key = page._data_key([{}])
    lookalike = key.replace(site.nonce, "0123456789abcdef")
    assert site.resolve(f"{lookalike} {key}").split()[0] == lookalike


def test_a_failed_data_file_fails_the_page_that_names_it_and_the_build() -> None:
    runs = _runs(10)
    site = Site(runs=runs, ctx=ChartContext(gpus=()))

    def fails(stop: threading.Event) -> list[dataset.DataFile]:
        raise OSError(28, "No space left on device")

    key = site.keep_later(fails, 1)
    with pytest.raises(OSError, match="No space left"):
        site.resolve(f'<div data-lb-key="{key}"></div>')
    with pytest.raises(OSError, match="No space left"):
        site.settle()


def test_a_data_file_in_more_parts_than_its_page_names_is_an_error_not_a_broken_page() -> None:
    runs = _runs(10)
    site = Site(runs=runs, ctx=ChartContext(gpus=()))
    key = site.keep_later(lambda stop: dataset.frame_files("runs", runs, rows=4), 1)
    with pytest.raises(RuntimeError, match="3 parts, not the 1"):
        site.resolve(key)


PLACEHOLDER = re.compile(r"lbdata[0-9a-f]{16}x\d+x\d+")
NAMED = re.compile(r"assets/data/([\w.-]+\.json)")


def check_data_files_named(site: Path) -> int:
    """Every data file a page of ``site`` names is in the site, and no page names a placeholder: the
    worker made every file its pages were given while they rendered. Returns how many were named."""
    named: set[str] = set()
    for page in site.rglob("*.html"):
        text = page.read_text("utf-8")
        assert not PLACEHOLDER.search(text), page
        named |= set(NAMED.findall(text))
    missing = sorted(n for n in named if not (site / "assets" / "data" / n).is_file())
    assert missing == []
    return len(named)


def test_every_data_file_the_real_sites_pages_name_was_written(real_site: Path) -> None:
    assert check_data_files_named(real_site / "site") > 10
