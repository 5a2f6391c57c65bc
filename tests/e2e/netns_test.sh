#!/usr/bin/env bash
# Two hosts on one machine: a data worker in one network namespace, the trainer in another,
# joined by a veth pair, so batches really cross a network interface: with the token that
# off-loopback listening requires, in plaintext (--insecure) and over TLS with a throwaway CA. Exits 77 (ctest: skipped) where namespaces can't be made.
# usage: tests/netns_test.sh PATH/TO/pperf
set -uo pipefail
pperf="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
source "$root/tests/e2e/two_hosts.sh"
cleanup() {
  [ -n "${wpid:-}" ] && kill -TERM "$wpid" 2>/dev/null && wait "$wpid" 2>/dev/null
  two_hosts_down
  rm -rf "$work"
}
trap cleanup EXIT
two_hosts_up 7 || exit $?
a="$ns_a" b="$ns_b" vb="$veth_b" id=$$

# A throwaway CA and a certificate for the worker's address: batches and token travel over TLS.
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/ca.key" -out "$work/ca.pem" -days 1 -subj "/CN=pperf test CA" 2>/dev/null &&
  openssl req -newkey rsa:2048 -nodes -keyout "$work/worker.key" -out "$work/worker.csr" -subj "/CN=10.231.7.1" 2>/dev/null &&
  printf 'subjectAltName=IP:10.231.7.1\n' >"$work/ext.cnf" &&
  openssl x509 -req -in "$work/worker.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
    -out "$work/worker.pem" -days 1 -extfile "$work/ext.cnf" 2>/dev/null || { echo "FAIL: openssl"; exit 1; }
echo "netns-test-$id" >"$work/token"
export PPERF_DATA_TOKEN="netns-test-$id"   # the trainer's side of the token

# config_for NAME OUT [TLS_CA]: the tiny MNIST job fed from the worker across the veth link
config_for() {
  python3 - "$root" "$2" "${3:-}" <<'PY'
import json, sys
c = json.load(open(sys.argv[1] + "/tests/data/tiny_run.json"))
c["workloads"][0]["batch_size"] = 256
c["measure"] = {"warmup_steps": 2, "min_steps": 40, "max_steps": 40, "max_seconds": 60}
data = {"mode": "service", "endpoints": ["10.231.7.1:47123"]}
if sys.argv[3]:
    data["tls_ca"] = sys.argv[3]
c["configurations"] = [{"name": "remote-data", "baseline": True,
                        "instances": [{"type": "p3.2xlarge"}, {"type": "c5.9xlarge", "role": "data"}],
                        "execution": {"data": data}}]
json.dump(c, open(sys.argv[2], "w"))
PY
}
config_for plain "$work/plain.json"
config_for tls "$work/tls.json" "$work/ca.pem"

start_worker() {  # start_worker FLAGS...: a worker in namespace a, listening on the veth address
  ip netns exec "$a" "$pperf" data-worker --config "$work/plain.json" --listen 10.231.7.1:47123 --workers 2 \
    --token-file "$work/token" "$@" >"$work/worker.out" 2>&1 &
  wpid=$!
  for _ in $(seq 100); do grep -q "listening on" "$work/worker.out" && break; sleep 0.1; done
  grep -q "listening on 10.231.7.1:47123" "$work/worker.out" || { echo "FAIL: worker did not start"; cat "$work/worker.out"; exit 1; }
}
stop_worker() { kill -TERM "$wpid"; wait "$wpid"; wpid=; }

# Plaintext off loopback only when asked for.
ip netns exec "$a" "$pperf" data-worker --config "$work/plain.json" --listen 10.231.7.1:47123 \
  --token-file "$work/token" >"$work/refused.out" 2>&1
[ $? -eq 2 ] && grep -q "serve over TLS (--tls-cert, --tls-key) or say --insecure" "$work/refused.out" ||
  { echo "FAIL: plaintext off loopback was not refused"; cat "$work/refused.out"; exit 1; }

run_over_veth() {  # run_over_veth CONFIG OUT: run the trainer in namespace b; prints bytes received
  local before after
  before=$(ip netns exec "$b" cat "/sys/class/net/$vb/statistics/rx_bytes")
  ip netns exec "$b" "$pperf" run --config "$1" --out "$2" >"$work/run.out" 2>&1
  local code=$?
  after=$(ip netns exec "$b" cat "/sys/class/net/$vb/statistics/rx_bytes")
  echo "$((after - before))"
  return $code
}

start_worker --insecure
plain_rx=$(run_over_veth "$work/plain.json" "$work/plain-res.json") || { echo "FAIL: plaintext run"; cat "$work/run.out"; exit 1; }
stop_worker

start_worker --tls-cert "$work/worker.pem" --tls-key "$work/worker.key"
tls_rx=$(run_over_veth "$work/tls.json" "$work/tls-res.json") || { echo "FAIL: TLS run"; cat "$work/run.out"; exit 1; }
# A trainer that does not speak TLS gets nothing from a TLS worker.
run_over_veth "$work/plain.json" "$work/mismatch-res.json" >/dev/null
stop_worker

python3 - "$work" "$plain_rx" "$tls_rx" <<'PY' || exit 1
import json, sys
work, plain_rx, tls_rx = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
plain = json.load(open(work + "/plain-res.json"))["results"][0]
tls = json.load(open(work + "/tls-res.json"))["results"][0]
mismatch = json.load(open(work + "/mismatch-res.json"))["results"][0]
for name, r, rx in (("plaintext", plain, plain_rx), ("TLS", tls, tls_rx)):
    assert r["status"] == "ok", (name, r)
    assert r["execution"]["data"]["wire"] == {"format": "uint8", "bytes_per_sample": 28 * 28 + 8}, r["execution"]["data"]
    needed = 42 * 256 * 28 * 28           # 2 warmup + 40 measured batches of uint8 images at least
    assert r["execution"]["data"]["endpoints"] == ["10.231.7.1:47123"], r["execution"]
    assert rx >= needed, f"{name}: only {rx} bytes crossed the veth link, expected >= {needed}"
assert mismatch["status"] == "failed", mismatch
def mb_per_s(r, rx):
    return rx / 1e6 / (sum(r["step_time_ms"]["samples"]) / 1000)
print(f"ok: over veth, plaintext median {plain['step_time_ms']['median']:.2f} ms/step "
      f"({mb_per_s(plain, plain_rx):.0f} MB/s), TLS median {tls['step_time_ms']['median']:.2f} ms/step "
      f"({mb_per_s(tls, tls_rx):.0f} MB/s), TLS/plaintext step time {tls['step_time_ms']['median'] / plain['step_time_ms']['median']:.2f}x; "
      f"a plaintext trainer against the TLS worker failed: {mismatch['reason'][:80]}")
PY
