#!/usr/bin/env bash
# Benchmark (not a test): Gloo all-reduce bus bandwidth of a 2-rank group at 1, 4 and 25 MiB
# against the raw TCP rate of the same link, over loopback and over a veth pair between two
# network namespaces (needs root). Target: all-reduce bus bandwidth >= 0.7 of raw TCP.
# usage: bench/distributed_bandwidth.sh [BUILD_DIR]
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench="$(readlink -f "${1:-$root/build}")/pperf_distributed_bench"
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

echo "== loopback (2 ranks on this host)"
port=$(free_port)
"$bench" allreduce 1 2 127.0.0.1 "$port" >/dev/null &
"$bench" allreduce 0 2 127.0.0.1 "$port"
wait

source "$root/tests/e2e/two_hosts.sh"
trap two_hosts_down EXIT
two_hosts_up 9 || exit 0
echo "== veth pair (rank 0 in $ns_a, rank 1 in $ns_b)"
ip netns exec "$ns_b" "$bench" allreduce 1 2 "$ip_a" 29711 >/dev/null &
ip netns exec "$ns_a" "$bench" allreduce 0 2 "$ip_a" 29711
wait
