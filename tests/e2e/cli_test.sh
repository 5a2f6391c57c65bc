#!/usr/bin/env bash
# End-to-end tests of the pperf binary: exit codes, one-line errors, outputs on disk.
# usage: tests/e2e/cli_test.sh PATH/TO/pperf PATH/TO/pperf_results_roundtrip
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
roundtrip="$(readlink -f "$2")"

# --- bad input: one line naming the flag or file + JSON pointer, exit 2 -----------------
check "no command"           expect_exit 2 "$work/o" "$pperf"
check "unknown command"      one_line_error "unknown command 'rn' \(did you mean 'run'\?\)" "$pperf" rn
check "unknown flag"         one_line_error "^pperf run: --bogus: " "$pperf" run --bogus --config configs/smoke.json
check "missing --config"     one_line_error "^pperf run: --config: " "$pperf" run
check "missing config file"  one_line_error "^$work/nope.json: cannot open file$" "$pperf" validate --config "$work/nope.json"
check "missing config name"  one_line_error "^nope.json: no such file in the current directory \($root\) nor among the shipped configs in $root/configs \(.pperf list configs. lists them\)$" "$pperf" validate --config nope.json
printf '{"name": "x", "pricing": {"table": "aws-ec2-us-east-1"}, "workloads": [], "configurations": [{"name": "a", "baseline": true, "instances": [{"type": "p3.2xlarge", "count": -2}]}]}' >"$work/bad.json"
check "bad config pointer"   one_line_error "^$work/bad.json: /configurations/0/instances/0/count: must be a positive integer, got -2$" "$pperf" validate --config "$work/bad.json"
check "--only unknown"       one_line_error "^--only: no configuration 'homogenous' in configs/p3_vs_hetero_mnist.json \(did you mean 'homogeneous'\?\)$" "$pperf" run --config configs/p3_vs_hetero_mnist.json --only homogenous
check "run on a cost config" one_line_error "use .pperf cost." "$pperf" run --config configs/seed000_ex1_resnet50_cost.json
check "cost on a run config" one_line_error "needs step_time_ms" "$pperf" cost --config configs/smoke.json
check "list what"            one_line_error "unknown list 'workload'" "$pperf" list workload
printf '{"name": "x", "measure": {"max_seconds": 1e400}}' >"$work/overflow.json"
check "number overflow"      one_line_error "^$work/overflow.json: /measure/max_seconds: number overflow parsing '1e400'$" "$pperf" validate --config "$work/overflow.json"
printf '' >"$work/empty.json"
check "empty config"         one_line_error "^$work/empty.json: empty file" "$pperf" validate --config "$work/empty.json"
check "--version"            bash -c "'$pperf' --version | grep -qE '^pperf [0-9.]+ \([0-9a-f]{40}(-dirty)?\), built against libtorch [0-9.]+, (CPU only|CUDA [0-9.]+, (NCCL [0-9.]+|no NCCL))$'"

# --- valid for another machine: validate says so (exit 0), run refuses it here (exit 2) ---
python3 -c "
import json; c = json.load(open('configs/p3_vs_hetero_mnist.json'))
c['configurations'][1]['execution']['cpus'] = [64, 65]
json.dump(c, open('$work/big_host.json', 'w'))"
check "validate other host"  bash -c "'$pperf' validate --config '$work/big_host.json' >'$work/v.out' && grep -q 'runnable here: no' '$work/v.out' && grep -q '/configurations/1/execution/cpus: CPU 64 does not exist here' '$work/v.out'"
check "validate runnable"    bash -c "'$pperf' validate --config configs/smoke.json | grep -q 'runnable here: yes'"
# max_steps 40 against a +-3 % target, which may stop only after 3 / 0.03 = 100 steps; 40 steps
# give no interval (60) and 4 rounds of 10 in turns, before the decision's first look (round 8).
edit configs/smoke.json "$work/smoke40.json" 'j["measure"]["max_steps"] = 40'
check "validate: a budget below the precision rule's minimum is a note" bash -c "'$pperf' validate --config '$work/smoke40.json' | grep -q '^  measure: max_steps 40 is below the 100 steps a ±3 % target needs before it may stop'"
check "validate: a budget that gives no interval is a note" bash -c "'$pperf' validate --config '$work/smoke40.json' | grep -q '^  measure: max_steps 40 gives no result an interval (each needs 60 steps)'"
check "validate: a budget that ends the turns before the first look is a note" bash -c "'$pperf' validate --config '$work/smoke40.json' | grep -q '^  measure: max_steps 40 gives 4 round(s) of 10 steps in turns; the decision.s first look is at round 8 (80 steps): the run ends undecided'"
check "run refuses it here"  one_line_error "^$work/big_host.json: /configurations/1/execution/cpus: not runnable on this host: CPU 64 does not exist here" "$pperf" run --config "$work/big_host.json" --out "$work/never.json"
check "run --only the runnable part" expect_exit 0 "$work/o" "$pperf" run --config "$work/big_host.json" --only homogeneous --out "$work/part.json"

