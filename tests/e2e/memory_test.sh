#!/usr/bin/env bash
# Memory: each item's processes run under a bound the kernel enforces (a memory cgroup; with
# PPERF_NO_MEMORY_CGROUP set, the polled fallback). An item over it fails with the limit, the
# step and the peak; the next item is still measured; nothing is left running; the host's
# memory comes back. A known allocation's peak is recorded within 10 %; a batch predicted over
# the bound is refused before anything runs, naming the item and the figure.
# usage: tests/e2e/memory_test.sh PATH/TO/pperf
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
export PPERF_CACHE_DIR="$work/cache"
for spec in "grow 256 keep" "peak 32 free"; do
  set -- $spec
  /usr/bin/python3 tests/e2e/memory_hog.py "$work/$1.pt" "$2" "$3" || { echo "FAIL cannot write $1.pt"; exit 1; }
done
config() {  # config NAME WORKLOADS-JSON [SECOND-CONFIGURATION]: torchscript workloads on one configuration (or two)
  local second=""
  [ -n "${3:-}" ] && second=', {"name": "b", "instances": [{"type": "c5.9xlarge"}]}'
  cat >"$work/$1.json" <<JSON
{"name": "$1", "pricing": {"table": "aws-ec2-us-east-1"},
 "workloads": $2,
 "measure": {"warmup_steps": 1, "min_steps": 8, "max_steps": 8, "max_seconds": 60},
 "configurations": [{"name": "a", "baseline": true, "instances": [{"type": "c5.9xlarge"}]}$second]}
JSON
}
# Memory processes hold (anonymous pages, shared memory, page tables), in KiB: what a child left
# running or a leaked segment would keep. Not MemAvailable: in a VM with a balloon the host can
# take free pages back at any time (seen here: 2 GiB "gone" with nothing holding it).
held_kib() { awk '/^(AnonPages|Shmem|PageTables):/ {s += $2} END {print s}' /proc/meminfo; }
hog() { echo "{\"name\": \"torchscript\", \"batch_size\": $2, \"params\": {\"path\": \"$work/$1.pt\", \"input_shape\": [4], \"classes\": 2}}"; }
mlp='{"name": "torchscript", "batch_size": 2, "params": {"path": "'$root'/tests/data/tiny_mlp.pt", "input_shape": [64], "classes": 10}}'
own_group=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)
left_groups() { ls -d /sys/fs/cgroup/memory"$own_group"/pperf-"$1"-* 2>/dev/null | wc -l; }  # PID of the pperf that made them

# 512 MiB kept per step (batch 2 x 256): over 2.5 GiB within a few steps; the probe (two steps
# at batch 2) fits, so the run starts and the bound ends the item: both configurations of the
# hog taking turns, each in its own process and cgroup; the next workload is measured.
config grow "[$(hog grow 2), $mlp]" two
for bound in cgroup polled; do
  before=$(held_kib)
  if [ $bound = polled ]; then export PPERF_NO_MEMORY_CGROUP=1; fi
  start=$(date +%s)
  "$pperf" run --config "$work/grow.json" --out "$work/grow-$bound.json" --max-memory 2.5 --quiet >"$work/out" 2>&1 &
  pid=$!
  wait $pid
  code=$?
  took=$(( $(date +%s) - start ))
  unset PPERF_NO_MEMORY_CGROUP
  check "$bound: a failed item is exit 1 ($code)" [ "$code" -eq 1 ]
  expected_kind=$([ $bound = polled ] && echo polled || echo "cgroup v")
  check "$bound: the item over the bound failed, naming limit, step and peak; the next item measured" json_check "$work/grow-$bound.json" "
all(__import__('re').fullmatch(r'out of memory: over the 2\.5 GiB limit at (warm-up )?step [0-9]+ \(peak [0-9.]+ GiB\)', r['reason']) for r in j['results'][:2])
all(r['status'] == 'failed' and r['memory']['limit_bytes'] == int(2.5 * 2**30) for r in j['results'][:2])
all(r['memory']['bound'].startswith('$expected_kind') for r in j['results'][:2])
all(r['status'] == 'ok' and r['memory']['processes'][0]['process'] == 'trainer' for r in j['results'][2:])
j['status'] == 'complete'"
  check "$bound: the run goes on and ends (${took} s)" [ "$took" -lt 180 ]
  check "$bound: no measuring process left" no_process "measure-item --config $work/grow.json"
  check "$bound: no memory cgroup left" [ "$(left_groups $pid)" -eq 0 ]
  after=$(held_kib)
  check "$bound: host memory back ($((before / 1024)) -> $((after / 1024)) MiB held by processes)" [ "$after" -lt $((before + 1572864)) ]
done

# 32 MiB per sample, freed each step: at batch 64 a 2 GiB block over the model's own memory.
config peak "[$(hog peak 64), $mlp]"
check "validate predicts the need" expect_exit 0 "$work/validate" "$pperf" validate --config "$work/peak.json"
grep -q "batch 64): needs about" "$work/validate" || { cat "$work/validate"; check "validate names the figure" false; }
check "the peak run" expect_exit 0 "$work/out" "$pperf" run --config "$work/peak.json" --out "$work/peak-run.json" --quiet
check "the known 2 GiB is the recorded peak over the model's own, within 10 %" json_check "$work/peak-run.json" "
abs((j['results'][0]['memory']['processes'][0]['peak_rss_bytes'] - j['results'][1]['memory']['processes'][0]['peak_rss_bytes']) / 2**31 - 1) < 0.10"
predicted=$(sed -n 's/.*batch 64): needs about \([0-9.]*\) GiB.*/\1/p' "$work/validate")
check "the probe predicted the peak within 10 % ($predicted GiB)" json_check "$work/peak-run.json" "
abs(j['results'][0]['memory']['processes'][0]['peak_rss_bytes'] / 2**30 / $predicted - 1) < 0.10"
check "a batch predicted over the bound is refused before anything runs, naming the item" one_line_error \
  "$work/peak.json: /workloads/0/batch_size: does not fit in memory \(configuration 'a'\): one training step needs about [0-9.]+ GiB at batch 64 .*the limit is 1 GiB" \
  "$pperf" run --config "$work/peak.json" --out "$work/refused.json" --max-memory 1
check "nothing ran" [ ! -e "$work/refused.json" ]
check "--max-memory must be a positive number" one_line_error "--max-memory: must be a number of GiB > 0" \
  "$pperf" run --config "$work/peak.json" --max-memory 0
finish
