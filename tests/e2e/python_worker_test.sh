#!/usr/bin/env bash
# pperf with pperf-data-worker.py: a real run on the shipped example dataset (as a Dataset and as
# a DataLoader factory), a dataset whose
# samples do not fit the model (refused at the handshake with the reason), a module that does
# not import, a bad dataset key (exit 2 with its JSON pointer); no Python worker left running.
set -uo pipefail
pperf="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

config() {  # NAME DATASET MODE [extra data keys]
  cat > "$work/$1.json" <<JSON
{"name": "$1", "seed": 3, "pricing": {"table": "aws-sagemaker-us-east-1"},
 "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 16}],
 "measure": {"warmup_steps": 1, "min_steps": 3, "max_steps": 3},
 "configurations": [{"name": "c", "baseline": true, "instances": [{"type": "ml.p3.2xlarge"}],
   "execution": {"data": {"mode": "$3", "worker": "python", "dataset": "$2",
     "python_path": ["$root/python/examples", "$root/python/tests", "$work"] $4}}}]}
JSON
}

config real "fashion_mnist_heavy:make" local ', "dataset_kwargs": {"split": "t10k"}'
"$pperf" run --config "$work/real.json" --out "$work/real_out.json" > "$work/real.log" 2>&1
check "example dataset measured"    "grep -q '\"status\": \"ok\"' '$work/real_out.json'"
check "its data source recorded"    "grep -q 'python:fashion_mnist_heavy:make' '$work/real_out.json'"

# The same pipeline given as the user's DataLoader factory.
config loader "fashion_mnist_heavy:loader" local ', "dataset_kwargs": {"split": "t10k", "batch_size": 16}'
sed -i 's/"dataset": "fashion_mnist_heavy:loader"/"dataloader": "fashion_mnist_heavy:loader"/' "$work/loader.json"
"$pperf" run --config "$work/loader.json" --out "$work/loader_out.json" > "$work/loader.log" 2>&1
check "a DataLoader factory measured" "grep -q '\"status\": \"ok\"' '$work/loader_out.json'"
sed -i 's/"t10k", "batch_size": 16}/"t10k", "batch_size": 32}/' "$work/loader.json"
"$pperf" run --config "$work/loader.json" --out "$work/loader_out.json" > "$work/loader.log" 2>&1; code=$?
check "a DataLoader of another batch size: exit 2 naming it" "[ $code -eq 2 ] && grep -q \"/execution/data/dataloader: --dataloader fashion_mnist_heavy:loader: the DataLoader's batch_size is 32, the workload's is 16\" '$work/loader.log'"

config spawned "fashion_mnist_heavy:make" service ', "dataset_kwargs": {"split": "t10k"}, "spawn_local": {"processes": 2}'
"$pperf" run --config "$work/spawned.json" --out "$work/spawned_out.json" > "$work/spawned.log" 2>&1
check "two spawned Python workers"  "grep -q '\"status\": \"ok\"' '$work/spawned_out.json'"

config toy "toy_datasets:make" local ''
"$pperf" run --config "$work/toy.json" --out "$work/toy_out.json" > "$work/toy.log" 2>&1; code=$?
check "shape mismatch: exit 2"      "[ $code -eq 2 ]"
check "shape mismatch: one line"    "[ \$(wc -l < '$work/toy.log') -eq 1 ] && grep -q '^$work/toy.json: /configurations/0/execution/data/dataset: --dataset toy_datasets:make: inputs: the pipeline serves float32\[1,4,4\] per sample, the model takes float32\[1,28,28\]$' '$work/toy.log'"

config broken "broken_module:make" local ''
"$pperf" run --config "$work/broken.json" --out "$work/broken_out.json" > "$work/broken.log" 2>&1; code=$?
check "module that does not import: exit 2"  "[ $code -eq 2 ]"
check "module that does not import: named"   "grep -q \"/configurations/0/execution/data/dataset: --dataset broken_module:make: module 'broken_module' does not import\" '$work/broken.log'"

# A worker already running (endpoints) that serves other tensors: refused at its handshake.
/usr/bin/python3 "$(dirname "$pperf")/pperf-data-worker.py" --dataset toy_datasets:make --python-path "$root/python/tests:$work" \
  --batch-size 16 --seed 3 > "$work/endpoint.txt" 2>/dev/null &
toy_pid=$!
for _ in $(seq 100); do grep -q "listening on" "$work/endpoint.txt" && break; sleep 0.1; done
endpoint="$(awk '{print $NF}' "$work/endpoint.txt")"
config remote "toy_datasets:make" service ", \"endpoints\": [\"$endpoint\"]"
"$pperf" run --config "$work/remote.json" --out "$work/remote_out.json" > "$work/remote.log" 2>&1
check "endpoint with other tensors refused at the handshake" "grep -q 'does not fit workload mnist_heavy: inputs: the worker serves float32\[1,4,4\] per sample, the model takes float32\[1,28,28\]' '$work/remote_out.json'"

# A Python worker killed mid-run: the dropped-worker event, the other worker goes on.
config dying "fashion_mnist_heavy:make" service ', "dataset_kwargs": {"split": "t10k"}, "spawn_local": {"processes": 2}'
sed -i 's/"min_steps": 3, "max_steps": 3/"min_steps": 3, "max_steps": 1000000, "max_seconds": 12, "target_rel_ci": 0.0001/' "$work/dying.json"
"$pperf" run --config "$work/dying.json" --out "$work/dying_out.json" > "$work/dying.log" 2>&1 &
run_pid=$!
victim=""
for _ in $(seq 300); do
  victim="$(pgrep -f -- "pperf-data-worker.py .*--dataset fashion_mnist_heavy:make .*$work" | head -1)"
  [ -n "$victim" ] && grep -q "started" "$work/dying.log" 2>/dev/null && break; sleep 0.1
done
# Killed once it streams (a worker killed before its handshake fails the run instead).
for _ in $(seq 300); do ss -Htnp state established 2>/dev/null | grep -q "pid=$victim," && break; sleep 0.1; done
sleep 2; [ -n "$victim" ] && kill -KILL "$victim"
wait $run_pid
check "killed Python worker: dropped event" "grep -q 'data worker 127.0.0.1:[0-9]* dropped after' '$work/dying_out.json'"
check "killed Python worker: still measured" "grep -q '\"status\": \"ok\"' '$work/dying_out.json'"
kill "$toy_pid" 2>/dev/null; wait "$toy_pid" 2>/dev/null

config bad "not a module" local ''
"$pperf" validate --config "$work/bad.json" > "$work/bad.log" 2>&1; code=$?
check "bad dataset: exit 2"         "[ $code -eq 2 ]"
check "bad dataset: JSON pointer"   "grep -q '/configurations/0/execution/data/dataset: expected \"module:factory\"' '$work/bad.log'"

sleep 1
check "no Python worker left"       "! pgrep -f -- '$work' > /dev/null"
[ $fail -eq 0 ] || for f in "$work"/*.log; do echo "== $f"; tail -n 5 "$f"; done
exit $fail