# --- help, validate, list --------------------------------------------------------------
for c in run cost validate list; do check "$c --help" expect_exit 0 "$work/o" "$pperf" "$c" --help; done
check "docs/cli.md and docs/guide.md agree with every command's --help" /usr/bin/python3 tests/e2e/cli_doc_check.py "$pperf" docs/cli.md docs/guide.md
check "pperf help decide: decide's own help" bash -c "'$pperf' help decide >'$work/h1' && '$pperf' decide --help >'$work/h2' && cmp -s '$work/h1' '$work/h2' && grep -q '^pperf decide RESULTS' '$work/h1'"
check "decide --help names the file decide writes" bash -c "tr -s ' \n' ' ' <'$work/h2' | grep -qF 'results JSON (default results/decide-<config name>.json)'"
check "run --help names the file run writes" bash -c "'$pperf' run --help | grep -qF 'results JSON (default results/<config name>.json)'"
check "a missing required flag: one clean line naming it once" one_line_error \
  "^pperf launch sagemaker: --role: required, not given \(the job's IAM execution role ARN\)$" \
  "$pperf" launch sagemaker --config smoke --output s3://pperf-results/p --image i --out "$work/jobs"
check "an unknown flag: one line, the closest flag" one_line_error "^pperf run: --wdie: unknown option \(did you mean '--wide'\?\) \(--help lists them\)$" \
  "$pperf" run --config smoke --wdie
check "a flag without its value" one_line_error "^pperf run: --out: needs a value$" "$pperf" run --config smoke --out
check "a flag's value of the wrong type" one_line_error "^pperf launch sagemaker: --data-port: invalid value 'x'$" \
  "$pperf" launch sagemaker --config smoke --role r --output s3://pperf-results/p --image i --out "$work/jobs" --data-port x
