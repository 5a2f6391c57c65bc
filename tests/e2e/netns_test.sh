#!/usr/bin/env bash
# Two hosts on one machine: a data worker in one network namespace, the trainer in another,
# joined by a veth pair, so batches really cross a network interface (with the token that
# off-loopback listening requires). Exits 77 (ctest: skipped) where namespaces can't be made.
# usage: tests/netns_test.sh PATH/TO/pperf
set -uo pipefail
pperf="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
id=$$
a="pperf-a-$id" b="pperf-b-$id" va="pva$id" vb="pvb$id"
work="$(mktemp -d)"
cleanup() {
  [ -n "${wpid:-}" ] && kill -TERM "$wpid" 2>/dev/null && wait "$wpid" 2>/dev/null
  ip netns del "$a" 2>/dev/null; ip netns del "$b" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

if ! ip netns add "$a" 2>"$work/err" || ! ip netns add "$b" 2>>"$work/err"; then
  echo "SKIP: cannot create network namespaces here: $(head -1 "$work/err")"
  exit 77
fi
ip link add "$va" type veth peer name "$vb" &&
  ip link set "$va" netns "$a" && ip link set "$vb" netns "$b" &&
  ip -n "$a" addr add 10.231.7.1/24 dev "$va" && ip -n "$b" addr add 10.231.7.2/24 dev "$vb" &&
  ip -n "$a" link set "$va" up && ip -n "$b" link set "$vb" up &&
  ip -n "$a" link set lo up && ip -n "$b" link set lo up || { echo "FAIL: veth set-up"; exit 1; }

python3 - "$root" "$work/cfg.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1] + "/tests/data/tiny_run.json"))
c["measure"] = {"warmup_steps": 1, "min_steps": 20, "max_steps": 20, "max_seconds": 60}
c["configurations"] = [{"name": "remote-data", "baseline": True,
                        "instances": [{"type": "p3.2xlarge"}, {"type": "c5.9xlarge", "role": "data"}],
                        "execution": {"data": {"mode": "service", "endpoints": ["10.231.7.1:47123"]}}}]
json.dump(c, open(sys.argv[2], "w"))
PY

export PPERF_DATA_TOKEN="netns-test-$id"
ip netns exec "$a" "$pperf" data-worker --config "$work/cfg.json" --listen 10.231.7.1:47123 >"$work/worker.out" 2>&1 &
wpid=$!
for _ in $(seq 100); do grep -q "listening on" "$work/worker.out" && break; sleep 0.1; done
grep -q "listening on 10.231.7.1:47123" "$work/worker.out" || { echo "FAIL: worker did not start"; cat "$work/worker.out"; exit 1; }

rx_before=$(ip netns exec "$b" cat "/sys/class/net/$vb/statistics/rx_bytes")
ip netns exec "$b" "$pperf" run --config "$work/cfg.json" --out "$work/res.json" >"$work/run.out" 2>&1 ||
  { echo "FAIL: run over the veth link"; cat "$work/run.out"; exit 1; }
rx_after=$(ip netns exec "$b" cat "/sys/class/net/$vb/statistics/rx_bytes")

python3 - "$work/res.json" "$((rx_after - rx_before))" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
rx = int(sys.argv[2])
batch_bytes = 32 * 28 * 28 * 4            # tiny_run's batch of float32 images
needed = 21 * batch_bytes                 # 1 warmup + 20 measured batches at least
assert r["status"] == "ok", r
assert r["execution"]["data"]["endpoints"] == ["10.231.7.1:47123"], r["execution"]
assert rx >= needed, f"only {rx} bytes crossed the veth link, expected >= {needed}"
print(f"ok: {r['step_time_ms']['n']} steps fed over veth, {rx / 1e6:.1f} MB received, "
      f"median {r['step_time_ms']['median']:.2f} ms/step")
PY
