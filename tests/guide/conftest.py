"""Guide test helpers: a Chromium session that coexists with other test modules' Playwright sessions.

Playwright's sync API refuses to start while another sync session holds the thread's event loop (the site
tests keep a session-wide browser open), so each guide browser test drives its own Chromium from a fresh
worker thread.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from typing import Any, TypeVar

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

T = TypeVar("T")


def with_browser(fn: Callable[[Any], T]) -> T:
    """Run ``fn(browser)`` with a fresh headless Chromium in a worker thread; exceptions propagate."""

    def work() -> T:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                return fn(browser)
            finally:
                browser.close()

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(work).result()
