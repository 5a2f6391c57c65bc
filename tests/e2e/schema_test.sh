#!/usr/bin/env bash
# The JSON Schemas (schemas/*.schema.json, Draft 2020-12) against Debian's python3-jsonschema:
# every config in configs/ and tests/data, every results file this test makes (run, cost, a failed
# run, an interrupted one, one given back by the history) and compare outputs are valid; a
# wrong type or a missing field is rejected. The other end-to-end tests validate their files too.
# usage: tests/e2e/schema_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
valid() { /usr/bin/python3 tests/e2e/validate_schema.py "schemas/$1.schema.json" "${@:2}"; }
invalid() { /usr/bin/python3 tests/e2e/validate_schema.py --invalid "schemas/$1.schema.json" "${@:2}"; }

# --- configs --------------------------------------------------------------------------------
check "every config is valid" valid config configs/*.json tests/data/*.json
check "configs carry \$schema" bash -c "for f in configs/*.json; do grep -q '\"\$schema\": \"../schemas/config.schema.json\"' \"\$f\" || exit 1; done"
check "pperf accepts \$schema" expect_exit 0 "$work/o" "$pperf" validate --config configs/smoke.json
edit configs/smoke.json "$work/c_type.json" 'j["workloads"][0]["batch_size"] = "32"'
edit configs/smoke.json "$work/c_missing.json" 'del j["pricing"]'
edit configs/smoke.json "$work/c_unknown.json" 'j["configurations"][0]["threds"] = 2'
edit configs/smoke.json "$work/c_enum.json" 'j["configurations"][0]["instances"][0]["market"] = "reserved"'
check "config: wrong type, missing field, unknown key, bad enum rejected" invalid config "$work/c_type.json" "$work/c_missing.json" "$work/c_unknown.json" "$work/c_enum.json"
check "pperf agrees on each" bash -c "for f in c_type c_missing c_unknown c_enum; do '$pperf' validate --config '$work/'\$f.json >/dev/null 2>&1; [ \$? -eq 2 ] || exit 1; done"

# --- results files ------------------------------------------------------------------------------
check "run" expect_exit 0 "$work/o" "$pperf" run --config tests/data/tiny_run.json --out "$work/run.json" --history "$work/h.sqlite"
check "cost" expect_exit 0 "$work/o" "$pperf" cost --config configs/seed004_bert_trn1_vs_p4d_cost.json --out "$work/cost.json"
printf '{"name": "allfail", "pricing": {"table": "aws-ec2-us-east-1"}, "measure": {"warmup_steps": 0, "min_steps": 1, "max_steps": 1},
  "workloads": [{"name": "torchscript", "batch_size": 4, "params": {"path": "%s/allfail.json", "input_shape": [4]}}],
  "configurations": [{"name": "a", "baseline": true, "instances": [{"type": "p3.2xlarge"}]}]}' "$work" >"$work/allfail.json"
check "a failed run" expect_exit 1 "$work/o" "$pperf" run --config "$work/allfail.json" --out "$work/failed.json"
/usr/bin/python3 -c "
import json; c = json.load(open('tests/data/tiny_run.json'))
c['measure'] = {'warmup_steps': 0, 'min_steps': 100000, 'max_steps': 100000, 'max_seconds': 300}
json.dump(c, open('$work/long.json', 'w'))"
"$pperf" run --config "$work/long.json" --out "$work/int.json" >/dev/null 2>&1 &
pid=$!
sleep 4; kill -INT "$pid"; wait "$pid"
check "history show" bash -c "'$pperf' history show 1 --db '$work/h.sqlite' --out '$work/shown.json'"
check "every results file is valid" valid results tests/data/results/*.json "$work/run.json" "$work/cost.json" "$work/failed.json" "$work/int.json" "$work/shown.json"
check "... including the failed and the interrupted one" json_check "$work/int.json" 'j["status"] == "interrupted"'
edit "$work/run.json" "$work/r_type.json" 'j["results"][0]["step_time_ms"]["median"] = "5.1"'
edit "$work/run.json" "$work/r_missing.json" 'del j["results"][1]["cost"]'
edit "$work/run.json" "$work/r_top.json" 'del j["status"]'
edit "$work/run.json" "$work/r_version.json" 'j["schema_version"] = 2'
edit "$work/run.json" "$work/r_okless.json" 'j["results"][0]["cost"] = None'
check "results: wrong type, missing field, wrong version, ok without cost rejected" invalid results \
  "$work/r_type.json" "$work/r_missing.json" "$work/r_top.json" "$work/r_version.json" "$work/r_okless.json"
check "... and pperf refuses the same files" bash -c "for f in r_type r_top r_version; do '$pperf' compare '$work/run.json' '$work/'\$f.json >/dev/null 2>&1; [ \$? -eq 2 ] || exit 1; done"
check "unknown fields are allowed (additive within version 1)" bash -c "/usr/bin/python3 tests/e2e/edit_results.py '$work/run.json' '$work/r_extra.json' 'j[\"dashboard_note\"] = 1' 'j[\"results\"][0][\"mfu\"] = 0.3' && /usr/bin/python3 tests/e2e/validate_schema.py schemas/results.schema.json '$work/r_extra.json'"

# --- compare outputs ------------------------------------------------------------------------------
"$pperf" compare "$work/run.json" "$work/shown.json" --out "$work/cmp_same.json" >/dev/null
"$pperf" compare configs/../tests/data/results/cost_seed000_ex1.json "$work/cost.json" --out "$work/cmp_cost.json" >/dev/null
"$pperf" compare "$work/run.json" "$work/failed.json" --out "$work/cmp_failed.json" >/dev/null
"$pperf" compare --against-history 3 --db "$work/none.sqlite" "$work/run.json" --out "$work/cmp_first.json" >/dev/null
check "compare outputs are valid" valid compare "$work/cmp_same.json" "$work/cmp_cost.json" "$work/cmp_failed.json" "$work/cmp_first.json"
edit "$work/cmp_same.json" "$work/x_verdict.json" 'j["pairs"][0]["verdict"] = "worse"'
edit "$work/cmp_same.json" "$work/x_summary.json" 'del j["summary"]["regressed"]'
edit "$work/cmp_same.json" "$work/x_q.json" 'j["pairs"][0]["q_value"] = None'
check "compare: bad verdict, missing count, samples without q rejected" invalid compare "$work/x_verdict.json" "$work/x_summary.json" "$work/x_q.json"

finish
