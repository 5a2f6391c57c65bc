#!/usr/bin/env bash
# Every path a config names relative to itself, with pperf started in the config's own directory
# and the config given as a bare file name (`--config ps.json`, whose directory is ""): a
# python_step module beside it, a Python dataset beside it (the default python_path), a
# python_path entry, a price table and an interruption table, a workload's path param (a
# TorchScript file), and a data service's tls_ca (against a real TLS worker). Each is checked by `pperf run --dry-run` (or a short run), which imports the Python
# modules, loads the files and probes the memory.
# usage: tests/e2e/config_paths_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
dir=$work/cfg
mkdir -p "$dir/mods"
cp tests/data/python_step/test_steps.py python/examples/fashion_mnist_heavy.py tests/data/tiny_mlp.pt "$dir/"
cp python/examples/fashion_mnist_heavy.py "$dir/mods/mods_dataset.py"
cp pricing/tables/aws-ec2-us-east-1.json "$dir/t.json"
cp pricing/tables/aws-spot-interruptions.json "$dir/r.json"
measure='"measure": {"warmup_steps": 1, "min_steps": 3, "max_steps": 3}'
instance='"instances": [{"type": "p3.2xlarge"}]'
in_dir() { (cd "$dir" && "$@"); }  # run from the config's directory

cat >"$dir/ps.json" <<JSON
{"name": "ps", "pricing": {"table": "t.json", "interruptions": "r.json"}, $measure,
 "workloads": [{"name": "python_step", "batch_size": 1,
   "params": {"step": "test_steps:make", "kwargs": {"seconds": 0}, "python": "/usr/bin/python3"}}],
 "configurations": [{"name": "c", "baseline": true, $instance}]}
JSON
check "python_step module beside ps.json; table and interruptions as bare names: dry run" \
  expect_exit 0 "$work/ps.log" in_dir "$pperf" run --config ps.json --dry-run
check "... and a short run measures it, priced from t.json" bash -c "cd '$dir' && '$pperf' run --config ps.json --out '$work/ps.out.json' >'$work/ps.run.log' 2>&1"
check "... the result: status ok, the table's sha256 that of t.json" json_check "$work/ps.out.json" "
j['results'][0]['status'] == 'ok'
j['pricing']['sha256'] == __import__('hashlib').sha256(open('$dir/t.json', 'rb').read()).hexdigest()"

dataset_config() {  # FILE DATASET [extra data keys]
  cat >"$dir/$1" <<JSON
{"name": "ds", "pricing": {"table": "aws-ec2-us-east-1"}, $measure,
 "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 16}],
 "configurations": [{"name": "c", "baseline": true, $instance,
   "execution": {"data": {"mode": "local", "worker": "python", "dataset": "$2", "dataset_kwargs": {"split": "t10k"} ${3:-}}}}]}
JSON
}
dataset_config ds.json fashion_mnist_heavy:make
check "Python dataset beside ds.json (the default python_path): dry run" expect_exit 0 "$work/ds.log" in_dir "$pperf" run --config ds.json --dry-run
dataset_config dsp.json mods_dataset:make ', "python_path": ["mods"]'
check "python_path \"mods\": dry run" expect_exit 0 "$work/dsp.log" in_dir "$pperf" run --config dsp.json --dry-run

cat >"$dir/ts.json" <<JSON
{"name": "ts", "pricing": {"table": "aws-ec2-us-east-1"}, $measure,
 "workloads": [{"name": "torchscript", "batch_size": 8, "params": {"path": "tiny_mlp.pt", "input_shape": [64], "classes": 10}}],
 "configurations": [{"name": "c", "baseline": true, $instance}]}
JSON
check "a workload's path param (a TorchScript file) as a bare name: dry run" expect_exit 0 "$work/ts.log" in_dir "$pperf" run --config ts.json --dry-run

# tls_ca: a real TLS data worker, and the trainer trusting its certificate as the CA.
if openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$dir/ca.pem" -days 1 \
     -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" >/dev/null 2>&1; then
  cat >"$work/worker.json" <<JSON
{"name": "w", "pricing": {"table": "aws-ec2-us-east-1"},
 "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 16, "params": {"data": "synthetic"}}],
 "configurations": [{"name": "c", "baseline": true, $instance}]}
JSON
  "$pperf" data-worker --config "$work/worker.json" --tls-cert "$dir/ca.pem" --tls-key "$work/key.pem" >"$work/w.out" 2>"$work/w.err" &
  wpid=$!
  for _ in $(seq 600); do grep -q "listening on" "$work/w.out" && break; sleep 0.1; done
  endpoint=$(sed -n 's/.*listening on //p' "$work/w.out")
  cat >"$dir/tls.json" <<JSON
{"name": "tls", "pricing": {"table": "aws-ec2-us-east-1"}, $measure,
 "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 16, "params": {"data": "synthetic"}}],
 "configurations": [{"name": "c", "baseline": true, $instance,
   "execution": {"data": {"mode": "service", "endpoints": ["$endpoint"], "tls_ca": "ca.pem"}}}]}
JSON
  check "tls_ca \"ca.pem\": a short run through a TLS worker" bash -c "cd '$dir' && '$pperf' run --config tls.json --out '$work/tls.out.json' >'$work/tls.log' 2>&1"
  check "... status ok" json_check "$work/tls.out.json" "j['results'][0]['status'] == 'ok'"
  kill -TERM "$wpid"; wait "$wpid"
else
  echo "skip tls_ca: openssl cannot make a certificate"
fi
finish
