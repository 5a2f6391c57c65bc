#!/usr/bin/env bash
# The whole test suite: set-up and build as scripts/pperf does, the test tools, an
# AddressSanitizer build of pperf (the data worker's shutdown test runs it), a clang ASan + UBSan
# build of the torch-free unit tests and the libFuzzer targets, then every ctest test.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
"$root/scripts/setup-test-tools.sh"
asan="${PPERF_ASAN_BUILD_DIR:-$root/build-asan}"
if [ ! -f "$asan/build.ninja" ]; then
  echo "pperf test: configuring the AddressSanitizer build in $asan" >&2
  cmake -S "$root" -B "$asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPPERF_BUILD_TESTS=OFF -DPPERF_BUILD_BENCH=OFF \
    -DCMAKE_CXX_FLAGS="-fsanitize=address -fno-omit-frame-pointer" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address" >&2
fi
ninja -C "$asan" -j"$(nproc)" pperf >&2
export PPERF_ASAN_PPERF="$asan/pperf"
sanitize="${PPERF_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
if [ ! -f "$sanitize/build.ninja" ]; then
  echo "pperf test: configuring the ASan + UBSan (clang) build in $sanitize" >&2
  cmake -S "$root" -B "$sanitize" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
    -DPPERF_SANITIZE=ON -DPPERF_BUILD_BENCH=OFF >&2
fi
ninja -C "$sanitize" -j"$(nproc)" pperf_unit_tests pperf_fuzz_config pperf_fuzz_results pperf_fuzz_price_table pperf_fuzz_data_request >&2
export PPERF_SANITIZE_BUILD_DIR="$sanitize"
cd "${PPERF_BUILD_DIR:-$root/build}"
exec ctest --output-on-failure -j"$(nproc)" "$@"
