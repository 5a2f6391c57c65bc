#!/usr/bin/env bash
# Sweeps from outside (docs/config.md "Sweeps"): `validate` lists the points; a bad sweep is one
# line naming the file and the pointer, exit 2 (unknown axis, a grid over 64 points, a point this
# host cannot run, in validate and run alike); a small sweep runs in seconds, its points race, it
# names a best point and the points equivalent to it, and its results file validates. The console
# block fits 100 columns; --only picks points by name; batch_size and precision axes run the
# workload at each point's values (spawned data workers included) or are refused at the value.
# usage: tests/e2e/sweep_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Four points: one or four data instances (the dearer price per sample), a ready-batch queue of 2 or 4.
cat >"$work/sweep.json" <<'JSON'
{"name": "sweep-e2e",
 "pricing": {"table": "aws-sagemaker-us-east-1"},
 "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 16}],
 "measure": {"warmup_steps": 1, "min_steps": 10, "max_steps": 400, "max_seconds": 6, "equivalence_pct": 5},
 "configurations": [
   {"name": "hetero", "instances": [{"type": "ml.p3.2xlarge", "role": "dnn"}, {"type": "ml.c5.9xlarge", "role": "data"}],
    "execution": {"threads": 1, "cpus": [0],
                  "data": {"mode": "service", "spawn_local": {"processes": 1, "workers": 1, "cpus": [1]}}}}],
 "sweep": {"axes": {"data_instances": [1, 4], "prefetch_batches": [2, 4]}}}
JSON

check "validate lists the points" expect_exit 0 "$work/v" "$pperf" validate --config "$work/sweep.json"
check "... each by its values" bash -c "grep -q '^sweep of .hetero.: 4 point(s), every combination: data_instances (2 values) x prefetch_batches (2 values)$' '$work/v' &&
  grep -q '^  data_instances=4,prefetch_batches=4$' '$work/v' && grep -q '^runnable here: yes$' '$work/v'"

edit "$work/sweep.json" "$work/unknown.json" 'j["sweep"]["axes"]["thread"] = [1]'
check "an unknown axis: one line naming the pointer" one_line_error \
  "^$work/unknown.json: /sweep/axes/thread: unknown axis 'thread' \(did you mean 'threads'\?\); known: " "$pperf" validate --config "$work/unknown.json"
edit "$work/sweep.json" "$work/big.json" 'j["sweep"]["axes"] = {"threads": {"from": 1, "to": 9}, "workers": {"from": 1, "to": 8}}'
check "a grid over 64 points" one_line_error "^$work/big.json: /sweep/axes: the grid has more than 64 points \(9 x 8\)" \
  "$pperf" validate --config "$work/big.json"
edit "$work/sweep.json" "$work/cpus.json" 'j["sweep"]["axes"] = {"cpus": [[0], [0, 4095]]}'
check "a point this host cannot run: validate" one_line_error \
  "^$work/cpus.json: /sweep/axes/cpus/1: not runnable on this host: CPU 4095 does not exist here" "$pperf" validate --config "$work/cpus.json"
check "... and run, the same line" one_line_error \
  "^$work/cpus.json: /sweep/axes/cpus/1: not runnable on this host: CPU 4095 does not exist here" "$pperf" run --dry-run --config "$work/cpus.json"

check "--only picks sweep points by their names, commas and all" bash -c "'$pperf' run --dry-run --config '$work/sweep.json' \
  --only data_instances=1,prefetch_batches=4,data_instances=4,prefetch_batches=2 2>&1 | grep -q 'ready to run (2 item(s))'"
check "--only with an unknown point: one line naming it" one_line_error \
  "^--only: no configuration 'data_instances=1,prefetch_batches=3' in $work/sweep.json \(did you mean 'data_instances=1,prefetch_batches=[24]'\?\)$" \
  "$pperf" run --dry-run --config "$work/sweep.json" --only data_instances=1,prefetch_batches=3

check "the sweep runs" expect_exit 0 "$work/run.out" env COLUMNS=100 "$pperf" run --config "$work/sweep.json" --out "$work/r.json"
check "it names a best point and the points equivalent to it" json_check "$work/r.json" '
  j["sweep"]["races"][0]["best"] in [r["configuration"] for r in j["results"]]
  isinstance(j["sweep"]["races"][0]["equivalent"], list)
  len(j["sweep"]["races"][0]["points"]) == 4
  [p["verdict"] for p in j["sweep"]["races"][0]["points"]][0] == "best"
  j["sweep"]["races"][0]["comparison_confidence"] == 1 - 0.05 / 3'
