#!/usr/bin/env bash
# The python_step workload (pperf-step-worker.py): a step that sleeps a known time (the runner's
# median within 5 % of it; the step's own prints do not disturb the protocol), one that raises
# at step k (failed, naming the exception), one that hangs (killed at params.step_timeout_s,
# failed, no process left), a module that does not import (exit 2, one line), a step whose
# batch_size differs from the config's (failed, naming both), a worker that dies mid-step, a step
# as data-parallel ranks forming its own group (pperf's ranks and the launcher convention).
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

# Ranks: the step forms its own group from the launcher variables pperf gives each rank's
# worker; the step time is the slowest rank's. pperf's own ranks (spawn_local), then two pperf
# runs under the launcher convention (RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT set by hand).
ranks_config() {  # NAME
  cat > "$work/$1.json" <<JSON
{"name": "$1", "seed": 3, "pricing": {"table": "aws-sagemaker-us-east-1"},
 "workloads": [{"name": "python_step", "batch_size": 1,
   "params": {"step": "test_steps:ranks", "kwargs": {"seconds": 0.03}, "python": "/usr/bin/python3"}}],
 "measure": {"warmup_steps": 2, "min_steps": 20, "max_steps": 20},
 "configurations": [{"name": "c", "baseline": true, "instances": [{"type": "ml.p3.2xlarge", "count": 2}],
   "execution": {"threads": 1, "distributed": {"world_size": 2, "spawn_local": {"cpus_per_rank": 1}}}}]}
JSON
}
ranks_checks() {  # OUT LAUNCHER
  check "ranks ($2): measured, the step's own group"  "[ \"\$(field '$1' 'r[\"status\"], r[\"distributed\"][\"backend\"], r[\"distributed\"][\"launcher\"]')\" = \"('ok', 'step', '$2')\" ]"
  check "ranks ($2): rank 0 met rank 1 at MASTER_ADDR:MASTER_PORT" "[ \"\$(field '$1' 'r[\"model\"][\"params\"]')\" = 201 ]"
  local median; median=$(field "$1" 'r["step_time_ms"]["median"]')
  echo "     ranks ($2): rank 0 sleeps 30 ms, rank 1 60 ms per step: median $median ms; per rank $(field "$1" '[x["median_ms"] for x in r["distributed"]["ranks"]]')"
  check "ranks ($2): the step is the slowest rank's"  "/usr/bin/python3 -c 'import sys; sys.exit(abs($median - 60) > 3)'"
  check "ranks ($2): each rank's own median recorded" "field '$1' 'r[\"distributed\"][\"ranks\"][0][\"median_ms\"] < 45 < r[\"distributed\"][\"ranks\"][1][\"median_ms\"]' | grep -q True"
}
ranks_config ranks
"$pperf" run --config "$work/ranks.json" --out "$work/ranks_out.json" > "$work/ranks.log" 2>&1 || cat "$work/ranks.log"
ranks_checks "$work/ranks_out.json" spawn_local
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
  "$pperf" run --config "$work/ranks.json" --out "$work/ranks_env1.json" > "$work/ranks_env1.log" 2>&1 &
RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
  "$pperf" run --config "$work/ranks.json" --out "$work/ranks_env.json" > "$work/ranks_env0.log" 2>&1 || cat "$work/ranks_env0.log"
wait
ranks_checks "$work/ranks_env.json" env

sleep 0.5
check "no step worker left running"         "! pgrep -f 'pperf-step-worker.py.*$work' > /dev/null"
[ $fail -eq 0 ] && echo "python_step: all passed"
exit $fail
