#!/usr/bin/env bash
# The torch 2.x that GPU instances run, for building and testing pperf against it on any host:
# PyPI's torch (its Linux wheel is the CUDA build; pip brings the nvidia-* CUDA wheels it names)
# in a virtual environment of its own, made once and kept across clones. Prints the venv's python.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/ensure-packages.sh" "pperf test set-up" python3-venv
version="${PPERF_TORCH2_VERSION:-2.15.0}"
venv="${PPERF_TORCH2_VENV:-/var/cache/pperf/torch-$version}"
if ! "$venv/bin/python" -c "import torch, sys; sys.exit(torch.__version__.split('+')[0] != '$version')" 2>/dev/null; then
  echo "pperf setup: installing PyPI torch $version (CUDA wheels, ~5 GB) into $venv" >&2
  mkdir -p "$(dirname "$venv")"
  # pyenv's python3 (PyPI), never Debian's /usr/bin/python3 (its modules are Debian's).
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --progress-bar off "torch==$version" numpy >&2
fi
echo "$venv/bin/python"
