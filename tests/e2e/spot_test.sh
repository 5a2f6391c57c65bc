#!/usr/bin/env bash
# Spot economics through the binary: `pperf cost` prices a Spot group's expected cost to train
# from given checkpoint costs, `pperf advise` ranks it beside On-Demand, bad Spot input is one
# line naming file and JSON pointer (exit 2), and `pperf run --spot-drill` kills a training
# process, restarts it from its checkpoint and records the lost time.
# usage: tests/e2e/spot_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cat >"$work/cost.json" <<'JSON'
{"name": "spot-cost", "seed": 5, "steps_to_train": 200000,
 "pricing": {"table": "aws-ec2-us-east-1"},
 "workloads": [{"name": "vit_synthetic", "preset": "base", "batch_size": 128}],
 "configurations": [
   {"name": "g5.12xlarge-od", "baseline": true, "step_time_ms": 400,
    "instances": [{"type": "g5.12xlarge", "market": "on_demand"}]},
   {"name": "4x-g5.2xlarge-spot", "step_time_ms": 450,
    "instances": [{"type": "g5.2xlarge", "count": 4, "market": "spot"}],
    "spot": {"checkpoint_save_s": 20, "checkpoint_restore_s": 30, "restart_overhead_s": 300}}
 ]}
JSON
check "cost with spot" expect_exit 0 "$work/o" "$pperf" cost --config "$work/cost.json" --out "$work/cost_out.json"
check "spot figures" json_check "$work/cost_out.json" '
j["results"][0].get("spot") is None
abs(j["results"][1]["spot"]["interruptions_per_hour"] - 4 * -__import__("math").log(1 - 0.175) / 730) < 1e-12
j["results"][1]["spot"]["interval_basis"] == "young_daly" and j["results"][1]["spot"]["checkpoint_basis"] == "config"
abs(j["results"][1]["spot"]["on_demand_usd"] - 200000 * 0.45 / 3600 * 4 * 1.212) < 1e-9
j["results"][1]["spot"]["p50_usd"] <= j["results"][1]["spot"]["p95_usd"]
j["results"][1]["spot"]["expected_wall_hours"] > j["results"][1]["spot"]["expected_hours"] > j["results"][1]["spot"]["work_hours"]'
check "console shows Spot beside On-Demand" grep -q "4x-g5.2xlarge-spot: .* USD expected on Spot (p50 .*, p95 .*), .* h billed, .* h wall, .* expected interruptions; the same group On-Demand .* USD" "$work/o"
check "results schema" /usr/bin/python3 tests/e2e/validate_schema.py schemas/results.schema.json "$work/cost_out.json"
check "config schema" /usr/bin/python3 tests/e2e/validate_schema.py schemas/config.schema.json "$work/cost.json"

# --- advise --------------------------------------------------------------------------------------
check "advise" expect_exit 0 "$work/adv" "$pperf" advise "$work/cost_out.json" --json "$work/adv.json" --markdown "$work/adv.md"
check "advise ranks by expected USD, Spot beside On-Demand" json_check "$work/adv.json" '
[r["rank"] for r in j["rows"]] == [1, 2, 3]
[r["usd"] for r in j["rows"]] == sorted(r["usd"] for r in j["rows"])
{(r["configuration"], r["market"]) for r in j["rows"]} == {("4x-g5.2xlarge-spot", "spot"), ("4x-g5.2xlarge-spot", "on_demand"), ("g5.12xlarge-od", "on_demand")}
all(r["reason"] for r in j["rows"]) and j["rows"][0]["reason"].startswith((j["rows"][0]["decision"] + "; " if j["rows"][0]["decision"] else "") + "cheapest")
all((r["p95_usd"] is None) == (r["market"] == "on_demand") for r in j["rows"])'
check "advise console and Markdown" bash -c "grep -q '^#1 ' '$work/adv' && grep -q '| rank | configuration |' '$work/adv.md'"
check "advise --market spot --steps" expect_exit 0 "$work/o" "$pperf" advise "$work/cost_out.json" --market spot --steps 400000 --json "$work/adv2.json"
check "--steps re-estimates" json_check "$work/adv2.json" '
len(j["rows"]) == 1 and j["rows"][0]["market"] == "spot" and j["rows"][0]["steps"] == 400000'
check "advise: bad --market" one_line_error "^pperf advise: --market: expected on_demand, spot or both, got 'spots' \(did you mean 'spot'\?\)$" "$pperf" advise "$work/cost_out.json" --market spots
check "advise: bad --steps" one_line_error "^pperf advise: --steps: expected a positive whole number of steps, got '-3'$" "$pperf" advise "$work/cost_out.json" --steps=-3
/usr/bin/python3 -c "
import json
j = json.load(open('$work/cost_out.json'))
for r in j['results']: r.pop('to_train', None)
json.dump(j, open('$work/nosteps.json', 'w'))"
check "advise: no steps anywhere" one_line_error "^--steps: $work/nosteps.json has no steps_to_train for g5.12xlarge-od: give --steps N$" "$pperf" advise "$work/nosteps.json"
/usr/bin/python3 -c "
import json
j = json.load(open('tests/data/results/run_tiny.json'))
for r in j['results']: r.pop('spot', None)
json.dump(j, open('$work/nospot.json', 'w'))"
check "advise: Spot without an estimate is a note" bash -c "'$pperf' advise '$work/nospot.json' | grep -q '^note: spot ($work/nospot.json): Spot groups without a Spot estimate'"

