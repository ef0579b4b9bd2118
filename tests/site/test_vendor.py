"""The vendored chart libraries: pinned, licensed; the build's Vega-Lite compiler matches Altair's Vega-Lite
major version and writes Vega of the vendored vega's major version."""

from __future__ import annotations

import hashlib
import re

import altair as alt

from tests.site.conftest import ROOT

VENDOR = ROOT / "docs" / "assets" / "vendor"


def _versions() -> dict[str, tuple[str, str, str]]:
    lines = [ln.split() for ln in (VENDOR / "VERSIONS").read_text().splitlines() if not ln.startswith("#")]
    return {name: (version, path, sha) for name, version, path, sha in lines}


def test_build_time_compiler_matches_altair_and_the_vendored_vega() -> None:
    import vl_convert

    from site_gen.charts.vega_compile import VEGA_LITE, compile_spec

    assert VEGA_LITE in vl_convert.get_vegalite_versions()
    assert VEGA_LITE.split(".")[0] == re.match(r"v(\d+)", alt.SCHEMA_VERSION).group(1)
    vega = compile_spec({"mark": "point", "data": {"name": "runs"}})
    assert (
        vega["$schema"] == f"https://vega.github.io/schema/vega/v{_versions()['vega'][0].split('.')[0]}.json"
    )
    assert "background" not in vega  # the page's theme sets it


def test_vendored_files_match_their_recorded_hashes_and_carry_licences() -> None:
    versions = _versions()
    assert set(versions) == {"vega", "vega-embed"}  # no vega-lite: compiled at build time
    for name, (version, path, sha) in versions.items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), "exact versions only"
        data = (VENDOR / path.removeprefix("build/")).read_bytes()
        assert hashlib.sha256(data).hexdigest() == sha
        assert (
            "BSD" in (VENDOR / "LICENSES" / f"{name}.LICENSE").read_text()
            or "Copyright" in (VENDOR / "LICENSES" / f"{name}.LICENSE").read_text()
        )


def test_refresh_script_pins_the_versions_recorded() -> None:
    script = (ROOT / "site_gen" / "vendor.sh").read_text()
    for name, (version, _, _) in _versions().items():
        var = name.upper().replace("-", "_")
        assert f"{var}={version}" in script
