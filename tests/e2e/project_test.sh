#!/usr/bin/env bash
# `pperf project` end to end: the seed's heterogeneous results projected from their homogeneous
# ones (shipped priced-only configs, shipped tables), a measured projection of the tiny MNIST
# preset, the JSON against schemas/projection.schema.json, the HTML chart, the config to measure
# next accepted by `pperf validate`, and bad input refused on one line with exit 2.
# usage: tests/e2e/project_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
valid() { /usr/bin/python3 tests/e2e/validate_schema.py schemas/projection.schema.json "$@"; }

# --- the seed's examples, from their given steps ------------------------------------------------
check "seed 000 ex. 2 projected" expect_exit 0 "$work/o2" "$pperf" project --config seed000_ex2_mnist_cost --out "$work/ex2.json" --next "$work/ex2.next.json"
check "... valid JSON" valid "$work/ex2.json"
edit "$work/ex2.json" "$work/x_type.json" 'j["workloads"][0]["predictions"][0]["step_ms"]["lo"] = "1"'
edit "$work/ex2.json" "$work/x_missing.json" 'del j["workloads"][0]["cheapest"]["usd_per_1m_samples"]'
edit "$work/ex2.json" "$work/x_bound.json" 'j["workloads"][0]["predictions"][0]["bound"] = "disk"'
check "... a wrong type, a missing field, a bad bound rejected by the schema" /usr/bin/python3 tests/e2e/validate_schema.py --invalid schemas/projection.schema.json "$work/x_type.json" "$work/x_missing.json" "$work/x_bound.json"
check "... 1193 x 8/44 = 216.9 ms against 184 ms measured: +17.9 %, inside the interval" json_check "$work/ex2.json" '
[c for c in j["workloads"][0]["configurations"] if c["configuration"] == "heterogeneous"][0]["actual_inside_interval"]
abs([c for c in j["workloads"][0]["configurations"] if c["configuration"] == "heterogeneous"][0]["predicted"]["step_ms"]["value"] - 1193 * 8 / 44) < 1e-6
abs([c for c in j["workloads"][0]["configurations"] if c["configuration"] == "heterogeneous"][0]["error_pct"] - 17.88) < 0.01
j["workloads"][0]["cheapest"]["cluster"] == j["workloads"][0]["predictions"][0]["cluster"]
j["workloads"][0]["knee_vcpus_per_accelerator"] is None
j["next_config"].endswith("ex2.next.json")'
check "... names the cheapest and the next config" grep -q "configuration to measure next: $work/ex2.next.json" "$work/o2"
check "seed 000 ex. 1 with the GPU's step given" expect_exit 0 "$work/o1" "$pperf" project --config seed000_ex1_resnet50_cost --trainer-step-ms 60 --out "$work/ex1.json" --html "$work/ex1.html" --next "$work/ex1.next.json"
check "... 192 x 96/240 = 76.8 ms against 86 ms: -10.7 %, inside; knee 38.4 vCPUs per GPU; uint8 batches on the link" json_check "$work/ex1.json" '
abs([c for c in j["workloads"][0]["configurations"] if c["configuration"] == "heterogeneous"][0]["predicted"]["step_ms"]["value"] - 76.8) < 1e-6
[c for c in j["workloads"][0]["configurations"] if c["configuration"] == "heterogeneous"][0]["actual_inside_interval"]
abs(j["workloads"][0]["knee_vcpus_per_accelerator"] - 192 * 96 / 60 / 8) < 1e-6
j["workloads"][0]["inputs"]["bytes_per_batch"] == 1024 * (3 * 32 * 32 + 8)
j["workloads"][0]["cheapest"]["bound"] == "trainer"'
check "... valid JSON" valid "$work/ex1.json"
check "... an HTML chart with the knee marked" grep -q 'class="knee"' "$work/ex1.html"

check "against a table pperf prices import just wrote" bash -c "'$pperf' prices import --format aws-offer pricing/sources/aws-sagemaker-us-east-1.blogs.offer.json \
  --out '$work/sm.json' --imported 2026-11-27 --name sm-import --provider aws --service sagemaker-training --source test >/dev/null &&
  '$pperf' project --config seed000_ex2_mnist_cost --table '$work/sm.json' --out '$work/sm_p.json' --next '$work/sm_p.next.json' >/dev/null"
