#!/usr/bin/env bash
# Builds pperf against the torch that PYTHON imports (a GPU host's own torch, a DLAMI's, an NGC
# container's, or the venv scripts/setup-torch2.sh makes), in a build directory named by its
# version and CUDA (build-torch2.15.0-cu132); CUDA and NCCL on when that torch has them.
# Prints the build directory on stdout; progress goes to stderr.
# usage: scripts/build-with-torch.sh PYTHON [NINJA TARGET...]   (default target: pperf)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="$1"; shift
targets=("${@:-pperf}")
# version, CUDA ("cpu" without), torch's directory (its lib/ must win over any system libtorch),
# its CMake prefix, NCCL's version or "none".
read -r version cuda torch_dir cmake_prefix nccl < <("$python" -c '
import os, torch, torch.utils
cuda = torch.version.cuda
nccl = "none"
if cuda and torch.distributed.is_nccl_available():
    nccl = ".".join(map(str, torch.cuda.nccl.version()))
print(torch.__version__.split("+")[0], "cu" + cuda.replace(".", "") if cuda else "cpu",
      os.path.dirname(torch.__file__), torch.utils.cmake_prefix_path, nccl)')
build="${PPERF_TORCH_BUILD_DIR:-$root/build-torch$version-$cuda}"
if [ ! -f "$build/build.ninja" ]; then
  echo "pperf setup: configuring $build against torch $version ($cuda, NCCL $nccl) from $torch_dir" >&2
  cuda_args=()
  if [ "$cuda" != cpu ]; then
    # libtorch's CMake needs the CUDA toolkit (nvcc, cudart, NVRTC) at configure time.
    nvcc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
    [ -x "$nvcc" ] || { echo "pperf setup: torch $version is a CUDA build; its CMake files need the CUDA toolkit (nvcc not found; docs/gpu.md)" >&2; exit 2; }
    cuda_args=(-DCMAKE_CUDA_COMPILER="$nvcc")
    [ "$nccl" != none ] || cuda_args+=(-DPPERF_WITH_NCCL=OFF)
  fi
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_PREFIX_PATH="$cmake_prefix;$torch_dir" "${cuda_args[@]}" >&2
fi
if ! ninja -C "$build" -n "${targets[@]}" 2>/dev/null | grep -q "no work to do"; then
  echo "pperf setup: building ${targets[*]} in $build (torch $version)" >&2
  ninja -C "$build" -j"$(nproc)" "${targets[@]}" >&2
fi
echo "$build"
