#!/usr/bin/env bash
# An installed pperf works from any directory: `cmake --install BUILD --prefix P`, then
# P/bin/pperf finds its price tables under P/share/pperf, not in the source tree.
# usage: tests/e2e/install_test.sh BUILD_DIR
set -euo pipefail
build="$1"
prefix="$(mktemp -d)"
elsewhere="$(mktemp -d)"
trap 'rm -rf "$prefix" "$elsewhere"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
test -x "$prefix/bin/pperf"
test -f "$prefix/share/pperf/pricing/tables/aws-ec2-us-east-1.json"
for s in config results compare; do test -f "$prefix/share/pperf/schemas/$s.schema.json"; done
# A copy of the tables that differs from the source tree's proves which one is read.
sed -i 's/"retrieved": "[^"]*"/"retrieved": "1999-01-01"/' "$prefix/share/pperf/pricing/tables/aws-ec2-us-east-1.json"
cd "$elsewhere"
cat > cost.json <<'JSON'
{"name": "installed", "pricing": {"table": "aws-ec2-us-east-1"},
 "workloads": [{"name": "x", "batch_size": 8}],
 "configurations": [{"name": "a", "baseline": true, "instances": [{"type": "p3.2xlarge"}], "step_time_ms": 100}]}
JSON
env -u PPERF_DATA_DIR "$prefix/bin/pperf" list instances --pricing aws-ec2-us-east-1 | grep -q "retrieved 1999-01-01" \
  || { echo "installed pperf did not read its own share/pperf tables"; exit 1; }
env -u PPERF_DATA_DIR "$prefix/bin/pperf" cost --config cost.json --out out.json >/dev/null
grep -q '"retrieved": "1999-01-01"' out.json || { echo "cost did not use the installed tables"; exit 1; }
"$prefix/bin/pperf" --version | grep -qE '^pperf [0-9.]+ \([0-9a-f]{40}(-dirty)?\), built against libtorch [0-9.]+, (CPU only|CUDA [0-9.]+, (NCCL [0-9.]+|no NCCL))$' \
  || { echo "--version: $("$prefix/bin/pperf" --version)"; exit 1; }
# The Python data worker installs next to pperf and finds its protobuf classes in share/pperf/python.
test -x "$prefix/bin/pperf-data-worker.py"
test -f "$prefix/share/pperf/python/data_service_pb2.py"
code=0; worker_out="$("$prefix/bin/pperf-data-worker.py" --dataset nowhere:make --batch-size 4 2>&1)" || code=$?
[ "$code" -eq 2 ] && grep -q "module 'nowhere' does not import" <<<"$worker_out" \
  || { echo "installed pperf-data-worker.py: exit $code: $worker_out"; exit 1; }
echo "1 passed, 0 failed"
