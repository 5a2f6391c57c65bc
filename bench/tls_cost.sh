#!/usr/bin/env bash
# The price of TLS on the data path: one data worker serving over TLS against one in plaintext
# (and the local loader), measured side by side in one run by pperf_data_bench, with a
# throwaway CA and a certificate for 127.0.0.1.
# usage: bench/tls_cost.sh [BATCHES]   (after scripts/setup.sh; needs openssl)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PPERF_BUILD_DIR:-$root/build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/ca.key" -out "$work/ca.pem" -days 1 -subj "/CN=pperf bench CA" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -keyout "$work/w.key" -out "$work/w.csr" -subj "/CN=127.0.0.1" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$work/ext.cnf"
openssl x509 -req -in "$work/w.csr" -CA "$work/ca.pem" -CAkey "$work/ca.key" -CAcreateserial -out "$work/w.pem" \
  -days 1 -extfile "$work/ext.cnf" 2>/dev/null
# Synthetic MNIST at batch 1024: 3.2 MB per batch, cheap to make, so the transport dominates.
cat >"$work/c.json" <<'JSON'
{"name": "tls-cost", "pricing": {"table": "aws-ec2-us-east-1"},
 "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 1024, "params": {"data": "synthetic"}}],
 "configurations": [{"name": "a", "baseline": true, "instances": [{"type": "p3.2xlarge"}]}]}
JSON
"$build/pperf_data_bench" "$build/pperf" "$work/c.json" "${1:-200}" "$work/w.pem" "$work/w.key" "$work/ca.pem"