check "... the same projection, priced from it" json_check "$work/sm_p.json" '
j["pricing"]["table"] == "sm-import"
abs([c for c in j["workloads"][0]["configurations"] if c["configuration"] == "heterogeneous"][0]["predicted"]["step_ms"]["value"] - 1193 * 8 / 44) < 1e-6'

# --- measured here (tiny preset, a few seconds) ---------------------------------------------------
check "measured projection" expect_exit 0 "$work/om" "$pperf" project --config tests/data/tiny_run.json --out "$work/tiny.json" --html "$work/tiny.html"
check "... valid JSON" valid "$work/tiny.json"
check "... the pipeline and trainer measured, the reference measured" json_check "$work/tiny.json" '
j["workloads"][0]["inputs"]["pipeline_cpu_s_per_sample"]["value"] > 0
j["workloads"][0]["inputs"]["trainer_step_ms"]["value"] > 0
j["workloads"][0]["host_calibration"] > 0
[c for c in j["workloads"][0]["configurations"] if c["reference"]][0]["actual_source"] == "measured"
len(j["workloads"][0]["predictions"]) > 1'
check "... the next config beside --out, accepted by pperf validate" expect_exit 0 "$work/ov" "$pperf" validate --config "$work/tiny.next.json"
check "... from a results file too" bash -c "'$pperf' run --config tests/data/tiny_run.json --only ondemand,service --out '$work/run.json' >/dev/null 2>&1 &&
  '$pperf' project --config tests/data/tiny_run.json --results '$work/run.json' --out '$work/fromrun.json' >/dev/null"
check "... the service configuration measured in the same run is compared" json_check "$work/fromrun.json" '
[c for c in j["workloads"][0]["configurations"] if c["configuration"] == "service"][0]["actual_ms"] > 0'

# --- configs without a data group ------------------------------------------------------------------
# Priced-only (seed 004: BERT's given steps are the trainers' own): the pipeline measured alone here.
check "seed 004 (no data group, priced-only) projected" expect_exit 0 "$work/o4" "$pperf" project --config seed004_bert_trn1_vs_p4d_cost --out "$work/s4.json" --html "$work/s4.html" --next "$work/s4.next.json"
check "... valid JSON" valid "$work/s4.json"
check "... BERT is compute-bound: the knee at 0 data instances, the trainer alone cheapest (trn1, per its given step)" json_check "$work/s4.json" '
j["workloads"][0]["knee_data_instances"] == 0
j["workloads"][0]["cheapest"]["data"] is None
j["workloads"][0]["cheapest"]["trainer"]["type"] == "ml.trn1.32xlarge"
j["workloads"][0]["cheapest"]["bound"] == "trainer"
abs(j["workloads"][0]["cheapest"]["step_ms"]["value"] - 150.6024096) < 1e-6
j["workloads"][0]["inputs"]["pipeline_absent"] is None
j["workloads"][0]["inputs"]["pipeline_cpu_s_per_sample"]["value"] > 0
j["workloads"][0]["inputs"]["pipeline_source"].startswith("measured here: the workload")
all(p["step_ms"]["value"] == p["trainer_ms"] for p in j["workloads"][0]["predictions"])'
check "... says data instances do not pay" grep -q "data instances: none pay: 1 x ml.trn1.32xlarge alone is trainer-bound" "$work/o4"
# At a 100-column terminal (COLUMNS, as pperf run's report reads it) every line fits: the prose
# wrapped, the rows' intervals left out (and said so) where they do not fit; each cluster's link
# from the price table shown (ms per batch, Gbit/s), - without data instances.
fits100() { /usr/bin/python3 -c 'import sys; bad = [l for l in open(sys.argv[1], encoding="utf-8").read().splitlines() if len(l) > 100]; print(*bad, sep="\n"); sys.exit(1 if bad else 0)' "$1"; }
export -f fits100
check "... within 100 columns at COLUMNS=100" bash -c "COLUMNS=100 '$pperf' project --config seed004_bert_trn1_vs_p4d_cost --next '$work/s4w.next.json' >'$work/o4w' 2>&1 && fits100 '$work/o4w' &&
  grep -q '^  left out at this width: the step.s interval and the cost.s interval (--out and --html have them)$' '$work/o4w' &&
  grep -qE '^  +1  1 x ml.trn1.32xlarge +150.6 +64.65 +- +trainer$' '$work/o4w' && grep -qE '^  +2  1 x ml.trn1.32xlarge \+ 1 x ml.c5.9xlarge +150.6 +69.45 +0.01101 \(12\) +trainer$' '$work/o4w'"
