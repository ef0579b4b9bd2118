"""Guide test helpers. The browser tests use the session-wide ``browser`` and ``real_url`` fixtures of
tests/conftest.py (one Chromium and one real-results site for the whole suite)."""

from __future__ import annotations

from tests.conftest import CHROMIUM, CHROMIUM_ARGS

__all__ = ["CHROMIUM", "CHROMIUM_ARGS"]