# A launched job's request given to decide is not a results file, and is told so.
"$pperf" launch sagemaker --config p4d_vs_hetero --role arn:aws:iam::123456789012:role/r --output s3://pperf-results/p --image i --out "$work/jobs" >/dev/null
request=$(ls "$work"/jobs/*.json | head -1)
check "decide on a SageMaker request: not a pperf results file" one_line_error \
  "^$request: not a pperf results file \(no schema_version nor results; it has [A-Za-z]+, [A-Za-z]+, [A-Za-z]+, \.\.\.\)$" \
  "$pperf" decide "$request" --out "$work/never.json"
# The Python-step configs need a python3 with torch on PATH: validate refuses them here exactly as
# run does (tests/e2e/run_session_test.sh checks that the two agree on every shipped config).
for f in configs/*.json tests/data/*.json; do
  grep -q '"python_step"' "$f" || check "validate $f" expect_exit 0 "$work/o" "$pperf" validate --config "$f"
done
check "list workloads" bash -c "'$pperf' list workloads | grep -q 'mnist_heavy' && '$pperf' list workloads | grep -q 'tiny'"
check "list instances" bash -c "'$pperf' list instances --pricing aws-ec2-us-east-1 | grep -qE 'p4d.24xlarge +96 +1152 +8x NVIDIA A100 40GB +400 +21.9576 +2.466..8.191 \(median 8\)'"
check "list instances: the link, or - where only a burst figure is published" bash -c "'$pperf' list instances --pricing aws-ec2-us-east-1 | grep -qE 'c5.18xlarge +72 +144 +- +25 ' && '$pperf' list instances --pricing aws-ec2-us-east-1 | grep -qE 'p3.2xlarge .* - +3.06'"

# --- pperf cost reproduces the seed tables ---------------------------------------------
check "cost seed 000 ex.1" expect_exit 0 "$work/o" "$pperf" cost --config configs/seed000_ex1_resnet50_cost.json --out "$work/c1.json"
check "cost seed 000 ex.1 figures" json_check "$work/c1.json" '
j["command"] == "cost" and j["status"] == "complete"
all(r["measured"] is False for r in j["results"])
round(j["results"][0]["cost"]["usd_per_step"] * 100, 4) == 0.2010
round(j["results"][1]["cost"]["usd_per_step"] * 100, 4) == 0.1076
int(j["results"][1]["improvement_pct"]) == 46
j["results"][0]["improvement_pct"] is None'
check "cost table shows units" grep -q "USD/100 steps" "$work/o"
check "cost seed 000 ex.2" expect_exit 0 "$work/o" "$pperf" cost --config configs/seed000_ex2_mnist_cost.json --out "$work/c2.json"
check "cost seed 000 ex.2 figures" json_check "$work/c2.json" '
round(j["results"][0]["cost"]["usd_per_step"] * 100, 3) == 0.127
round(j["results"][1]["cost"]["usd_per_step"] * 100, 3) == 0.029
int(j["results"][1]["improvement_pct"]) == 77'
check "cost seed 004" expect_exit 0 "$work/o" "$pperf" cost --config configs/seed004_bert_trn1_vs_p4d_cost.json --out "$work/c4.json" --csv "$work/c4.csv"
check "cost seed 004 figures" json_check "$work/c4.json" '
round(j["results"][0]["to_train"]["usd"], 1) == 68.6
round(j["results"][1]["to_train"]["usd"], 1) == 41.4'
check "cost seed 004 csv" bash -c "[ \$(wc -l <'$work/c4.csv') -eq 3 ] && grep -q '\"trn1\"' '$work/c4.csv'"

# --- pperf run: measured, priced, every contract field, provenance ---------------------
check "run tiny" expect_exit 0 "$work/o" "$pperf" run --config tests/data/tiny_run.json --out "$work/run.json" --csv "$work/run.csv"
# The service item may carry only events that come from the host's load (a busy host, a
# warm-up trend under tests running beside it); any other (a dropped data worker) fails.
check "run tiny results" json_check "$work/run.json" '
j["schema_version"] == 1 and j["status"] == "complete" and j["command"] == "run"
j["tool"]["name"] == "pperf" and len(j["tool"]["git_sha"]) >= 7
len(j["config"]["sha256"]) == 64
j["host"]["blas"]["library"] == "openblas-pthread"
j["host"]["torch"]["libtorch_version"].startswith("1.13")
j["host"]["logical_cpus"] >= 1 and j["host"]["memory_gib"] > 0 and j["host"]["cpu_model"]
j["pricing"]["table"] == "aws-ec2-us-east-1" and j["pricing"]["retrieved"]
[r["status"] for r in j["results"]] == ["ok", "ok", "ok"]
j["results"][2]["execution"]["data"]["mode"] == "service" and len(j["results"][2]["execution"]["data"]["endpoints"]) == 1
j["results"][2]["step_time_ms"]["n"] >= 5 and [e for e in j["results"][2]["events"] if not e.startswith(("busy host:", "still warming up:"))] == []
all(r["execution"]["emulated"] is True for r in j["results"])
all(r["measurement"]["executor"] == "process" and r["samples_per_step"] == r["batch_size"] for r in j["results"])
all(r["measured"] and r["step_time_ms"]["n"] == len(r["step_time_ms"]["samples"]) >= 5 for r in j["results"][:2])
all(r["step_time_ms"]["ci95"][0] <= r["step_time_ms"]["median"] <= r["step_time_ms"]["ci95"][1] for r in j["results"][:2])
all(0 <= r["data_wait_fraction"] <= 1 for r in j["results"][:2])
all(r["data"]["source"] == "fashion-mnist" and r["model"]["params"] == 75338 for r in j["results"][:2])
all(r["execution"]["threads"]["effective"] == 1 for r in j["results"][:2])
j["results"][1]["instances"][0]["market"] == "spot" and j["results"][1]["instances"][0]["price_basis"] == "spot_median"
j["results"][1]["improvement_pct"] is not None and len(j["results"][1]["improvement_pct_ci95"]) == 2
j["results"][0]["to_train"]["steps"] == 1000
abs(j["results"][0]["cost"]["usd_per_step"] - 3.06 * j["results"][0]["step_time_ms"]["mean"] / 3.6e6) < 1e-12
all(r["step_time_ms"]["mean_ci95"][0] <= r["step_time_ms"]["mean"] <= r["step_time_ms"]["mean_ci95"][1] for r in j["results"][:2])
all(r["stop_reason"] in ("target_rel_ci", "decided", "max_steps", "max_seconds") for r in j["results"])
all(r["converged"] == (r["stop_reason"] in ("target_rel_ci", "decided")) for r in j["results"])'
check "run tiny csv" bash -c "[ \$(wc -l <'$work/run.csv') -eq 4 ]"

# --- the seed's homogeneous MNIST configuration runs for real ---------------------------
edit configs/p3_vs_hetero_mnist.json "$work/p3_short.json" 'j["measure"].update(max_steps=40, max_seconds=30)'
check "run p3 homogeneous" expect_exit 0 "$work/o" "$pperf" run --config "$work/p3_short.json" --only homogeneous --out "$work/p3.json"
check "run p3 homogeneous results" json_check "$work/p3.json" '
len(j["results"]) == 1 and j["results"][0]["status"] == "ok"
j["results"][0]["model"]["params"] == 1199882 and j["results"][0]["batch_size"] == 256
j["results"][0]["throughput"]["samples_per_s"] > 0'

# --- the README's main job: seed 000's ResNet50 experiment, both configurations measured ---
check "run p4d vs hetero" expect_exit 0 "$work/o" "$pperf" run --config configs/p4d_vs_hetero.json --out "$work/p4d.json"
check "run p4d vs hetero results" json_check "$work/p4d.json" '
[r["status"] for r in j["results"]] == ["ok", "ok"]
j["results"][1]["execution"]["data"]["mode"] == "service" and len(j["results"][1]["execution"]["data"]["endpoints"]) == 2
j["results"][1]["execution"]["cpus"] == [0] and j["results"][1]["execution"]["data"]["cpus"] == [1]
j["results"][1]["improvement_pct"] is not None and abs(j["results"][1]["cost"]["usd_per_hour"] - 45.032) < 1e-9'

# --- convergence: a run that stops on max_steps says so, and --require-converged fails it --
python3 -c "
import json; c = json.load(open('tests/data/tiny_run.json'))
c['measure'] = {'warmup_steps': 1, 'min_steps': 6, 'max_steps': 6, 'max_seconds': 60, 'target_rel_ci': 1e-9}
json.dump(c, open('$work/unconverged.json', 'w'))"
check "unconverged run exits 0" expect_exit 0 "$work/o" "$pperf" run --config "$work/unconverged.json" --only ondemand --out "$work/unc.json"
check "unconverged console mark" grep -q "unconverged" "$work/o"
check "unconverged fields" json_check "$work/unc.json" '
j["results"][0]["converged"] is False and j["results"][0]["stop_reason"] == "max_steps"'
check "--require-converged exits 1" expect_exit 1 "$work/o" "$pperf" run --config "$work/unconverged.json" --only ondemand --out "$work/unc.json" --require-converged
check "--require-converged names the result" grep -q "require-converged: mnist_heavy/tiny on ondemand did not converge" "$work/o"

# --- an interrupted run leaves valid JSON that says so ----------------------------------
python3 -c "
import json; c = json.load(open('tests/data/tiny_run.json'))
c['measure'] = {'warmup_steps': 0, 'min_steps': 100000, 'max_steps': 100000, 'max_seconds': 300}
json.dump(c, open('$work/long.json', 'w'))"
"$pperf" run --config "$work/long.json" --out "$work/int.json" >"$work/int.log" 2>&1 &
pid=$!
# Interrupt once the first item has measured for a while ("started" is said once it measures).
for _ in $(seq 600); do grep -q "started (item 1 of" "$work/int.log" && break; sleep 0.1; done
sleep 4
kill -INT "$pid"
wait "$pid"
code=$?
check "interrupt exits 3" test "$code" -eq 3
check "interrupt leaves no child" no_process "$work/long.json"
check "interrupted JSON" json_check "$work/int.json" '
j["status"] == "interrupted"
j["results"][0]["status"] == "ok" and j["results"][0]["step_time_ms"]["n"] > 0
any("interrupted" in e for e in j["results"][0]["events"])'

# --- pperf killed outright: its measuring process and data workers die with it ------------
python3 -c "
import json; c = json.load(open('$work/long.json'))
c['configurations'] = [c['configurations'][2]] if len(c['configurations']) > 2 else c['configurations']
c['configurations'][0]['baseline'] = True
json.dump(c, open('$work/long_service.json', 'w'))"
"$pperf" run --config "$work/long_service.json" --out "$work/killed.json" >"$work/killed.log" 2>&1 &
pid=$!
for _ in $(seq 100); do pgrep -f -- "data-worker --config $work/long_service.json" >/dev/null && break; sleep 0.1; done
sleep 2
check "children were running" pgrep -f -- "$work/long_service.json" >/dev/null
wpid=$(pgrep -f -- "data-worker --config $work/long_service.json" | head -1)
check "spawned worker has a per-run token" bash -c "tr '\\0' '\\n' </proc/$wpid/environ | grep -qE '^PPERF_DATA_TOKEN=[0-9a-f]{64}$'"
check "token not on the command line" bash -c "! tr '\\0' ' ' </proc/$wpid/cmdline | grep -q -- --token"
kill -KILL "$pid"; wait "$pid" 2>/dev/null
for _ in $(seq 50); do pgrep -f -- "$work/long_service.json" >/dev/null || break; sleep 0.1; done
check "SIGKILL leaves no child" no_process "$work/long_service.json"
check "SIGKILL leaves valid JSON beside --out" json_check "$work/killed.json.in-progress" 'j["status"] == "interrupted"'

# --- relative paths in a config resolve against its directory, wherever pperf starts --------
mkdir -p "$work/sub"
cp tests/data/tiny_mlp.pt "$work/sub/model.pt"
printf '{"name": "relative", "pricing": {"table": "aws-ec2-us-east-1"}, "measure": {"warmup_steps": 0, "min_steps": 2, "max_steps": 2},
  "workloads": [{"name": "torchscript", "batch_size": 4, "params": {"path": "model.pt", "input_shape": [64]}}],
  "configurations": [{"name": "a", "baseline": true, "instances": [{"type": "p3.2xlarge"}]}]}' >"$work/sub/relative.json"
check "relative path runs from elsewhere" bash -c "cd / && '$pperf' run --config '$work/sub/relative.json' --out '$work/relative.out.json' --quiet"
sed 's/model.pt/missing.pt/' "$work/sub/relative.json" >"$work/sub/missing.json"
check "validate: a missing file is not runnable here" bash -c "'$pperf' validate --config '$work/sub/missing.json' | grep -q '/workloads/0/params/path: $work/sub/missing.pt does not exist here'"
check "run refuses a missing file"   one_line_error "^$work/sub/missing.json: /workloads/0/params/path: not runnable on this host: $work/sub/missing.pt does not exist here$" \
  "$pperf" run --config "$work/sub/missing.json" --out "$work/never.json"

# --- outputs: real causes, no stub files, one writer at a time, replacements said ----------
check "--out names the real cause" one_line_error "^--out: cannot write /proc/x.json: the directory /proc does not accept new files" \
  "$pperf" cost --config configs/seed000_ex1_resnet50_cost.json --out /proc/x.json
check "failing --csv leaves no stub" bash -c "'$pperf' cost --config configs/seed000_ex1_resnet50_cost.json --out '$work/stub.json' --csv /proc/x.csv >/dev/null 2>&1; [ \$? -eq 2 ] && [ ! -e '$work/stub.json' ]"
"$pperf" cost --config configs/seed000_ex1_resnet50_cost.json --out "$work/twice.json" >/dev/null
check "a replaced results file is said" bash -c "'$pperf' cost --config configs/seed000_ex1_resnet50_cost.json --out '$work/twice.json' | grep -q 'replaced the results of the run started'"
"$pperf" run --config "$work/long.json" --out "$work/locked.json" >/dev/null 2>&1 &
lpid=$!
for _ in $(seq 100); do [ -e "$work/locked.json" ] && break; sleep 0.1; done
check "a second writer of one --out is refused" one_line_error "^--out: $work/locked.json is being written by another pperf" \
  "$pperf" run --config "$work/long.json" --out "$work/locked.json"
kill -INT "$lpid"; wait "$lpid"
check "--quiet prints nothing" bash -c "[ -z \"\$('$pperf' cost --config configs/seed000_ex1_resnet50_cost.json --out '$work/q.json' --quiet 2>&1)\" ]"
check "list with no argument" bash -c "'$pperf' list | grep -q 'pperf list instances'"

# --- a dead endpoint says what is wrong ----------------------------------------------------
python3 -c "
import json; c = json.load(open('tests/data/tiny_run.json'))
c['configurations'] = [c['configurations'][0]]
c['configurations'][0]['execution']['data'] = {'mode': 'service', 'endpoints': ['127.0.0.1:1']}
json.dump(c, open('$work/dead.json', 'w'))"
check "dead endpoint: connection refused" bash -c "'$pperf' run --config '$work/dead.json' --out '$work/dead.out.json' --quiet; grep -q 'connection refused at 127.0.0.1:1' '$work/dead.out.json'"

# --- a data worker that dies mid-run: the measured steps are kept, marked partial -----------
"$pperf" run --config "$work/long_service.json" --out "$work/partial.json" >"$work/partial.log" 2>&1 &
rpid=$!
for _ in $(seq 100); do pgrep -f -- "data-worker --config $work/long_service.json" >/dev/null && break; sleep 0.1; done
sleep 6  # its measuring process sets up after the worker starts (slow on a loaded host)
pkill -KILL -f -- "data-worker --config $work/long_service.json"
wait "$rpid"
check "partial run exits 1" test $? -eq 1
check "partial result kept" json_check "$work/partial.json" '
j["results"][0]["status"] == "ok" and j["results"][0]["partial"] is True and j["results"][0]["step_time_ms"]["n"] > 0
"data source failed after" in j["results"][0]["measurement"]["stop_reason"]'
check "partial flagged on the console" grep -q "partial: a data source failed mid-run" "$work/partial.log"

# --- progress on a terminal: a self-updating line with the CI and an ETA -------------------
python3 -c "
import json; c = json.load(open('tests/data/tiny_run.json'))
c['measure'] = {'warmup_steps': 1, 'min_steps': 100000, 'max_steps': 100000, 'max_seconds': 2}
json.dump(c, open('$work/tty_cfg.json', 'w'))"
COLUMNS=100 script -qfec "'$pperf' run --config '$work/tty_cfg.json' --only ondemand --out '$work/tty.json'" /dev/null >"$work/tty.log" 2>&1
check "terminal progress line" bash -c "grep -q \$'\\r' '$work/tty.log' && grep -q 'ondemand: step [0-9]*/100000, CI ±[0-9.]* % of median (target 2.0 %), ETA [0-9]* s' '$work/tty.log'"
check "terminal table fits 100 columns" bash -c "sed -n '/^configuration/,/^Measured/p' '$work/tty.log' | tr -d '\\r' | awk 'length > 100 { bad = 1 } END { exit bad }'"
# A pseudo-terminal that reports 0 columns (script's, without a terminal around it) and no COLUMNS:
# its width is unknown, taken as 100, not as a file's (every column).
env -u COLUMNS script -qfec "stty cols 0 2>/dev/null; '$pperf' run --config '$work/tty_cfg.json' --only ondemand --out '$work/tty0.json'" /dev/null >"$work/tty0.log" 2>&1
check "a terminal of 0 columns gets the table of 100" bash -c "sed -n '/^configuration/,/^Measured/p' '$work/tty0.log' | tr -d '\\r' | awk 'length > 100 { bad = 1 } END { exit bad }' \
  && grep -q '^configuration' '$work/tty0.log'"
check "no progress lines without a terminal" bash -c "'$pperf' run --config tests/data/tiny_run.json --only ondemand --out '$work/notty.json' 2>&1 >/dev/null | grep -q 'started (item 1 of 1)'"

# --- a batch that cannot fit is refused before anything runs, with the estimate and the limit ---
printf '{"name": "huge", "pricing": {"table": "aws-ec2-us-east-1"},
  "workloads": [{"name": "resnet50_augment", "preset": "cifar", "batch_size": 2000, "params": {"images": 16}}],
  "configurations": [{"name": "a", "baseline": true, "instances": [{"type": "p3.2xlarge"}]}]}' >"$work/huge.json"
