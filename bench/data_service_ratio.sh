#!/usr/bin/env bash
# Benchmark (not a test): the data service's batches per CPU-second of preprocessing against the
# local loader's (pperf_data_bench, side by side in one run), repeated RUNS times for MNIST full
# and ResNet tiny, with 1 and 2 data-worker processes; prints every run's ratios, then the median
# with min..max. Goal (issue 46): >= 0.9x. Per CPU-second holds up on a shared host; the rates
# per core do not.
#
# usage: bench/data_service_ratio.sh [RUNS [BATCHES]]   (default 3 runs of 600 batches)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs="${1:-3}" batches="${2:-600}"
build="$(PPERF_TORCH=debian "$root/scripts/setup.sh")"
ninja -C "$build" pperf_data_bench >/dev/null
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
for config in p3_vs_hetero_mnist p4d_vs_hetero; do
  for ((r = 1; r <= runs; r++)); do
    "$build/pperf_data_bench" "$build/pperf" "$root/configs/$config.json" "$batches" |
      awk -v c="$config" -v r="$r" '/^service, / { print c, r, $2, $(NF) }' | tee -a "$out"
  done
done
/usr/bin/python3 - "$out" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    config, run, processes, ratio = line.split()
    rows.setdefault((config, int(processes)), []).append(float(ratio.rstrip("x")))
print("\n| workload (config) | worker processes | per CPU-second vs local loader, median (min..max) | runs |")
print("|---|---|---|---|")
for (config, processes), v in rows.items():
    print(f"| {config} | {processes} | {statistics.median(v):.2f}x ({min(v):.2f}..{max(v):.2f}) | {len(v)} |")
PY
