#!/usr/bin/env bash
# The whole test suite: set-up and build as scripts/pperf does, then every ctest test.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
cd "${PPERF_BUILD_DIR:-$root/build}"
exec ctest --output-on-failure -j"$(nproc)" "$@"
