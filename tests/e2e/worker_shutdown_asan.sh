#!/usr/bin/env bash
# A data worker stopped while it streams, again and again, under AddressSanitizer: it must exit
# 0 within seconds every time, with no memory error (a worker once crashed in make_batch at
# shutdown). Streams come from a real trainer (`pperf run` against the worker's endpoint).
# usage: tests/e2e/worker_shutdown_asan.sh PATH/TO/pperf [PATH/TO/asan/pperf]
set -uo pipefail
pperf="$1"
asan_pperf="${2:-${PPERF_ASAN_PPERF:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build-asan/pperf}}"
rounds="${ROUNDS:-6}"
[ -x "$asan_pperf" ] || { echo "SKIP: no AddressSanitizer build at $asan_pperf (scripts/test.sh makes one)"; exit 77; }
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:exitcode=86
cat >"$work/worker.json" <<'JSON'
{"name": "asan", "pricing": {"table": "aws-ec2-us-east-1"},
 "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 64, "params": {"data": "synthetic"}}],
 "configurations": [{"name": "a", "baseline": true, "instances": [{"type": "p3.2xlarge"}]}]}
JSON
passed=0 failed=0
for round in $(seq "$rounds"); do
  "$asan_pperf" data-worker --config "$work/worker.json" --workers 2 >"$work/w.out" 2>"$work/w.err" &
  wpid=$!
  for _ in $(seq 1200); do grep -q "listening on" "$work/w.out" && break; sleep 0.1; done  # ASan start-up is slow on a busy host
  endpoint=$(sed -n 's/.*listening on //p' "$work/w.out")
  [ -n "$endpoint" ] || { echo "FAIL round $round: worker did not start"; cat "$work/w.err"; failed=$((failed + 1)); continue; }
  python3 - "$work/worker.json" "$work/trainer.json" "$endpoint" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["measure"] = {"warmup_steps": 0, "min_steps": 100000, "max_steps": 100000, "max_seconds": 60}
c["configurations"][0]["execution"] = {"data": {"mode": "service", "endpoints": [sys.argv[3]]}}
json.dump(c, open(sys.argv[2], "w"))
PY
  "$pperf" run --config "$work/trainer.json" --out "$work/r.json" >/dev/null 2>&1 &
  tpid=$!
  sleep "$(( (round % 3) + 1 ))"  # stop at different points of the stream
  start=$(date +%s.%N)
  kill -TERM "$wpid"
  wait "$wpid"
  code=$?
  took=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')")
  kill -INT "$tpid" 2>/dev/null; wait "$tpid" 2>/dev/null
  if [ "$code" -eq 0 ] && ! grep -q "AddressSanitizer" "$work/w.err" && python3 -c "import sys; sys.exit(float('$took') >= 6)"; then
    passed=$((passed + 1)); echo "ok   round $round: exit 0 in ${took} s"
  else
    failed=$((failed + 1)); echo "FAIL round $round: exit $code in ${took} s"; head -30 "$work/w.err"
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