check "oversized batch refused before anything runs" one_line_error \
  "^$work/huge.json: /workloads/0/batch_size: does not fit in memory \(configuration 'a'\): one training step .*the limit is 1 GiB: lower batch_size or raise --max-memory$" \
  "$pperf" run --config "$work/huge.json" --out "$work/huge.out.json" --max-memory 1
check "the limit as given: --max-memory 0.12 is 0.12 GiB" one_line_error "the limit is 0.12 GiB: lower batch_size or raise --max-memory$" \
  "$pperf" run --config "$work/huge.json" --out "$work/huge.out.json" --max-memory 0.12
check "oversized batch: nothing written" [ ! -e "$work/huge.out.json" ]

# --- every result failed: the run says failed, exit 1 ------------------------------------
printf '{"name": "allfail", "pricing": {"table": "aws-ec2-us-east-1"}, "measure": {"warmup_steps": 0, "min_steps": 1, "max_steps": 1},
  "workloads": [{"name": "torchscript", "batch_size": 4, "params": {"path": "%s/o", "input_shape": [4]}}],
  "configurations": [{"name": "a", "baseline": true, "instances": [{"type": "p3.2xlarge"}]}]}' "$work" >"$work/allfail.json"
check "all failed exits 1" expect_exit 1 "$work/o" "$pperf" run --config "$work/allfail.json" --out "$work/allfail.out.json"
check "all failed status" json_check "$work/allfail.out.json" '
j["status"] == "failed" and j["results"][0]["status"] == "failed" and "TorchScript" in j["results"][0]["reason"]'

