#!/usr/bin/env bash
# Installs what pperf needs from Debian's packages (first use only) and builds the `pperf`
# binary (incrementally after); prints its build directory on stdout, nothing else when all is
# in place. The torch it builds against: the one `python3 -c 'import torch'` finds unless it is
# Debian's (a GPU host's torch 2.x with CUDA, in build-torch<version>-<cuda>), else Debian's
# libtorch 1.13 (CPU, in build). PPERF_TORCH=debian forces Debian's; PPERF_BUILD_DIR names the directory.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

packages=(
  g++ cmake ninja-build git ca-certificates python3
  libtorch-dev libgloo-dev libopenblas0-pthread
  nlohmann-json3-dev libyaml-cpp-dev libfmt-dev libboost-program-options-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc libssl-dev iproute2
  libsqlite3-dev libpq-dev
)
# Fashion-MNIST and the Python side come when a configuration first asks (scripts/pperf).

# Each phase that does work is timed on stderr (bench/first_run.sh reads these lines).
phase() {  # NAME SECONDS
  echo "pperf setup: $1 took $2 s" >&2
}
"$root/scripts/ensure-packages.sh" "pperf setup" "${packages[@]}"

# Debian's own python3-torch (which the packages above install) is the same libtorch 1.13 as
# libtorch-dev: built in `build` like any Debian host, not as a torch of the host's own.
if [ "${PPERF_TORCH:-}" != debian ] &&
  python3 -c 'import sys, torch; sys.exit(torch.__file__.startswith("/usr/lib/python3/dist-packages/"))' 2>/dev/null; then
  exec "$root/scripts/build-with-torch.sh" python3 pperf
fi

build="${PPERF_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ]; then
  echo "pperf setup: configuring $build" >&2
  t0=$SECONDS
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >&2
  phase configure $((SECONDS - t0))
fi
# Only the binary: the test and benchmark binaries are scripts/test.sh's. Quiet when there is
# nothing to do; otherwise ninja's progress on stderr.
if ! ninja -C "$build" -n pperf 2>/dev/null | grep -q "no work to do"; then
  echo "pperf setup: building pperf (first build takes a few minutes on 2 cores)" >&2
  t0=$SECONDS
  ninja -C "$build" -j"$(nproc)" pperf >&2
  phase build $((SECONDS - t0))
fi
echo "$build"
