#!/usr/bin/env bash
# The python_step workload (pperf-step-worker.py): a step that sleeps a known time (the runner's
# median within 5 % of it; the step's own prints do not disturb the protocol), one that raises
# at step k (failed, naming the exception), one that hangs (killed at params.step_timeout_s,
# failed, no process left), a module that does not import (exit 2, one line), a step whose
# batch_size differs from the config's (failed, naming both), a worker that dies mid-step.
set -uo pipefail
pperf="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
# The steps live beside the configs (found there, not on PYTHONPATH).
cp "$root/tests/data/python_step/"*.py "$work/"
field() { /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(eval(sys.argv[2]))" "$@"; }

config() {  # NAME STEP KWARGS [extra params]
  local measure='{"warmup_steps": 2, "min_steps": 20, "max_steps": 20}'
  cat > "$work/$1.json" <<JSON
{"name": "$1", "seed": 3, "pricing": {"table": "aws-sagemaker-us-east-1"},
 "workloads": [{"name": "python_step", "batch_size": ${BATCH:-1},
   "params": {"step": "$2", "kwargs": $3, "python": "/usr/bin/python3" ${4:-}}}],
 "measure": $measure,
 "configurations": [{"name": "c", "baseline": true, "instances": [{"type": "ml.p3.2xlarge"}]}]}
JSON
}

config sleep "test_steps:make" '{"seconds": 0.05}'
"$pperf" run --config "$work/sleep.json" --out "$work/sleep_out.json" > "$work/sleep.log" 2>&1
check "sleep step measured"                 "[ \"\$(field '$work/sleep_out.json' 'r[\"status\"]')\" = ok ]"
median=$(field "$work/sleep_out.json" 'r["step_time_ms"]["median"]')
echo "     sleep 50 ms: median $median ms"
check "median within 5 % of 50 ms"          "/usr/bin/python3 -c 'import sys; sys.exit(abs($median - 50) > 2.5)'"
check "model_info from the object"          "[ \"\$(field '$work/sleep_out.json' 'r[\"model\"][\"params\"]')\" = 1234 ]"
check "warmup_s recorded"                   "/usr/bin/python3 -c 'import sys; sys.exit(not 0.09 < $(field "$work/sleep_out.json" 'r["measurement"]["warmup_s"]') < 1)'"
check "user prints went to stderr"          "grep -q 'user print from step' '$work/sleep.log'"

config raise "test_steps:make" '{"seconds": 0, "fail_at": 3}'
"$pperf" run --config "$work/raise.json" --out "$work/raise_out.json" > "$work/raise.log" 2>&1
check "raising step: failed"                "[ \"\$(field '$work/raise_out.json' 'r[\"status\"]')\" = failed ]"
check "raising step: names the exception"   "field '$work/raise_out.json' 'r[\"reason\"]' | grep -q '^test_steps:make step 3 raised ValueError: loss is nan at step 3$'"

export PPERF_TEST_PIDFILE="$work/hang.pid"
config hang "test_steps:make" '{"seconds": 0, "hang_at": 4}' ', "step_timeout_s": 2'
start=$(date +%s)
"$pperf" run --config "$work/hang.json" --out "$work/hang_out.json" > "$work/hang.log" 2>&1
elapsed=$(( $(date +%s) - start ))
check "hanging step: failed"                "[ \"\$(field '$work/hang_out.json' 'r[\"status\"]')\" = failed ]"
check "hanging step: says why"              "field '$work/hang_out.json' 'r[\"reason\"]' | grep -q 'test_steps:make step 4 did not finish within 2 s (params.step_timeout_s): the Python step worker was killed'"
check "hanging step: ended in time"         "[ $elapsed -lt 30 ]"
check "hanging worker: not running"         "[ -s '$work/hang.pid' ] && ! kill -0 \$(cat '$work/hang.pid') 2>/dev/null"
unset PPERF_TEST_PIDFILE

config dies "test_steps:dies" '{"at": 3}'
"$pperf" run --config "$work/dies.json" --out "$work/dies_out.json" > "$work/dies.log" 2>&1
check "worker that dies: failed, says how"  "field '$work/dies_out.json' 'r[\"reason\"]' | grep -q 'test_steps:dies step 3: the Python step worker exited with code 3'"

config broken "broken_step:make" '{}'
"$pperf" run --config "$work/broken.json" --out "$work/broken_out.json" > "$work/broken.log" 2>&1; code=$?
check "module that does not import: exit 2" "[ $code -eq 2 ]"
check "... one line naming module and error" "[ \$(wc -l < '$work/broken.log') -eq 1 ] && grep -q \"^$work/broken.json: /workloads/0/params/step: cannot import module 'broken_step': ModuleNotFoundError: No module named 'a_module_that_is_not_installed'$\" '$work/broken.log'"

config nofactory "test_steps:nothing_here" '{}'
"$pperf" run --config "$work/nofactory.json" --out "$work/nofactory_out.json" > "$work/nofactory.log" 2>&1; code=$?
check "no such factory: exit 2, named"      "[ $code -eq 2 ] && grep -q \"module 'test_steps' has no callable 'nothing_here'\" '$work/nofactory.log'"

config batch "test_steps:make" '{"seconds": 0, "batch_size": 8}'
"$pperf" run --config "$work/batch.json" --out "$work/batch_out.json" > "$work/batch.log" 2>&1
check "step batch_size differs: failed"     "field '$work/batch_out.json' 'r[\"reason\"]' | grep -q \"the step's batch_size is 8, the config's workload batch_size is 1\""
BATCH=8 config batch8 "test_steps:make" '{"seconds": 0.01, "batch_size": 8}'
"$pperf" run --config "$work/batch8.json" --out "$work/batch8_out.json" > "$work/batch8.log" 2>&1
check "samples/s from the batch size"       "/usr/bin/python3 -c 'import sys; sys.exit(not 400 < $(field "$work/batch8_out.json" 'r["throughput"]["samples_per_s"]') < 800)'"

sleep 0.5
check "no step worker left running"         "! pgrep -f 'pperf-step-worker.py.*$work' > /dev/null"
[ $fail -eq 0 ] && echo "python_step: all passed"
exit $fail