# Four data instances cost about 2.6 times one per hour at the same speed: they leave the race at
# its first look (round 8) and take no turn after it.
check "the dearer points were eliminated and stopped taking turns" json_check "$work/r.json" '
  all(p["verdict"] == "eliminated" for p in j["sweep"]["races"][0]["points"] if p["values"]["data_instances"] == "4")
  all(p["rounds"] == p["left_after_round"] < j["sweep"]["races"][0]["rounds"] or p["left_after_round"] == j["sweep"]["races"][0]["rounds"] for p in j["sweep"]["races"][0]["points"] if p["verdict"] == "eliminated")
  j["sweep"]["races"][0]["saved_s"] >= 0'
check "the console shows the race table" bash -c "grep -q '^Sweep of mnist_heavy over data_instances x prefetch_batches (4 points)' '$work/run.out' &&
  grep -qE '^  data_instances=4,prefetch_batches=[24] .* eliminated after round [0-9]+$' '$work/run.out'"
check "... within 100 columns (COLUMNS=100), whom each point lost to under the table" bash -c "
  sed -n '/^Sweep of/,\$p' '$work/run.out' | awk 'length > 100 { print; bad = 1 } END { exit bad }' &&
  grep -q '^Eliminated: data_instances=4,prefetch_batches=' '$work/run.out' && ! grep -q '(against ' '$work/run.out'"
# The workload's knobs: two batch sizes, the spawned data worker serving each point's batch; the
# race compares them per sample. A precision the workload cannot run is refused at its value.
edit "$work/sweep.json" "$work/batch.json" 'j["sweep"]["axes"] = {"batch_size": [8, 16]}; j["measure"]["max_seconds"] = 3'
check "validate lists the batch-size points" bash -c "'$pperf' validate --config '$work/batch.json' | grep -q '^  batch_size=16$'"
check "a batch-size sweep runs, each point at its batch" expect_exit 0 "$work/batch.out" "$pperf" run --config "$work/batch.json" --out "$work/b.json"
check "... its results: each point's batch and samples per step, raced per sample" json_check "$work/b.json" '
  sorted((r["configuration"], r["batch_size"], r["samples_per_step"], r["status"]) for r in j["results"]) == [("batch_size=16", 16, 16, "ok"), ("batch_size=8", 8, 8, "ok")]
  all(isinstance(p["usd_per_1m_samples"], float) for p in j["sweep"]["races"][0]["points"])
  len(j["sweep"]["races"][0]["points"]) == 2'
printf '{"name": "huge", "pricing": {"table": "aws-ec2-us-east-1"},
  "workloads": [{"name": "resnet50_augment", "preset": "cifar", "batch_size": 8, "params": {"images": 16}}],
  "configurations": [{"name": "a", "instances": [{"type": "p3.2xlarge"}]}],
  "sweep": {"axes": {"batch_size": [8, 2000]}}}' >"$work/huge.json"
check "a batch size that cannot fit: refused at the sweep's value before anything runs" one_line_error \
  "^$work/huge.json: /sweep/axes/batch_size/1: does not fit in memory \(configuration 'batch_size=2000'\): one training step .*the limit is 1 GiB" \
  "$pperf" run --config "$work/huge.json" --out "$work/huge.out.json" --max-memory 1
edit "$work/sweep.json" "$work/vit.json" 'j["workloads"] = [{"name": "vit_synthetic", "preset": "tiny", "batch_size": 8}]
j["configurations"][0]["instances"] = [{"type": "ml.c5.9xlarge"}]; j["configurations"][0]["execution"] = {"threads": 1}
j["sweep"]["axes"] = {"precision": ["fp32", "bf16"]}'
check "validate lists the precision points" bash -c "'$pperf' validate --config '$work/vit.json' | grep -q '^  precision=bf16$'"
edit "$work/vit.json" "$work/fp16.json" 'j["sweep"]["axes"]["precision"] = ["fp32", "fp16"]'
check "a precision the workload cannot run: one line naming the value" one_line_error \
  "^$work/fp16.json: /sweep/axes/precision/1: workload 'vit_synthetic' cannot run precision 'fp16' .*; it runs fp32, bf16$" \
  "$pperf" validate --config "$work/fp16.json"
edit "$work/sweep.json" "$work/noprec.json" 'j["sweep"]["axes"] = {"precision": ["fp32"]}'
check "a precision axis on a workload without one" one_line_error \
  "^$work/noprec.json: /sweep/axes/precision: workload 'mnist_heavy' has no precision to choose" "$pperf" validate --config "$work/noprec.json"

check "the results file validates" /usr/bin/python3 tests/e2e/validate_schema.py schemas/results.schema.json "$work/r.json" "$work/b.json"
check "the config validates" /usr/bin/python3 tests/e2e/validate_schema.py schemas/config.schema.json "$work/sweep.json" "$work/batch.json" "$work/vit.json" configs/seed003_thread_sweep.json configs/hetero_data_sweep.json
finish
