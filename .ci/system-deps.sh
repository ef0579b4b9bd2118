#!/usr/bin/env bash
# Install the Debian packages the test suite drives for real, only when missing:
# a browser (tests through Python playwright, never `playwright install`) and slurm-wlm + munge
# (the single-node Slurm the tests' fixture starts).
set -euo pipefail
need=()
# Any browser tests/conftest.py accepts: Debian's chromium, or Google Chrome (GitHub's Ubuntu runners ship
# it; their `chromium` package is a snap wrapper that cannot run there, so never install it on top).
command -v chromium >/dev/null || command -v google-chrome >/dev/null || command -v google-chrome-stable >/dev/null \
  || need+=(chromium)
# Playwright's own node driver (in the pip wheel) links libatomic.so.1, which a minimal Debian lacks
# (make fresh-check found it: every browser test errored with "Connection closed while reading from the
# driver"); desktop and GitHub runner images have it.
/sbin/ldconfig -p 2>/dev/null | grep -q 'libatomic\.so\.1 ' || need+=(libatomic1)
# A Korean font: the /ko/ pages' first-render checks measure real glyphs, not empty boxes (the site
# ships no web font; a reader's system has one).
fc-list :lang=ko 2>/dev/null | grep -q . || need+=(fonts-noto-cjk)
# DejaVu Sans: a chart's value labels are checked against its real glyph widths (tests/site/test_views.py)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
# slurm-wlm and munge (Debian main; Ubuntu universe, on GitHub's runner by default). Their daemons live
# in /usr/sbin, which a non-root user's PATH on Debian lacks: look there too (the fixture does).
has() { command -v "$1" >/dev/null || [ -x "/usr/sbin/$1" ]; }
has slurmctld && has slurmd && command -v sbatch >/dev/null || need+=(slurm-wlm)
has munged || need+=(munge)
if [ ${#need[@]} -gt 0 ]; then
  echo "system-deps: installing ${need[*]} (apt)"
  SUDO=$([ "$(id -u)" = 0 ] && echo "" || echo sudo)
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
