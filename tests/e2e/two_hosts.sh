# Two hosts on one machine, for tests and benchmarks that need traffic to cross a real network
# interface: network namespaces $ns_a and $ns_b joined by a veth pair ($veth_a, $veth_b) with
# addresses $ip_a and $ip_b (10.231.SUBNET.1 and .2). Sourced; needs root.
#   two_hosts_up SUBNET   returns 77 (with a SKIP line) where namespaces cannot be made, 1 on a
#                         failed set-up
#   two_hosts_down        removes both namespaces (and so the pair); safe to call twice
#   limit_rate RATE       tbf on both ends of the link (e.g. 100mbit; "off" removes it)
two_hosts_up() {
  local subnet="$1" id=$$
  ns_a="pperf-a-$id-$subnet" ns_b="pperf-b-$id-$subnet" veth_a="pva$id" veth_b="pvb$id"
  ip_a="10.231.$subnet.1" ip_b="10.231.$subnet.2"
  local err
  if ! err=$(ip netns add "$ns_a" 2>&1) || ! err=$(ip netns add "$ns_b" 2>&1); then
    echo "SKIP: cannot create network namespaces here: ${err%%$'\n'*}"
    ip netns del "$ns_a" 2>/dev/null
    return 77
  fi
  ip link add "$veth_a" type veth peer name "$veth_b" &&
    ip link set "$veth_a" netns "$ns_a" && ip link set "$veth_b" netns "$ns_b" &&
    ip -n "$ns_a" addr add "$ip_a/24" dev "$veth_a" && ip -n "$ns_b" addr add "$ip_b/24" dev "$veth_b" &&
    ip -n "$ns_a" link set "$veth_a" up && ip -n "$ns_b" link set "$veth_b" up &&
    ip -n "$ns_a" link set lo up && ip -n "$ns_b" link set lo up || { echo "FAIL: veth set-up"; return 1; }
}

two_hosts_down() {
  [ -n "${ns_a:-}" ] && ip netns del "$ns_a" 2>/dev/null
  [ -n "${ns_b:-}" ] && ip netns del "$ns_b" 2>/dev/null
  return 0
}

limit_rate() {
  local ns dev
  for ns in "$ns_a:$veth_a" "$ns_b:$veth_b"; do
    dev="${ns#*:}"; ns="${ns%%:*}"
    ip netns exec "$ns" tc qdisc del dev "$dev" root 2>/dev/null
    [ "$1" = off ] && continue
    # burst: enough for the rate's 1 ms worth (at least 32 kB); latency bounds the queue.
    ip netns exec "$ns" tc qdisc add dev "$dev" root tbf rate "$1" burst 64kb latency 400ms || return 1
  done
}

# run_two_ranks PORT LOG COMMAND...: COMMAND as rank 0 in $ns_a and rank 1 in $ns_b of a
# 2-rank group meeting at $ip_a:PORT (the launcher variables, as torchrun sets them); output to
# LOG.0 and LOG.1. Succeeds when both exit 0.
run_two_ranks() {
  local port="$1" log="$2"; shift 2
  ip netns exec "$ns_b" env RANK=1 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR="$ip_a" MASTER_PORT="$port" "$@" >"$log.1" 2>&1 &
  local one=$!
  ip netns exec "$ns_a" env RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR="$ip_a" MASTER_PORT="$port" "$@" >"$log.0" 2>&1
  local code0=$?
  wait "$one"
  local code1=$?
  [ "$code0" -eq 0 ] && [ "$code1" -eq 0 ] || { echo "  rank 0 exit $code0, rank 1 exit $code1"; tail -3 "$log.0" "$log.1"; return 1; }
}

# two_rank_config OUT WORKLOAD PRESET BATCH STEPS: a 2-rank configuration (launcher-started)
two_rank_config() {
  /usr/bin/python3 - "$@" <<'PY'
import json, sys
out, workload, preset, batch, steps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
c = {"name": "two-hosts", "pricing": {"table": "aws-ec2-us-east-1", "market": "on_demand"},
     "workloads": [{"name": workload, "preset": preset, "batch_size": batch}],
     "measure": {"warmup_steps": 2, "min_steps": steps, "max_steps": steps, "max_seconds": 300},
     "configurations": [{"name": "2x-g5.xlarge", "baseline": True,
                         "instances": [{"type": "g5.xlarge", "count": 2}],
                         "execution": {"threads": 1, "data": {"mode": "local", "workers": 1},
                                       "distributed": {"world_size": 2, "timeout_s": 120}}}]}
json.dump(c, open(out, "w"))
PY
}
