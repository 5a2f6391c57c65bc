#!/usr/bin/env bash
# README command 1 as a new user meets it, timed: a clean clone of this repository's HEAD, no
# compiler cache, then `./scripts/pperf run --config CONFIG`. Prints each phase of the first use
# (packages, configure, build: scripts/setup.sh's own lines), the measurement, and the time to the
# first table. Packages already installed take 0 s here: on a fresh Debian 12 machine (as root) the
# same command gives the README's figures.
# --rev REV times another commit the same way (an earlier one's setup may not report its phases:
# its total and CPU time still compare); run both in one session for a ratio.
# usage: bench/first_run.sh [--rev REV] [CONFIG]   (default: HEAD, configs/p4d_vs_hetero.json)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
rev=HEAD
if [ "${1:-}" = --rev ]; then rev="$2"; shift 2; fi
config="${1:-configs/p4d_vs_hetero.json}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
git clone -q "$root" "$work/pperf"
cd "$work/pperf"
git checkout -q "$rev"
start=$SECONDS
status=0
env -u CMAKE_CXX_COMPILER_LAUNCHER -u CMAKE_C_COMPILER_LAUNCHER -u PPERF_BUILD_DIR CCACHE_DISABLE=1 \
  ./scripts/pperf run --config "$config" --out "$work/results.json" >"$work/table.txt" 2>"$work/stderr.txt" || status=$?
total=$((SECONDS - start))
if ((status > 1)); then
  echo "bench/first_run.sh: pperf run exited $status:" >&2
  tail -20 "$work/stderr.txt" >&2
  exit 1
fi
seconds() {  # PATTERN: the seconds scripts/setup.sh's line reported, 0 when it had nothing to do
  sed -n "s/^pperf setup: $1 \([0-9]*\) s$/\1/p" "$work/stderr.txt" | tail -1 | grep . || echo 0
}
packages=$(seconds "installed [0-9]* packages in") configure=$(seconds "configure took") build=$(seconds "build took")
measure=$((total - packages - configure - build))
echo "First use of README command 1 on a clean clone ($(git rev-parse --short HEAD), $(nproc) CPUs, no compiler cache):"
printf '  %-10s %5s s\n' packages "$packages" configure "$configure" build "$build" measure "$measure"
printf '  %-10s %5s s  (%d min %02d s) to the first table\n' total "$total" $((total / 60)) $((total % 60))
# CPU seconds are what a busy host does not inflate: on a quiet host with N CPUs the build takes
# about its CPU seconds / N.
times >"$work/times.txt"
tail -1 "$work/times.txt" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/)
  printf "  CPU time of the whole command: %.0f s (build and measurement, user + system)\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }'