# --- bad Spot input ------------------------------------------------------------------------------
bad() {  # bad NAME PYTHON-EDIT PATTERN
  /usr/bin/python3 -c "
import json, sys
j = json.load(open('$work/cost.json'))
$2
json.dump(j, open('$work/bad.json', 'w'))"
  check "$1" one_line_error "^$work/bad.json: $3" "$pperf" cost --config "$work/bad.json" --out "$work/bad_out.json"
}
bad "negative rate" 'j["configurations"][1]["spot"]["interruptions_per_month"] = -0.5' \
  "/configurations/1/spot/interruptions_per_month: must be a finite number >= 0, got -0.5$"
bad "negative overhead" 'j["configurations"][1]["spot"]["restart_overhead_s"] = -1' \
  "/configurations/1/spot/restart_overhead_s: must be a finite number >= 0, got -1$"
bad "zero interval" 'j["configurations"][1]["spot"]["checkpoint_interval_s"] = 0' \
  "/configurations/1/spot/checkpoint_interval_s: "
/usr/bin/python3 - "$work/rates.json" <<'PY'
import json, sys
t = json.load(open("pricing/tables/aws-spot-interruptions.json"))
t["name"] = "t"; del t["regions"]["us-east-1"]["g5.48xlarge"]
json.dump(t, open(sys.argv[1], "w"))
PY
bad "type without a rate" 'j["configurations"][1]["instances"][0]["type"] = "g5.48xlarge"; j["pricing"]["interruptions"] = "'"$work"'/rates.json"' \
  "/configurations/1/instances/0/type: no Spot interruption rate for g5.48xlarge in us-east-1 in table t; give spot.interruptions_per_month$"
bad "spot keys on On-Demand" 'j["configurations"][0]["spot"] = {}' \
  "/configurations/0/spot: spot settings on a configuration without a Spot instance group$"

# --- a measured checkpoint and the drill -----------------------------------------------------------
cat >"$work/drill.json" <<'JSON'
{"name": "spot-drill", "seed": 1, "steps_to_train": 100000,
 "pricing": {"table": "aws-ec2-us-east-1"},
 "workloads": [{"name": "vit_synthetic", "preset": "tiny", "batch_size": 8}],
 "measure": {"warmup_steps": 1, "min_steps": 5, "max_steps": 10, "max_seconds": 10},
 "configurations": [
   {"name": "od", "baseline": true, "instances": [{"type": "g5.12xlarge", "market": "on_demand"}],
    "execution": {"threads": 1}},
   {"name": "spot", "instances": [{"type": "g5.2xlarge", "count": 4, "market": "spot"}],
    "execution": {"threads": 1}, "spot": {"checkpoint_dir": "ckpt"}}
 ]}
JSON
mkdir -p "$work/ckpt"
check "run --spot-drill" expect_exit 0 "$work/o" "$pperf" run --config "$work/drill.json" --out "$work/drill_out.json" --spot-drill
check "checkpoint measured, drill recorded" json_check "$work/drill_out.json" '
j["results"][1]["checkpoint"]["bytes"] > 81226 * 4 and j["results"][1]["checkpoint"]["path"].startswith(sys.argv[1].rsplit("/", 1)[0] + "/ckpt/")
j["results"][1]["spot"]["checkpoint_basis"] == "measured+drill"
abs(j["results"][1]["spot"]["checkpoint_restore_s"] - j["results"][1]["checkpoint"]["restore_ms"]["median"] / 1000 - j["results"][1]["spot_drill"]["restart_s"]) < 1e-9
abs(j["results"][1]["spot_drill"]["predicted_lost_s"] - (j["results"][1]["spot_drill"]["killed_at_step"] - j["results"][1]["spot_drill"]["resumed_from_step"]) * j["results"][1]["step_time_ms"]["mean"] / 1000 - j["results"][1]["checkpoint"]["restore_ms"]["median"] / 1000) < 1e-9
j["results"][1]["spot_drill"]["killed_at_step"] == 15 and j["results"][1]["spot_drill"]["resumed_from_step"] == 10
all(j["results"][1]["spot_drill"][k] > 0 for k in ("restart_s", "restore_s", "rework_s", "predicted_lost_s"))
j["results"][1]["spot_drill"]["measured_lost_s"] < 120
abs(j["results"][1]["spot_drill"]["restart_s"] + j["results"][1]["spot_drill"]["restore_s"] + j["results"][1]["spot_drill"]["rework_s"] - j["results"][1]["spot_drill"]["measured_lost_s"]) < 1e-6
"spot_drill" not in j["results"][0] and "checkpoint" not in j["results"][0]'
check "no checkpoint left behind" bash -c "[ -z \"\$(ls -A '$work/ckpt')\" ]"
check "drill results schema" /usr/bin/python3 tests/e2e/validate_schema.py schemas/results.schema.json "$work/drill_out.json"
# Measured steps have a mean apart from their median: every figure of the bill uses the mean.
check "advise on measured steps" expect_exit 0 "$work/o" "$pperf" advise "$work/drill_out.json" --json "$work/adv3.json"
check "advise prices the mean, as to_train and the Spot model do" /usr/bin/python3 - "$work/drill_out.json" "$work/adv3.json" <<'PY'
import json, sys
run, adv = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
res = {r["configuration"]: r for r in run["results"]}
rows = {(r["configuration"], r["market"]): r for r in adv["rows"]}
od = res["od"]
assert od["step_time_ms"]["mean"] != od["step_time_ms"]["median"]
assert abs(rows[("od", "on_demand")]["usd"] - od["to_train"]["usd"]) < 1e-9 * od["to_train"]["usd"], rows
spot = res["spot"]
assert abs(spot["spot"]["work_hours"] - 100000 * spot["step_time_ms"]["mean"] / 3.6e6) < 1e-12
assert abs(rows[("spot", "on_demand")]["usd"] - spot["spot"]["on_demand_usd"]) < 1e-9
PY
finish
