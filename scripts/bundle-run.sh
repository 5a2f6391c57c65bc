#!/usr/bin/env bash
# Runs the bundled pperf against this host's torch (the one python3 imports) and its CUDA
# libraries. usage: run.sh gpu-check [ARGS]  |  run.sh compare [ARGS]  |  run.sh pperf ARGS
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PPERF_PYTHON:-python3}"
read -r torch_lib torch_version < <("$python" -c 'import os, torch; print(os.path.join(os.path.dirname(torch.__file__), "lib"), torch.__version__)') ||
  { echo "run.sh: $python cannot import torch; set PPERF_PYTHON to the python3 that can" >&2; exit 2; }
built_against="$(cat "$here/TORCH_VERSION")"
if [ "${torch_version%%+*}" != "${built_against%%+*}" ]; then
  echo "run.sh: this bundle is built against torch $built_against, this host's python3 has torch $torch_version: rebuild it (scripts/gpu-bundle.sh --torch ${torch_version%%+*})" >&2
  exit 2
fi
# torch's own libraries find CUDA's (nvidia/*/lib) through their RPATH; pperf is linked against
# some of them directly, so they go on the path too. A torch without them (CUDA from the system,
# as in AWS's images, or a CPU build) has none: not an error.
nvidia_libs="$(find "$torch_lib/../../nvidia" -maxdepth 3 -type d -name lib 2>/dev/null | paste -sd: - || true)"
export LD_LIBRARY_PATH="$here/lib:$torch_lib${nvidia_libs:+:$nvidia_libs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PPERF_PEER_PYTHON="$python"
what="${1:-}"; shift || true
case "$what" in
  gpu-check) exec "$here/scripts/gpu-check.sh" "$here/bin/pperf" "$@" ;;
  compare) exec "$here/bench/compare_pytorch.sh" --bundle "$@" ;;  # pperf against the PyTorch peers, in rounds
  pperf) exec "$here/bin/pperf" "$@" ;;
  *) echo "usage: $0 gpu-check [ARGS] | compare [ARGS] | pperf ARGS" >&2; exit 2 ;;
esac
