#!/usr/bin/env bash
# The torch-free unit tests built with ASan + UBSan (scripts/test.sh builds them in
# build-sanitize; skipped, exit 77, when that build is not there).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
binary="${PPERF_SANITIZE_BUILD_DIR:-$root/build-sanitize}/pperf_unit_tests"
[ -x "$binary" ] || { echo "skipped: no $binary (scripts/test.sh builds it)"; exit 77; }
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
exec "$binary" --gtest_brief=1