# --- every results file written above reads back and writes byte-identical ---------------
check "results round-trip" "$roundtrip" "$work/c1.json" "$work/c2.json" "$work/c4.json" "$work/run.json" \
  "$work/p3.json" "$work/p4d.json" "$work/int.json" "$work/killed.json.in-progress" "$work/allfail.out.json" "$work/part.json"

# --- ... and matches schemas/results.schema.json (Debian's python3-jsonschema) ---------------
check "results files match the schema" /usr/bin/python3 tests/e2e/validate_schema.py schemas/results.schema.json \
  "$work/c1.json" "$work/c2.json" "$work/c4.json" "$work/run.json" "$work/p3.json" "$work/p4d.json" "$work/int.json" \
  "$work/killed.json.in-progress" "$work/allfail.out.json" "$work/part.json"

# --- the data worker: token off loopback, survives garbage, clean exit on SIGTERM ---------
check "worker off loopback needs a token" one_line_error "^--listen: 0.0.0.0:0 is not loopback: a token is required" \
  "$pperf" data-worker --config tests/data/tiny_run.json --listen 0.0.0.0:0
"$pperf" data-worker --config tests/data/tiny_run.json >"$work/worker.out" 2>&1 &
wpid=$!
for _ in $(seq 100); do grep -q "listening on" "$work/worker.out" && break; sleep 0.1; done
port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/worker.out")
check "worker prints its port" test -n "$port"
check "worker listen needs a port" one_line_error "^--listen: expected HOST:PORT" "$pperf" data-worker --config tests/data/tiny_run.json --listen 127.0.0.1
check "127.-names are resolved, not trusted" one_line_error "^--listen: 127.pperf-nowhere.invalid:0 is not loopback: a token is required" \
  "$pperf" data-worker --config tests/data/tiny_run.json --listen 127.pperf-nowhere.invalid:0
