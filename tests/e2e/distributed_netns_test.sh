#!/usr/bin/env bash
# Two data-parallel ranks on two hosts for real: rank 0 in one network namespace, rank 1 in
# another, joined by a veth pair; gradients cross the link. Then the same with the link
# rate-limited by tc tbf: the all-reduce and the step grow. Exits 77 (ctest: skipped) where
# namespaces can't be made.
# usage: tests/e2e/distributed_netns_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$root/tests/e2e/two_hosts.sh"
trap 'two_hosts_down; [ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
two_hosts_up 8 || exit $?

two_rank_config "$work/c.json" mnist_heavy tiny 64 10
rx() { ip netns exec "$ns_a" cat "/sys/class/net/$veth_a/statistics/rx_bytes"; }
before=$(rx)
check "two ranks in two namespaces form a group over the veth link" \
  run_two_ranks 29611 "$work/log" "$pperf" run --config "$work/c.json" --out "$work/free.json" --quiet
received=$(( $(rx) - before ))
check "rank 0's result: two ranks, gradients crossed the link" json_check "$work/free.json" "
j['results'][0]['status'] == 'ok' and j['results'][0]['distributed']['world_size'] == 2
j['results'][0]['distributed']['launcher'] == 'env'
$received >= j['results'][0]['distributed']['bytes_per_step'] * 10 / 2
"
check "tbf at 20 Mbit/s on the link" limit_rate 20mbit
check "the same group over the limited link" \
  run_two_ranks 29612 "$work/log" "$pperf" run --config "$work/c.json" --out "$work/slow.json" --quiet
check "the all-reduce and the step grow as the bandwidth shrinks" /usr/bin/python3 - "$work/free.json" "$work/slow.json" <<'PY'
import json, sys
free, slow = (json.load(open(p))["results"][0] for p in sys.argv[1:])
f, s = free["distributed"], slow["distributed"]
print(f"  unlimited: all-reduce {f['allreduce_ms']['median']:.2f} ms, step {free['step_time_ms']['median']:.1f} ms, "
      f"comm {f['comm_fraction']:.2f}; 20 Mbit/s: all-reduce {s['allreduce_ms']['median']:.2f} ms, "
      f"step {slow['step_time_ms']['median']:.1f} ms, comm {s['comm_fraction']:.2f}")
assert slow["status"] == "ok"
assert s["allreduce_ms"]["median"] > 2 * f["allreduce_ms"]["median"]
assert slow["step_time_ms"]["median"] > free["step_time_ms"]["median"]
assert s["comm_fraction"] > f["comm_fraction"]
PY
finish
