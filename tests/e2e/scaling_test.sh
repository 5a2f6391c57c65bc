#!/usr/bin/env bash
# A scaling curve end to end (docs/scaling.md): the tiny MNIST job as a curve over 1 and 2
# instances (spawn_local ranks), its record in the results (schema), the console's rows, the
# HTML page's charts, `pperf project` with the data-parallel term from those results, and a bad
# curve refused in one line.
# usage: tests/e2e/scaling_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

/usr/bin/python3 - "$work/curve.json" <<'PY'
import json, sys
c = json.load(open("tests/data/tiny_run.json"))
c["name"] = "tiny-curve"
c["workloads"][0]["batch_size"] = 64
c["measure"] = {"warmup_steps": 2, "min_steps": 60, "max_steps": 60, "max_seconds": 20}
del c["steps_to_train"]
c["configurations"] = [{"name": "dp", "instances": [{"type": "g5.2xlarge", "count": 1, "role": "dnn"}],
                        "execution": {"threads": 1, "data": {"mode": "local", "workers": 1},
                                      "distributed": {"world_size": 1, "timeout_s": 30, "spawn_local": {"cpus_per_rank": 1}}}}]
c["scaling"] = {"instances": [1, 2], "epoch_samples": 60000, "deadline_h": 1}
json.dump(c, open(sys.argv[1], "w"), indent=1)
PY

check "the curve's config validates" bash -c "/usr/bin/python3 tests/e2e/validate_schema.py schemas/config.schema.json $work/curve.json &&
  '$pperf' validate --config $work/curve.json >$work/validate.out"
check "a curve of 1 and 2 instances runs" expect_exit 0 "$work/run.out" env COLUMNS=200 "$pperf" run --config "$work/curve.json" \
  --out "$work/curve-res.json" --html "$work/curve.html"
check "the results record the curve: points, efficiency with its interval, epoch, deadline" json_check "$work/curve-res.json" '
[r["configuration"] for r in j["results"]] == ["instances=1", "instances=2"]
[r["distributed"]["world_size"] for r in j["results"]] == [1, 2]
len(j["scaling"]["curves"]) == 1
[p["instances"] for p in j["scaling"]["curves"][0]["points"]] == [1, 2]
j["scaling"]["curves"][0]["points"][0]["efficiency"] == 1
(lambda p, r: abs(p["efficiency"] - (r[1]["samples_per_step"] / r[1]["step_time_ms"]["mean"]) / (2 * r[0]["samples_per_step"] / r[0]["step_time_ms"]["mean"])) < 1e-9)(j["scaling"]["curves"][0]["points"][1], j["results"])
(lambda p: p["efficiency_ci95"][0] < p["efficiency"] < p["efficiency_ci95"][1])(j["scaling"]["curves"][0]["points"][1])
(lambda p: abs(p["epoch_hours"] - 60000 / p["samples_per_s"] / 3600) < 1e-12 and abs(p["epoch_usd"] - p["epoch_hours"] * p["usd_per_hour"]) < 1e-12)(j["scaling"]["curves"][0]["points"][1])
j["scaling"]["curves"][0]["points"][1]["allreduce_bytes_per_step"] == j["results"][1]["distributed"]["bytes_per_step"] > 0
j["scaling"]["curves"][0]["points"][1]["allreduce_ms"] == j["results"][1]["distributed"]["allreduce_ms"]["median"] > 0
all(p["meets_deadline"] for p in j["scaling"]["curves"][0]["points"]) and j["scaling"]["curves"][0]["cheapest_instances"] in (1, 2)
"spawn_local" in j["scaling"]["measured_as"]
'
check "the results match the schema" /usr/bin/python3 tests/e2e/validate_schema.py schemas/results.schema.json "$work/curve-res.json"
check "the console shows one row per instance count, with units" bash -c "
  grep -q 'Scaling curve of mnist_heavy' $work/run.out &&
  grep -Eq '^instances +ranks +step ms \(95% CI\) +samples/s \(95% CI\) +efficiency % \(95% CI\) +USD/h +h/epoch \(95% CI\) +USD/epoch \(95% CI\) +within 1 h' $work/run.out &&
  grep -Eq '^1 x +1 +[0-9.]+ \[' $work/run.out && grep -Eq '^2 x +2 +[0-9.]+ \[' $work/run.out &&
  grep -q 'Cheapest epoch within 1 h' $work/run.out" || cat "$work/run.out"
check "the page draws the curve: efficiency, hours and cost per epoch against instances" bash -c "
  grep -q 'data-chart=\"scaling-efficiency\"' $work/curve.html && grep -q 'data-chart=\"scaling-hours\"' $work/curve.html &&
  grep -q 'data-chart=\"scaling-cost\"' $work/curve.html && [ \$(grep -c 'data-instances=\"2\"' $work/curve.html) -eq 3 ]"
check "pperf report redraws it from the file" bash -c "'$pperf' report $work/curve-res.json --html $work/again.html >/dev/null &&
  grep -q 'data-chart=\"scaling-efficiency\"' $work/again.html"

# --- the data-parallel term of the projection, from the measured curve -----------------------------
check "pperf project projects the curve over the types' links" expect_exit 0 "$work/project.out" "$pperf" project \
  --config "$work/curve.json" --results "$work/curve-res.json" --out "$work/proj.json"
check "the projection holds the all-reduce term and its check" json_check "$work/proj.json" '
len(j["data_parallel"]) == 1
(lambda d: d["inputs"]["bytes_per_step"] > 0 and 0 <= d["inputs"]["overlap"] <= 1 and d["instances"] == [1, 2])(j["data_parallel"][0])
all(p["instances"] in (1, 2) for p in j["data_parallel"][0]["predictions"])
any(p["type"] == "g5.2xlarge" for p in j["data_parallel"][0]["predictions"])
all(p["allreduce_ms"] == 0 for p in j["data_parallel"][0]["predictions"] if p["instances"] == 1)
all(p["link_gbps"] is None or abs(p["allreduce_ms"] - j["data_parallel"][0]["inputs"]["bytes_per_step"] * 8 / (p["link_gbps"] * 1e9) * 1e3) < 1e-9 for p in j["data_parallel"][0]["predictions"] if p["instances"] == 2)
j["data_parallel"][0]["validation"]["checks"][0]["fitted"]
'
check "the projection matches its schema" /usr/bin/python3 tests/e2e/validate_schema.py schemas/projection.schema.json "$work/proj.json"
check "the console shows the projected curve" bash -c "grep -q 'data-parallel: mnist_heavy projected to 1, 2 instance' $work/project.out &&
  grep -q 'the model against the measured curve' $work/project.out" || cat "$work/project.out"

# --- refusals ----------------------------------------------------------------------------------------
/usr/bin/python3 -c "
import json; c = json.load(open('$work/curve.json')); c['scaling']['instances'] = [2, 1]; json.dump(c, open('$work/bad.json', 'w'))"
check "a descending curve: one line naming the value" one_line_error \
  "bad.json: /scaling/instances/1: instance counts must be ascending and distinct \(1 after 2\)" "$pperf" validate --config "$work/bad.json"
finish
