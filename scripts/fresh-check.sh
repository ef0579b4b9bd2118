#!/usr/bin/env bash
# fresh-check: the README's two commands on a bare Debian (or Ubuntu), nothing but a clone of HEAD.
#
# A debootstrap chroot (minbase) gets a `git clone` of the committed HEAD and only the packages the
# README names; then `make serve` must answer over HTTP (curl) and `make test` must pass. Prints the
# time of each step. Needs root and debootstrap on the host; runs `make fresh-check`.
#
#   scripts/fresh-check.sh                      # bookworm from deb.debian.org, the whole test command
#   FRESH_PYTEST='tests/test_workflows.py' scripts/fresh-check.sh   # make test, pytest on a subset
#   FRESH_SUITE=noble FRESH_MIRROR=http://archive.ubuntu.com/ubuntu scripts/fresh-check.sh
#   FRESH_SKIP_TEST=1 scripts/fresh-check.sh    # the serve command only
#
# Everything it writes is under build/fresh/: <suite>-minbase.tar (the debootstrapped system, cached so a
# second run unpacks it in seconds instead of debootstrapping again), <suite>-root/ (the chroot, made anew
# each run and removed at the end unless FRESH_KEEP=1), pip-cache/ (pip's download cache, shared between
# runs; a first run is cold), fresh-<suite>.log. It mounts /proc, /sys, /dev, /dev/pts and the pip cache
# inside <suite>-root only, and a trap unmounts exactly those on exit, failure or a signal.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
SUITE=${FRESH_SUITE:-bookworm}
MIRROR=${FRESH_MIRROR:-http://deb.debian.org/debian}
WORK=$REPO/build/fresh
BASE=$WORK/$SUITE-minbase.tar
ROOT=$WORK/$SUITE-root
CACHE=$WORK/pip-cache
LOG=$WORK/fresh-$SUITE.log
PORT=${FRESH_PORT:-}
# What the README tells a fresh machine to install, and nothing else: its `apt-get install` line, read
# from README.md so the two cannot drift apart.
read -r -a README_APT < <(sed -n 's/^sudo apt-get install \([^#]*\)#.*/\1/p' "$REPO/README.md" | head -n 1)
[ ${#README_APT[@]} -gt 0 ] || { echo "fresh-check: no 'sudo apt-get install ... #' line in README.md" >&2; exit 1; }
[ -n "${FRESH_NPM:-}" ] && README_APT+=(npm)

say() { printf 'fresh-check: %s\n' "$*"; }
die() { say "FAILED: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mounts)"
command -v debootstrap >/dev/null || die "debootstrap missing: apt-get install debootstrap"
mkdir -p "$WORK" "$CACHE"

CHILD=""
MOUNTS=()  # mount points this script made, unmounted in reverse order by the trap
SERVE_PID=""
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [ -n "$SERVE_PID" ]; then kill -TERM -- "-$SERVE_PID" 2>/dev/null || true; fi
  if [ -n "$CHILD" ]; then kill -TERM "$CHILD" 2>/dev/null || true; fi
  # processes left inside the chroot (a daemon of a failed test): only those whose root is ours
  local p
  for p in /proc/[0-9]*; do
    if [ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ]; then kill -KILL "${p#/proc/}" 2>/dev/null || true; fi
  done
  local i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
    umount -R "${MOUNTS[$i]}" 2>/dev/null || umount -R -l "${MOUNTS[$i]}" 2>/dev/null || say "could not unmount ${MOUNTS[$i]}"
  done
  if [ "${FRESH_KEEP:-}" != 1 ] && [ -d "$ROOT" ] && ! grep -q " $ROOT/" /proc/mounts; then
    rm -rf --one-file-system "$ROOT"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mnt() {  # mnt ARGS... TARGET: mount under the chroot and remember it
  mount "$@"
  MOUNTS+=("${!#}")
}

now() { date +%s.%N; }
# Long steps run as a background child that the script waits for: bash runs a trap only once a
# foreground command ends, while `wait` returns at once on a signal (then the trap ends the child).
bg() {
  "$@" &
  CHILD=$!
  wait "$CHILD"
}
secs() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }'; }

# 1. the base system: debootstrap once, then unpack the cached tar
if grep -q " $ROOT/" /proc/mounts; then die "$ROOT still has mounts from another run; unmount them first"; fi
rm -rf --one-file-system "$ROOT"
t=$(now)
if [ ! -s "$BASE" ]; then
  say "debootstrap $SUITE (minbase) from $MIRROR (first run; cached as $BASE)"
  keyring=()
  if [ -n "${FRESH_KEYRING:-}" ]; then keyring=(--keyring="$FRESH_KEYRING"); fi
  script=()
  [ -e "/usr/share/debootstrap/scripts/$SUITE" ] || script=(/usr/share/debootstrap/scripts/gutsy)
  bg debootstrap --variant=minbase "${keyring[@]}" "$SUITE" "$ROOT" "$MIRROR" "${script[@]}" >>"$LOG" 2>&1 \
    || die "debootstrap failed; see $LOG"
  tar -C "$ROOT" -cf "$BASE.tmp" . && mv "$BASE.tmp" "$BASE"
  say "debootstrap: $(secs "$t") s"
else
  mkdir -p "$ROOT"
  tar -C "$ROOT" -xf "$BASE"
  say "unpacked the cached $SUITE base: $(secs "$t") s"
fi

# 2. the clone: the committed HEAD and nothing beside it (uncommitted changes are not tested)
HEAD=$(git -C "$REPO" rev-parse HEAD)
git clone -q --no-checkout "$REPO" "$ROOT/root/llmbench"
git -C "$ROOT/root/llmbench" checkout -q --detach "$HEAD"
say "cloned $HEAD"

cp /etc/resolv.conf /etc/hosts "$ROOT/etc/"  # a real machine resolves its own name (sudo, Slurm)
# A host whose HTTPS goes through a TLS-intercepting proxy trusts the proxy's CA (local CAs in
# /usr/local/share/ca-certificates); the chroot gets the host's bundle for pip and npm, and says so.
# A machine on the open network needs none of this (pip brings its own CA bundle).
CA_ENV=()
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null || [ -n "${FRESH_HOST_CA:-}" ]; then
  mkdir -p "$ROOT/etc/fresh-check"
  cp "${FRESH_HOST_CA:-/etc/ssl/certs/ca-certificates.crt}" "$ROOT/etc/fresh-check/host-ca.crt"
  f=/etc/fresh-check/host-ca.crt
  CA_ENV=(PIP_CERT=$f SSL_CERT_FILE=$f REQUESTS_CA_BUNDLE=$f NODE_EXTRA_CA_CERTS=$f GIT_SSL_CAINFO=$f)
  say "the host trusts local CAs (a TLS proxy): the chroot uses the host's CA bundle for HTTPS"
fi
mnt -t proc proc "$ROOT/proc"
# the host's /sys with its cgroup mounts (slurmd needs them, as on a real machine); rslave in the same
# call, so that unmounting it here can never unmount anything of the host's
mnt --rbind --make-rslave /sys "$ROOT/sys"
mnt --bind /dev "$ROOT/dev"
mnt -t devpts -o newinstance,ptmxmode=0666 devpts "$ROOT/dev/pts"
mkdir -p "$ROOT/root/.cache/pip"
mnt --bind "$CACHE" "$ROOT/root/.cache/pip"

inside() {  # run a command in the chroot, in the clone, with a clean environment
  chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${CA_ENV[@]}" "$@"
}

# 3. what the README says to install
t=$(now)
bg inside apt-get update -qq >>"$LOG" 2>&1 || die "apt-get update failed; see $LOG"
bg inside apt-get install -y -qq --no-install-recommends "${README_APT[@]}" >>"$LOG" 2>&1 \
  || die "apt-get install ${README_APT[*]} failed; see $LOG"
say "apt-get install ${README_APT[*]}: $(secs "$t") s"

# 4. make serve: the site must answer over HTTP; then stop it
if [ -z "$PORT" ]; then PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'); fi
t=$(now)
setsid chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "${CA_ENV[@]}" \
  bash -c "cd /root/llmbench && exec make serve ADDR=127.0.0.1:$PORT" >"$WORK/serve-$SUITE.log" 2>&1 &
SERVE_PID=$!
url="http://127.0.0.1:$PORT/"
until curl -fsS -o "$WORK/index-$SUITE.html" "$url" 2>/dev/null; do
  kill -0 "$SERVE_PID" 2>/dev/null || { tail -n 30 "$WORK/serve-$SUITE.log" >&2; die "make serve exited"; }
  [ "$(secs "$t")" -lt "${FRESH_SERVE_TIMEOUT_S:-1800}" ] || die "make serve did not answer on $url"
  sleep 2
done
ready=$(secs "$t")
for page in ko/index.html explorer.html ko/explorer.html assets/js/main.js; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "$url$page")
  [ "$code" = 200 ] || die "make serve: $url$page answered $code"
done
grep -q '<title>' "$WORK/index-$SUITE.html" || die "make serve: $url is not an HTML page"
kill -TERM -- "-$SERVE_PID"
wait "$SERVE_PID" 2>/dev/null || true
curl -fsS -o /dev/null "$url" 2>/dev/null && die "make serve still answers after it was stopped"
SERVE_PID=""
say "make serve (venv, install, ingest, build, serve): answered on $url after $ready s; stopped"

# 5. make test (FRESH_PYTEST: pytest arguments instead of the whole suite, as PYTEST_ADDOPTS)
if [ -n "${FRESH_SKIP_TEST:-}" ]; then
  say "make test: skipped (FRESH_SKIP_TEST)"
  exit 0
fi
t=$(now)
rc=0
bg inside bash -c 'cd /root/llmbench && PYTEST_ADDOPTS="$1" make test' _ "${FRESH_PYTEST:-}" \
  >"$WORK/test-$SUITE.log" 2>&1 || rc=$?
tail -n 25 "$WORK/test-$SUITE.log"
[ "$rc" = 0 ] || die "make test exited $rc after $(secs "$t") s; see $WORK/test-$SUITE.log"
say "make test${FRESH_PYTEST:+ (pytest $FRESH_PYTEST)}: passed in $(secs "$t") s"
