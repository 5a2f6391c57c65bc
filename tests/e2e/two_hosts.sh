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
