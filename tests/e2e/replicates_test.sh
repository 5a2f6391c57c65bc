#!/usr/bin/env bash
# End-to-end test of replicates (issue 68 item 1): `pperf run --replicates 2` measures a tiny
# comparison twice in turns, each run to its budget, and one results file records both runs and
# the pooled verdict; `pperf decide` given the two runs as separate files (later runs of one
# config on one host) pools them the same way; the flag's refusals are one line, exit 2.
# usage: tests/e2e/replicates_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cat >"$work/aa.json" <<'JSON'
{
  "name": "replicates-e2e",
  "pricing": {"table": "aws-ec2-us-east-1", "market": "on_demand"},
  "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 32}],
  "measure": {"warmup_steps": 2, "min_steps": 10, "max_steps": 40, "max_seconds": 30, "target_rel_ci": 0.01},
  "configurations": [
    {"name": "a", "baseline": true, "instances": [{"type": "p3.2xlarge", "count": 1, "role": "dnn"}],
     "execution": {"threads": 1, "cpus": [0], "data": {"mode": "local", "workers": 1}}},
    {"name": "b", "instances": [{"type": "p3.2xlarge", "count": 1, "role": "dnn"}],
     "execution": {"threads": 1, "cpus": [0], "data": {"mode": "local", "workers": 1}}}
  ]
}
JSON

check "run --replicates 2" expect_exit 0 "$work/run.out" "$pperf" run --config "$work/aa.json" --replicates 2 --out "$work/r.json"
check "each replicate is announced" grep -q "replicate 2 of 2" "$work/run.out"
check "one file: both runs and the pooled verdict" json_check "$work/r.json" '
j["replicates"]["count"] == 2 and [r["replicate"] for r in j["replicates"]["runs"]] == [1, 2]
all(len(r["results"]) == 2 for r in j["replicates"]["runs"])
all(x["stop_reason"] == "max_steps" for r in j["replicates"]["runs"] for x in r["results"])
all(r["results"][1]["decision"]["method"].startswith("confidence sequence") for r in j["replicates"]["runs"])
len(p := j["replicates"]["pooled"]) == 1 and p[0]["configuration"] == "b" and p[0]["baseline"] == "a"
len((p := j["replicates"]["pooled"][0])["estimates"]) == 2 and p["dof"] == 1 and p["between_run_sd"] >= 0
(d := j["results"][1]["decision"])["method"] == "random effects over replicates in turns" and d["looks"] == 1
j["results"][1]["decision"]["improvement_pct_bounds"] == j["replicates"]["pooled"][0]["improvement_pct_ci95"]
(d := j["results"][1]["decision"])["verdict"] == j["replicates"]["pooled"][0]["verdict"] and "pooled over 2 replicates in turns" in d["reason"]
j["results"][1]["step_time_ms"]["samples"] == j["replicates"]["runs"][1]["results"][1]["step_time_ms"]["samples"]'
check "the console prints the pooled verdict" grep -q "pooled over 2 replicates in turns" "$work/run.out"

# The two runs as two results files, as two later `pperf run`s would have written them.
/usr/bin/python3 - "$work/r.json" "$work/later" <<'PY'
import copy, json, os, sys
doc = json.load(open(sys.argv[1]))
os.makedirs(sys.argv[2])
for run in doc["replicates"]["runs"]:
    one = copy.deepcopy(doc)
    del one["replicates"]
    one["results"], one["started_at"], one["finished_at"] = run["results"], run["started_at"], run["finished_at"]
    json.dump(one, open(os.path.join(sys.argv[2], f"run{run['replicate']}.json"), "w"), indent=2)
PY
check "decide later runs on one host" expect_exit 0 "$work/decide.out" "$pperf" decide "$work/later/run1.json" \
  "$work/later/run2.json" --out "$work/decided.json"
check "pooled as replicates in turns, like the run" json_check "$work/decided.json" '
j["command"] == "decide" and j["replicates"]["count"] == 2
[r["source"] for r in j["replicates"]["runs"]] == ["'"$work/later/run1.json"'", "'"$work/later/run2.json"'"]
j["results"][1]["decision"]["method"] == "random effects over replicates in turns"'
check "decide's pooled interval is the run's" /usr/bin/python3 -c '
import json, sys
a, b = (json.load(open(f))["replicates"]["pooled"][0] for f in sys.argv[1:])
sys.exit(0 if a["improvement_pct_ci95"] == b["improvement_pct_ci95"] and a["estimates"] == b["estimates"] else 1)' "$work/r.json" "$work/decided.json"

check "--replicates 0 refused" one_line_error "--replicates.*'0' is not a whole number from 1 to 100" \
  "$pperf" run --config "$work/aa.json" --replicates 0 --out "$work/x.json"
check "--replicates with --sequential refused" one_line_error "--replicates.*--sequential measures one configuration after the other" \
  "$pperf" run --config "$work/aa.json" --replicates 2 --sequential --out "$work/x.json"
check "nothing written by a refusal" test ! -e "$work/x.json"
finish