check "... and seed 000 ex. 1 with the GPU's step given" bash -c "COLUMNS=100 '$pperf' project --config seed000_ex1_resnet50_cost --trainer-step-ms 60 --next '$work/e1w.next.json' >'$work/o1w' && fits100 '$work/o1w'"
check "... the HTML marks the knee at 0 and says why" grep -q 'knee: 0 (trainer alone)' "$work/s4.html"
check "... ..." grep -q 'class="data-instances">data instances: none pay' "$work/s4.html"
check "... the chart draws the cheapest trainer's curve (trn1) beside the config's (p4d, dashed)" bash -c "grep -q 'data-trainer=\"ml.trn1.32xlarge\"' '$work/s4.html' &&
  grep -q 'stroke-dasharray=\"6 4\" data-trainer=\"ml.p4d.24xlarge\"' '$work/s4.html' && grep -q '>1 x ml.trn1.32xlarge (cheapest)</text>' '$work/s4.html'"
check "... the next config is the cheapest alone, as the baseline" json_check "$work/s4.next.json" '
[g["type"] for g in j["configurations"][0]["instances"]] == ["ml.trn1.32xlarge"]
j["configurations"][0]["baseline"]'
# validate probes each item's memory in fresh processes: the tiny preset keeps that to seconds.
edit "$work/s4.next.json" "$work/s4.tiny.json" 'j["workloads"][0]["preset"] = "tiny"'
check "... pperf validate accepts it" expect_exit 0 "$work/o4v" "$pperf" validate --config "$work/s4.tiny.json"
# Runnable, local loader only: the pipeline's cost from the loader's CPU time, the next config
# with the pipeline moved to a spawned data worker on this host.
/usr/bin/python3 -c "
import json; c = json.load(open('tests/data/tiny_run.json'))
c['name'] = 'tiny-local'
c['measure']['max_seconds'] = 3
c['configurations'] = [c['configurations'][0]]
json.dump(c, open('$work/local.json', 'w'))"
check "a runnable config without a data group projected" expect_exit 0 "$work/ol" "$pperf" project --config "$work/local.json" --out "$work/local_p.json" --max-data 2
check "... valid JSON, the pipeline measured with the trainer, its scaling measured alone" json_check "$work/local_p.json" '
j["workloads"][0]["inputs"]["pipeline_cpu_s_per_sample"]["value"] > 0
j["workloads"][0]["inputs"]["pipeline_source"].startswith("measured here: ondemand")
any(p["data"] is not None for p in j["workloads"][0]["predictions"])
j["workloads"][0]["knee_data_instances"] is None or j["workloads"][0]["knee_data_instances"] >= 0
__import__("os").cpu_count() == 1 or j["workloads"][0]["inputs"]["scaling_cores"] == __import__("os").cpu_count()
__import__("os").cpu_count() == 1 or "its scaling from the pipeline alone: 1 to" in j["workloads"][0]["inputs"]["pipeline_source"]'
check "... valid JSON" valid "$work/local_p.json"
check "... the next config has a data group run by a spawned data worker, accepted by pperf validate" json_check "$work/local_p.next.json" '
[c for c in j["configurations"] if c["name"] != "ondemand"][0]["instances"][1]["role"] == "data"
[c for c in j["configurations"] if c["name"] != "ondemand"][0]["execution"]["data"]["mode"] == "service"
"spawn_local" in [c for c in j["configurations"] if c["name"] != "ondemand"][0]["execution"]["data"]'
check "... pperf validate accepts it" expect_exit 0 "$work/olv" "$pperf" validate --config "$work/local_p.next.json"

# --- a per-core speed factor from the history's native runs ----------------------------------------
/usr/bin/python3 -c "
import json; c = json.load(open('tests/data/tiny_run.json'))
c['name'] = 'tiny-cpu'
c['configurations'] = [
  {'name': 'local', 'baseline': True, 'instances': [{'type': 'c5.9xlarge', 'role': 'dnn'}],
   'execution': {'threads': 1, 'data': {'mode': 'local', 'workers': 1}}},
  {'name': 'service', 'instances': [{'type': 'c5.9xlarge', 'role': 'dnn'}, {'type': 'c5.18xlarge', 'role': 'data'}],
   'execution': {'threads': 1, 'data': {'mode': 'service', 'workers': 1, 'spawn_local': {'processes': 1}}}},
  {'name': 'two-loaders', 'instances': [{'type': 'c5.9xlarge', 'role': 'dnn'}],
   'execution': {'threads': 1, 'data': {'mode': 'local', 'workers': 2}}}]
