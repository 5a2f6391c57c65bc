#!/usr/bin/env bash
# Installs what pperf needs from Debian's packages (first use only) and builds it
# (incrementally after). Prints nothing when everything is already in place and up to date.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PPERF_BUILD_DIR:-$root/build}"

packages=(
  g++ cmake ninja-build git ca-certificates python3
  libtorch-dev libgloo-dev libopenblas0-pthread
  nlohmann-json3-dev libfmt-dev libboost-program-options-dev zlib1g-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc libssl-dev iproute2
  libsqlite3-dev
  dataset-fashion-mnist
  python3-grpcio python3-protobuf python3-torch python3-torchvision
)

"$root/scripts/ensure-packages.sh" "pperf setup" "${packages[@]}"

if [ ! -f "$build/build.ninja" ]; then
  echo "pperf setup: configuring $build" >&2
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >&2
fi
# Quiet when there is nothing to do; otherwise show ninja's progress on stderr.
if ! ninja -C "$build" -n 2>/dev/null | grep -q "no work to do"; then
  echo "pperf setup: building (first build takes a few minutes on 2 cores)" >&2
  ninja -C "$build" -j"$(nproc)" >&2
fi
