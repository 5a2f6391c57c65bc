#!/usr/bin/env bash
# A/A on this host: two identical configurations (same workload, same instances, same CPU), a
# CPU-bound process starting on the trainer's CPU part-way through the run. Counts how often
# pperf decides a difference (cheaper or dearer) between them, measured in turns and with
# --sequential. Identical configurations can only be "equivalent" or "undecided" when right.
#
# usage: bench/aa_neighbour.sh [--runs R] [--pperf BIN]     (about R x 2 x 40 s)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs=4 pperf="$root/build/pperf"
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --pperf) pperf="$2"; shift 2 ;;
    *) echo "usage: $0 [--runs R] [--pperf BIN]" >&2; exit 2 ;;
  esac
done
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
cat >"$work/aa.json" <<JSON
{
  "name": "aa-neighbour",
  "pricing": {"table": "aws-ec2-us-east-1", "market": "on_demand"},
  "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 32}],
  "measure": {"warmup_steps": 5, "min_steps": 10, "max_steps": 3000, "max_seconds": 15, "target_rel_ci": 0.01},
  "configurations": [
    {"name": "a", "baseline": true, "instances": [{"type": "p3.2xlarge", "count": 1, "role": "dnn"}],
     "execution": {"threads": 1, "cpus": [0], "data": {"mode": "local", "workers": 1}}},
    {"name": "b", "instances": [{"type": "p3.2xlarge", "count": 1, "role": "dnn"}],
     "execution": {"threads": 1, "cpus": [0], "data": {"mode": "local", "workers": 1}}}
  ]
}
JSON
for mode in interleaved sequential; do
  decided=0
  for run in $(seq "$runs"); do
    flag=""; [ "$mode" = sequential ] && flag="--sequential"
    "$pperf" run --config "$work/aa.json" --out "$work/r.json" --quiet $flag &
    pid=$!
    # The neighbour: a busy loop pinned to CPU 0 from 5 s on, until the run ends.
    ( sleep 5; exec taskset -c 0 sh -c 'while :; do :; done' ) &
    hog=$!
    wait "$pid" || true
    kill "$hog" 2>/dev/null || true; wait "$hog" 2>/dev/null || true
    line=$(python3 -c "
import json; r = json.load(open('$work/r.json'))['results'][1]; d = r.get('decision') or {}
b = d.get('improvement_pct_bounds') or [float('nan')] * 2
print(d.get('verdict'), '%+.1f' % r['improvement_pct'], '[%+.1f, %+.1f]' % tuple(b), d.get('looks'))")
    echo "$mode run $run: $line"
    case "$line" in cheaper*|dearer*) decided=$((decided + 1)) ;; esac
  done
  echo "$mode: $decided of $runs runs decided a difference between identical configurations"
done
