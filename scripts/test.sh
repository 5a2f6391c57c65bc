#!/usr/bin/env bash
# The whole test suite, against both torches pperf is built with:
#  1. Debian's libtorch 1.13 (CPU): set-up and build as scripts/pperf does, plus the test and
#     benchmark binaries, the test tools, an AddressSanitizer build of pperf (the data worker's
#     shutdown test runs it), a clang ASan + UBSan build of the torch-free unit tests and the
#     libFuzzer targets; then every ctest test.
#  2. PyPI's torch 2.x with CUDA and NCCL (scripts/setup-torch2.sh): every CUDA and NCCL line
#     compiled and linked; the torch tests and the end-to-end tests that need no GPU run on the CPU.
# Arguments go to both ctest runs (e.g. -R distributed).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Each phase's wall time, printed at the end (and on an early exit): where CI's minutes go.
phases=() phase_start=$SECONDS suite_start=$SECONDS
phase_done() {  # NAME: the phase that just ended
  phases+=("$(printf '  %-34s %5d s' "$1" $((SECONDS - phase_start)))")
  phase_start=$SECONDS
}
print_phases() {
  echo "pperf test: time by phase" >&2
  printf '%s\n' "${phases[@]}" >&2
  printf '  %-34s %5d s\n' total $((SECONDS - suite_start)) >&2
}
trap print_phases EXIT
"$root/scripts/setup-test-tools.sh"
phase_done "test tools (Debian packages)"
# A compiler cache outside the tree: CI builds four trees from a clean clone each time, and most
# translation units have not changed since the last run. Keyed on paths relative to the clone.
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  export CCACHE_DIR="${CCACHE_DIR:-/var/cache/pperf/ccache}" CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
  export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
  export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-15G}"
fi
build="$(PPERF_TORCH=debian "$root/scripts/setup.sh")"
ninja -C "$build" -j"$(nproc)" >&2
phase_done "build: Debian libtorch 1.13"
asan="${PPERF_ASAN_BUILD_DIR:-$root/build-asan}"
if [ ! -f "$asan/build.ninja" ]; then
  echo "pperf test: configuring the AddressSanitizer build in $asan" >&2
  cmake -S "$root" -B "$asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPPERF_BUILD_TESTS=OFF -DPPERF_BUILD_BENCH=OFF \
    -DCMAKE_CXX_FLAGS="-fsanitize=address -fno-omit-frame-pointer" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address" >&2
fi
ninja -C "$asan" -j"$(nproc)" pperf >&2
export PPERF_ASAN_PPERF="$asan/pperf"
phase_done "build: AddressSanitizer pperf"
sanitize="${PPERF_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
if [ ! -f "$sanitize/build.ninja" ]; then
  echo "pperf test: configuring the ASan + UBSan (clang) build in $sanitize" >&2
  cmake -S "$root" -B "$sanitize" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
    -DPPERF_SANITIZE=ON -DPPERF_BUILD_BENCH=OFF >&2
fi
ninja -C "$sanitize" -j"$(nproc)" pperf_unit_tests pperf_fuzz_config pperf_fuzz_results pperf_fuzz_price_table pperf_fuzz_data_request >&2
export PPERF_SANITIZE_BUILD_DIR="$sanitize"
phase_done "build: clang ASan + UBSan"

torch2_python="$("$root/scripts/setup-torch2.sh")"
phase_done "PyPI torch 2.x venv"
# The launch platforms' own code (botocore, moto, sagemaker-training, ...), made once before the
# tests that use it run in parallel.
"$root/scripts/setup-launch-venv.sh" >/dev/null
phase_done "launch platforms' venv"
torch2="$(env -u PPERF_BUILD_DIR "$root/scripts/build-with-torch.sh" "$torch2_python" \
          pperf pperf_torch_tests pperf_results_roundtrip)"
phase_done "build: PyPI torch 2.x"

status=0
echo "pperf test: Debian libtorch 1.13 ($build)" >&2
(cd "$build" && ctest --output-on-failure -j"$(nproc)" "$@") || status=1
phase_done "tests: Debian libtorch 1.13"
echo "pperf test: PyPI torch 2.x with CUDA and NCCL, on the CPU ($torch2)" >&2
(cd "$torch2" && ctest --output-on-failure -j"$(nproc)" -L torch2 "$@") || status=1
phase_done "tests: PyPI torch 2.x"
exit $status
