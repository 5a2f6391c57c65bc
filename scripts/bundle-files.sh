#!/usr/bin/env bash
# The layout every pperf bundle shares (scripts/gpu-bundle.sh builds one; the SageMaker job test
# packs its binary under test the same way): pperf's data beside bin/ as share/pperf (price
# tables, configs, schemas, Python examples), the PyTorch peers, scripts/gpu-check.sh, the
# SageMaker entry point (sagemaker-entry.sh: `pperf launch sagemaker --framework` makes the bundle,
# packed as sourcedir.tar.gz, the job's source directory), run.sh (scripts/bundle-run.sh: starts
# the bundled pperf against the host's torch) and TORCH_VERSION (the torch run.sh requires).
# usage: scripts/bundle-files.sh --out DIR --torch-version VERSION [--pperf BINARY]
#   --pperf BINARY  also bin/pperf (a copy), the Python workers beside BINARY and REQUIRES
#                   (scripts/bundle-abi.sh)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="" torch_version="" pperf=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --torch-version) torch_version="$2"; shift 2 ;;
    --pperf) pperf="$2"; shift 2 ;;
    *) echo "bundle-files: unknown argument '$1' (usage: see the top of $0)" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] && [ -n "$torch_version" ] || { echo "bundle-files: --out and --torch-version are required" >&2; exit 2; }
mkdir -p "$out/bin" "$out/share/pperf/python" "$out/share/pperf/pricing" "$out/bench" "$out/scripts"
# pperf's data: found beside the binary as share/pperf (src/core/data_dir.cpp).
cp -r "$root/pricing/tables" "$root/pricing/sources" "$out/share/pperf/pricing/"
cp -r "$root/configs" "$root/schemas" "$out/share/pperf/"
cp -r "$root/python/examples" "$out/share/pperf/python/"
cp -r "$root/bench/peers" "$out/bench/"
cp "$root/bench/compare_pytorch.sh" "$root/bench/rounds.py" "$root/bench/compare_traces.py" "$out/bench/"
cp "$root/scripts/gpu-check.sh" "$out/scripts/"
cp "$root/scripts/sagemaker-entry.sh" "$out/"
cp "$root/scripts/bundle-run.sh" "$out/run.sh"
chmod +x "$out/run.sh" "$out/sagemaker-entry.sh"
echo "$torch_version" > "$out/TORCH_VERSION"
if [ -n "$pperf" ]; then
  cp "$pperf" "$out/bin/pperf"
  for f in pperf-data-worker.py pperf-step-worker.py data_service_pb2.py; do
    [ ! -e "$(dirname "$pperf")/$f" ] || cp "$(dirname "$pperf")/$f" "$out/bin/"
  done
  "$root/scripts/bundle-abi.sh" "$out" > "$out/REQUIRES"
fi
