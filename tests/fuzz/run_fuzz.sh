#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time over its committed corpus (read-only: new inputs
# go to a temporary directory). Fails on any crash, leak, undefined behaviour or timeout.
# usage: run_fuzz.sh NAME [SECONDS]   (binary: $PPERF_SANITIZE_BUILD_DIR/pperf_fuzz_NAME,
# made by scripts/test.sh with clang; skipped, exit 77, when it is not there)
set -uo pipefail
name="$1"; seconds="${2:-${PPERF_FUZZ_SECONDS:-30}}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
binary="${PPERF_SANITIZE_BUILD_DIR:-$root/build-sanitize}/pperf_fuzz_$name"
[ -x "$binary" ] || { echo "skipped: no $binary (scripts/test.sh builds it with clang)"; exit 77; }
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
cd "$work"  # crash-* files land here, and are printed below
export PPERF_DATA_DIR="$root"
# libFuzzer's own exit code for a finding is 77, which ctest reads as "skipped" here: say 1.
"$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -error_exitcode=1 \
  "$work" "$root/tests/fuzz/corpus/$name" 2>"$work/log"
code=$?
grep -E "^(stat::number_of_executed_units|stat::new_units_added|Done [0-9]+ runs)" "$work/log"
if [ "$code" -ne 0 ]; then
  tail -60 "$work/log"
  for f in crash-* leak-* timeout-* oom-*; do [ -e "$f" ] && { echo "input $f (base64):"; base64 "$f"; }; done
fi
exit "$code"
