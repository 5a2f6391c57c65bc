#!/usr/bin/env bash
# Benchmark (not a test): two data-parallel ranks on two hosts (network namespaces joined by a
# veth pair), the link rate-limited by tc tbf at each RATE: the gradient all-reduce, the step
# and comm_fraction as the bandwidth shrinks (seed 001's "up to N Gbps" question). Needs root.
# usage: bench/distributed_tbf.sh [PPERF] [WORKLOAD PRESET BATCH STEPS] [RATE...]
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pperf="$(readlink -f "${1:-$root/build/pperf}")"
workload="${2:-mnist_heavy}" preset="${3:-full}" batch="${4:-64}" steps="${5:-10}"
shift 5 2>/dev/null || shift $#
rates=("$@")
[ ${#rates[@]} -gt 0 ] || rates=(off 1gbit 200mbit 50mbit 10mbit)
work="$(mktemp -d)"
source "$root/tests/e2e/two_hosts.sh"
trap 'two_hosts_down; rm -rf "$work"' EXIT
two_hosts_up 10 || exit 1
cd "$root"
two_rank_config "$work/c.json" "$workload" "$preset" "$batch" "$steps"
echo "$workload/$preset, batch $batch per rank, 2 ranks (1 CPU thread each), $steps measured steps"
printf "%-12s %16s %16s %12s %14s %14s\n" "link rate" "all-reduce ms" "all-reduce p95" "step ms" "comm_fraction" "MB per step"
port=29800
for rate in "${rates[@]}"; do
  limit_rate "$rate" || { echo "tc tbf failed at $rate"; exit 1; }
  port=$((port + 1))
  run_two_ranks "$port" "$work/log" "$pperf" run --config "$work/c.json" --out "$work/r.json" --quiet || continue
  /usr/bin/python3 - "$work/r.json" "$rate" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
d = r["distributed"]
rate = "unlimited" if sys.argv[2] == "off" else sys.argv[2]
print(f"{rate:<12} {d['allreduce_ms']['median']:16.1f} {d['allreduce_ms']['p95']:16.1f} "
      f"{r['step_time_ms']['median']:12.1f} {d['comm_fraction']:14.2f} {d['bytes_per_step'] / 1e6:14.2f}")
PY
done