check "missing token file" one_line_error "^--token-file: cannot read a token from $work/none" \
  "$pperf" data-worker --config tests/data/tiny_run.json --token-file "$work/none"
check "token and token file" one_line_error "^--token: give --token or --token-file" \
  "$pperf" data-worker --config tests/data/tiny_run.json --token a --token-file "$work/none"
"$pperf" data-worker --config tests/data/tiny_run.json --token visible >"$work/tw.out" 2>"$work/tw.err" &
twpid=$!
for _ in $(seq 100); do grep -q "listening on" "$work/tw.out" && break; sleep 0.1; done
kill -TERM "$twpid"; wait "$twpid"
check "--token warns it is visible" grep -q "warning: --token is visible to every local user" "$work/tw.err"
# In a subshell that ignores SIGPIPE: the worker may drop the connection before the garbage is
# written, and a write to a closed socket must fail the write, not kill this script.
( trap '' PIPE; exec 3<>"/dev/tcp/127.0.0.1/$port" && printf 'GET / HTTP/1.1\r\n\r\n\x00\xff garbage' >&3 ) 2>/dev/null
sleep 0.3
check "worker survives a malformed request" kill -0 "$wpid"
kill -TERM "$wpid"
wait "$wpid"
check "worker exits 0 on SIGTERM" test $? -eq 0

finish