json.dump(c, open('$work/cpu.json', 'w'))"
check "a native run recorded" expect_exit 0 "$work/on" "$pperf" run --config "$work/cpu.json" --only local --native --out "$work/native.json" --history "$work/h.sqlite"
check "project reads the family's factor from it" expect_exit 0 "$work/oh" "$pperf" project --config "$work/cpu.json" --history "$work/h.sqlite" --out "$work/hist.json"
check "... c5 measured (this host both times: near 1), without history: 1 ±25 %" json_check "$work/hist.json" '
[f for f in j["workloads"][0]["speed_factors"] if f["family"] == "c5"][0]["source"].startswith("history: run 1")
0.5 < [f for f in j["workloads"][0]["speed_factors"] if f["family"] == "c5"][0]["factor"]["value"] < 2'
check "... valid JSON" valid "$work/hist.json"
check "the pipeline's scaling from 1 to 2 cores, from a run of both" bash -c "'$pperf' run --config '$work/cpu.json' --only local,two-loaders --out '$work/two.json' >/dev/null 2>&1 &&
  '$pperf' project --config '$work/cpu.json' --results '$work/two.json' --out '$work/scaling.json' >/dev/null"
check "... efficiency measured at 2 cores" json_check "$work/scaling.json" '
j["workloads"][0]["inputs"]["scaling_cores"] == 2
0.2 < j["workloads"][0]["inputs"]["scaling_efficiency"]["value"] < 2
"scaling from 1 to 2 cores: two-loaders" in j["workloads"][0]["inputs"]["pipeline_source"]'
check "a missing history is refused" one_line_error 'none.sqlite' "$pperf" project --config "$work/cpu.json" --history "$work/none.sqlite"

check "a config this host cannot run (CUDA) is refused without the trainer's step" one_line_error "p4d_gpu.json: /configurations/0/execution/device: not runnable on this host" "$pperf" project --config configs/p4d_gpu.json
check "... projected with it given (--trainer-step-ms), its pipeline timed alone here" expect_exit 0 "$work/og" "$pperf" project --config configs/p4d_gpu.json --trainer-step-ms 120 --max-data 1 --out "$work/gpu.json" --next "$work/gpu.next.json"
check "... valid JSON, the trainer given, the pipeline measured here" json_check "$work/gpu.json" '
j["workloads"][0]["inputs"]["trainer_source"] == "given (--trainer-step-ms)"
j["workloads"][0]["inputs"]["pipeline_source"].startswith("measured here: the workload\x27s pipeline alone")
j["workloads"][0]["cheapest"]["cluster"] == "1 x ml.p4d.24xlarge"'
check "... ..." valid "$work/gpu.json"
check "... the next config's TLS CA (relative to the config) made absolute" grep -q "\"tls_ca\": \"$PWD/configs/data-ca.pem\"" "$work/gpu.next.json"

# --- bad input: one line naming the flag or file, exit 2 ---------------------------------------------
check "unknown region" one_line_error '^--region: .*no region' "$pperf" project --config seed000_ex2_mnist_cost --region eu-west-9
check "table without the trainer" one_line_error "aws-ec2-us-east-1.json: /regions/us-east-1: no instance 'ml.p3.2xlarge'" "$pperf" project --config seed000_ex2_mnist_cost --table aws-ec2-us-east-1
check "bad flag" one_line_error "^pperf project: --bogus: unknown option" "$pperf" project --config smoke --bogus
check "bad number" one_line_error '^--trainer-step-ms: ' "$pperf" project --config seed000_ex2_mnist_cost --trainer-step-ms -3
check "missing table" one_line_error '^--table: ' "$pperf" project --config seed000_ex2_mnist_cost --table "$work/none.json"
check "results of another config" one_line_error 'ex2.json|/config/name|results' "$pperf" project --config tests/data/tiny_run.json --results "$work/ex2.json"

finish
