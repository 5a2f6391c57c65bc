#!/usr/bin/env bash
# `pperf launch skypilot` held against SkyPilot's own code (PyPI skypilot 0.14.1, in the venv
# scripts/setup-launch-venv.sh makes) and its real task schema (../shared/real-data/launchers/):
# every task YAML written for the shipped configs that can run on real instances passes the schema
# and SkyPilot's loader (tests/e2e/launch_platforms.py); seed 000's job group runs on loopback
# (tests/e2e/platform_harness.py plays SkyPilot's nodes: SKYPILOT_NODE_RANK, SKYPILOT_NODE_IPS,
# SKYPILOT_JOBGROUP_NAME, the bucket mount) to a decision whose results say where they ran; a
# Spot restart resumes; bad input is exit 2, one line, nothing written.
# usage: tests/e2e/launch_skypilot_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
schema="$real_data/launchers/skypilot/task_schema.sky-0.14.1.json"
[ -f "$schema" ] || { echo "SKIP: $schema is absent (SkyPilot's task schema, ../shared/real-data)"; exit 77; }
launch_venv_or_skip
launch() { "$pperf" launch skypilot --output s3://pperf-test/results --job-suffix t1 "$@"; }

# --- every shipped config: written, or refused with its reason ----------------------------------
declare -A outcome
for f in configs/*.json; do
  name="$(basename "$f" .json)"
  launch --config "$name" --image pperf:1 --out "$work/all/$name" >"$work/all-$name.log" 2>&1
  outcome[$name]=$?
done
written="$(ls "$work"/all/*/*.yaml 2>/dev/null | wc -l)"
check "the measurable shipped configs are written ($written task files)" bash -c "$(declare -p outcome); for n in p4d_vs_hetero p3_vs_hetero_mnist seed003_thread_sweep p4d_gpu python_step_bert; do [ \${outcome[\$n]} -eq 0 ] || { echo \"  \$n: exit \${outcome[\$n]}\"; cat $work/all-\$n.log; exit 1; }; done"
check "Trainium refused for what it is (not a CUDA GPU), never told to use CUDA, nothing written" bash -c "$(declare -p outcome); for n in trn1_vs_p4d_bert trn1_vs_p4d_bert_python; do [ \${outcome[\$n]} -eq 2 ] && grep -q \"configuration 'trn1': ml.trn1.32xlarge carries 16 AWS Trainium accelerator(s)\" $work/all-\$n.log && ! grep -qi cuda $work/all-\$n.log && [ ! -e $work/all/\$n ] || exit 1; done"
check "priced-only configs refused, nothing written" bash -c "[ ${outcome[seed000_ex1_resnet50_cost]} -eq 2 ] && grep -q 'priced only' $work/all-seed000_ex1_resnet50_cost.log && [ ! -e $work/all/seed000_ex1_resnet50_cost ]"
check "a GPU instance trained on its CPU refused (smoke), naming the configuration" bash -c "[ ${outcome[smoke]} -eq 2 ] && grep -qF \"smoke.json: /configurations/0/execution/device: configuration 'one-loader-thread': \" $work/all-smoke.log"
check "every task file passes SkyPilot's schema and loader" "$venv_python" tests/e2e/launch_platforms.py skypilot "$schema" $(ls "$work"/all/*/*.yaml)

# --- seed 000: one job group, the trainer and the data task -------------------------------------
group="$(ls "$work"/all/p4d_vs_hetero/*.yaml)"
check "p4d_vs_hetero is one job group" [ "$(ls "$work"/all/p4d_vs_hetero/*.yaml | wc -l)" -eq 1 ]
docs() { "$venv_python" -c 'import json, sys, yaml; print(json.dumps([d for d in yaml.safe_load_all(open(sys.argv[1])) if d]))' "$1" >"$2"; }
docs "$group" "$work/group.json"
check "the group: parallel, ended with the trainer; the trainer and 2 x c5.18xlarge, both configurations in turns" json_check "$work/group.json" '
j[0] == {"name": "p4d-vs-hetero-p4d-24xlarge-t1", "execution": "parallel", "primary_tasks": ["trainer"], "inter_connection": False}
[d["name"] for d in j[1:]] == ["trainer", "data-c5-18xlarge"]
j[1]["resources"] == {"infra": "aws/us-east-1", "instance_type": "p4d.24xlarge", "use_spot": False, "image_id": "docker:pperf:1"} and j[1]["num_nodes"] == 1
j[2]["resources"]["instance_type"] == "c5.18xlarge" and j[2]["num_nodes"] == 2
"--configurations homogeneous,heterogeneous" in j[1]["run"] and "--data heterogeneous=data-c5-18xlarge:2" in j[1]["run"]
"--workers 72" in j[2]["run"] and "--max-runtime-s 1680" in j[2]["run"]
all("--peers /pperf-output/p4d-vs-hetero-p4d-24xlarge-t1/peers" in d["run"] for d in j[1:]) and "--data-wait-s 600" in j[2]["run"]
j[1]["secrets"] == j[2]["secrets"] and len(j[1]["secrets"]["PPERF_DATA_TOKEN"]) == 64
j[1]["secrets"]["PPERF_DATA_TOKEN"] not in j[1]["run"] + j[2]["run"]
j[1]["file_mounts"] == {"/pperf-output": {"source": "s3://pperf-test/results", "mode": "MOUNT_CACHED"}}'
check "the file is readable by its owner only (it holds the token)" [ "$(stat -c %a "$group")" = 600 ]
docs "$(ls "$work"/all/seed003_thread_sweep/*.yaml)" "$work/one.json"
check "a homogeneous config: one task, no secret" json_check "$work/one.json" '
len(j) == 1 and j[0]["num_nodes"] == 1 and "secrets" not in j[0] and j[0]["resources"]["instance_type"] == "c5.9xlarge"'
check "--spot: every task on Spot" expect_exit 0 "$work/o" launch --config p4d_vs_hetero --image pperf:1 --spot --out "$work/spot"
docs "$(ls "$work"/spot/*.yaml)" "$work/spot.json"
check "  use_spot in both tasks, the name says Spot" json_check "$work/spot.json" '
j[0]["name"] == "p4d-vs-hetero-p4d-24xlarge-spot-t1" and all(d["resources"]["use_spot"] is True for d in j[1:])'
check "--bundle that is not there refused" one_line_error "^--bundle: '/nonexistent' is not a GPU bundle \\(no run.sh there" launch --config p4d_vs_hetero --bundle /nonexistent --out "$work/w"
check "  nothing written" [ ! -e "$work/w" ]
# What `sky jobs launch` uploads as the workdir: the bundle's entry files (scripts/gpu-bundle.sh's run.sh and TORCH_VERSION).
mkdir -p "$work/gpu-bundle" && touch "$work/gpu-bundle/run.sh" && echo 2.11.0+cu130 >"$work/gpu-bundle/TORCH_VERSION"
check "the GPU bundle as workdir (no image): setup brings its torch, run starts run.sh" expect_exit 0 "$work/o" launch --config p4d_vs_hetero --bundle "$work/gpu-bundle" --out "$work/bundle"
docs "$(ls "$work"/bundle/*.yaml)" "$work/bundle.json"
check "  workdir, setup and run" json_check "$work/bundle.json" '
all(d["workdir"] == "'"$work/gpu-bundle"'" and d["run"].startswith("set -e\n./run.sh pperf node-entry") for d in j[1:])
j[1]["setup"] == "set -e\npython3 -c '"'"'import torch'"'"' 2>/dev/null || python3 -m pip install --quiet \"torch==2.11.0\"\n"
j[2]["setup"] == "set -e\npython3 -c '"'"'import torch'"'"' 2>/dev/null || python3 -m pip install --quiet \"torch==2.11.0\" --index-url https://download.pytorch.org/whl/cpu\n"
"image_id" not in j[1]["resources"]'
check "  by pip's own version rules (packaging): a public version an index serves, met by the bundle's torch and the CPU wheel" "$venv_python" -c '
import json, re, sys
from packaging.requirements import Requirement
from packaging.version import Version
for d in json.load(open(sys.argv[1]))[1:]:
    r = Requirement(re.search(r"torch==[0-9.a-z+]+", d["setup"]).group(0))
    v = Version(next(iter(r.specifier)).version)
    assert v.local is None, (d["name"], str(v))
    assert all(r.specifier.contains(w) for w in ("2.11.0+cu130", "2.11.0+cpu", "2.11.0")), r
' "$work/bundle.json"
check "  passes SkyPilot's schema and loader" "$venv_python" tests/e2e/launch_platforms.py skypilot "$schema" "$work"/spot/*.yaml "$work"/bundle/*.yaml

# --- seed 000's job group on loopback, to a decision -------------------------------------------
mkdir -p "$work/code"
ci_seed000_config "$work/code/seed000.json"
(cd "$work/code" && "$pperf" launch skypilot --config seed000.json --output s3://pperf-ci/out --image pperf:ci --job-suffix ci --out "$work/ci") >"$work/ci.log" 2>&1
file="$work/ci/seed000-ci-c5-9xlarge-ci.yaml"
check "launch writes the CI job group" [ -f "$file" ]
check "the job group runs to its end on every node" "$venv_python" tests/e2e/platform_harness.py skypilot "$pperf" "$file" "$work/job" "$work/code" --timeout-s 150
check "every node exits 0 (the data nodes stopped by the trainer)" json_check "$work/job/summary.json" '
sorted(j["hosts"]) == ["data-c5-18xlarge-0", "data-c5-18xlarge-1", "trainer-0"]
all(h["exit"] == 0 for h in j["hosts"].values())'
results="$work/job/mount/seed000-ci-c5-9xlarge-ci/results.json"
check "the results: both configurations measured natively, a verdict with its interval, where they ran" json_check "$results" '
[r["configuration"] for r in j["results"]] == ["homogeneous", "heterogeneous"]
all(r["status"] == "ok" and r["execution"]["emulated"] is False for r in j["results"])
all(r["preset"] == "tiny" and r["batch_size"] == 8 for r in j["results"])
j["results"][1]["decision"]["verdict"] in ("cheaper", "dearer", "equivalent", "undecided")
len(j["results"][1]["decision"]["improvement_pct_bounds"]) == 2
j["placement"]["platform"] == "skypilot" and j["placement"]["job_name"] == "seed000-ci-c5-9xlarge-ci"
j["placement"]["job_id"].startswith("sky-managed-") and j["placement"]["instance_type"] == "c5.9xlarge"
j["placement"]["group"] == "trainer" and j["placement"]["host_id"] == "trainer-0"'
check "SkyPilot's optimizer code gives a group pinned to aws no in-group names: none resolve on the played nodes" json_check "$work/job/summary.json" 'j["in_group_names"] is False'
check "the trainer found the data nodes by the addresses they published under the bucket" bash -c "grep -q '\"data_hosts\":{\"heterogeneous\":\[\"data-c5-18xlarge-0\",\"data-c5-18xlarge-1\"\]}' '$work/job/trainer-0.log' && grep -q 'data host data-c5-18xlarge-1 is up at 127.0.0.4' '$work/job/trainer-0.log' && [ \"\$(cat '$work/job/mount/seed000-ci-c5-9xlarge-ci/peers/data-c5-18xlarge-0')\" = 127.0.0.3 ] && [ \"\$(cat '$work/job/mount/seed000-ci-c5-9xlarge-ci/peers/trainer')\" = 127.0.0.2 ]"
check "each data node served on its own address from SKYPILOT_NODE_IPS" bash -c "grep -q 'listening on 127.0.0.3:50051' '$work/job/data-c5-18xlarge-0.log' && grep -q 'listening on 127.0.0.4:50051' '$work/job/data-c5-18xlarge-1.log'"
check "the report beside the results" bash -c "[ -s '$work/job/mount/seed000-ci-c5-9xlarge-ci/report.html' ]"
token="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[1]["secrets"]["PPERF_DATA_TOKEN"])' <("$venv_python" -c 'import json, sys, yaml; print(json.dumps([d for d in yaml.safe_load_all(open(sys.argv[1])) if d]))' "$file"))"
check "the token is in no node's log" bash -c "! grep -l '$token' $work/job/*.log"
check "no node process left" no_process "node-entry --platform skypilot"

check "priced where it ran: EC2's table, each ml. type as its EC2 instance" json_check "$results" '
j["pricing"]["table"] == "aws-ec2-us-east-1" and [g["type"] for g in j["results"][1]["instances"]] == ["c5.9xlarge", "c5.18xlarge"]
all(g["market"] == "on_demand" for r in j["results"] for g in r["instances"])'

# --- --spot: the job on Spot, its results priced as Spot -------------------------------------------
(cd "$work/code" && "$pperf" launch skypilot --config seed000.json --output s3://pperf-ci/out --image pperf:ci --job-suffix spot --spot --out "$work/cispot") >"$work/cispot.log" 2>&1
check "--spot: the job group runs to its end" "$venv_python" tests/e2e/platform_harness.py skypilot "$pperf" "$work/cispot/seed000-ci-c5-9xlarge-spot-spot.yaml" "$work/jobspot" "$work/code" --timeout-s 150
check "  its results say Spot and are priced at the EC2 table's Spot rates" json_check "$work/jobspot/mount/seed000-ci-c5-9xlarge-spot-spot/results.json" '
all(g["market"] == "spot" for r in j["results"] for g in r["instances"]) and j["pricing"]["table"] == "aws-ec2-us-east-1"
j["results"][0]["instances"][0]["usd_per_hour"] == 0.6571'

# --- a Spot recovery: the bucket kept the finished results, not measured again ----------------------
cp "$results" "$work/first.json"
rm "$results"
check "the recovered job group ends on every node" "$venv_python" tests/e2e/platform_harness.py skypilot "$pperf" "$file" "$work/job" "$work/code" --timeout-s 60
check "  not measured again, the same results" bash -c "grep -q 'not measured again' '$work/job/trainer-0.log' && cmp '$work/first.json' '$results'"

# --- a data node that never comes up fails the trainer within its wait, naming it -------------------
sed 's/--data-wait-s 600/--data-wait-s 3/' "$file" >"$work/nodata.yaml"
check "no data node: the trainer gives up" bash -c "! '$venv_python' tests/e2e/platform_harness.py skypilot '$pperf' '$work/nodata.yaml' '$work/nodata' '$work/code' --only-trainer --timeout-s 30; grep -q '\"exit\": 3' '$work/nodata/summary.json'"
check "  naming the host" grep -qE "data host data-c5-18xlarge-[01] did not publish its address in .*/seed000-ci-c5-9xlarge-ci/peers within 3 s" "$work/nodata/trainer-0.log"

# --- a trainer that never starts (no capacity for it): the data nodes stop within their wait -------
check "no trainer: every data node stops within its wait" bash -c "! '$venv_python' tests/e2e/platform_harness.py skypilot '$pperf' '$work/nodata.yaml' '$work/notrainer' '$work/code' --no-trainer --timeout-s 30; [ \$(grep -c '\"exit\": 3' '$work/notrainer/summary.json') -eq 2 ]"
check "  saying why" grep -q "no trainer published its start in .*/peers within 3 s (--data-wait-s): this data host stops" "$work/notrainer/data-c5-18xlarge-0.log"

# --- TLS on request: the data nodes serve with the job's certificate, the trainer trusts it --------------
tls_dir_for_harness "$work/tls"
(cd "$work/code" && "$pperf" launch skypilot --config seed000.json --output s3://pperf-ci/out --image pperf:ci --job-suffix tls --tls "$work/tls" --out "$work/citls") >"$work/citls.log" 2>&1
tls_file="$work/citls/seed000-ci-c5-9xlarge-tls.yaml"
docs "$tls_file" "$work/tls.json"
check "--tls: the directory uploaded to /pperf-tls on every task, --tls-dir in every run" json_check "$work/tls.json" '
all(d["file_mounts"]["/pperf-tls"] == "'"$work/tls"'" and "--tls-dir /pperf-tls" in d["run"] for d in j[1:])'
check "  passes SkyPilot's schema and loader" "$venv_python" tests/e2e/launch_platforms.py skypilot "$schema" "$tls_file"
check "  the job group runs to a decision over TLS" "$venv_python" tests/e2e/platform_harness.py skypilot "$pperf" "$tls_file" "$work/jobtls" "$work/code" --timeout-s 150
check "  every node exits 0" json_check "$work/jobtls/summary.json" 'all(h["exit"] == 0 for h in j["hosts"].values())'
check "  both configurations ok" json_check "$work/jobtls/mount/seed000-ci-c5-9xlarge-tls/results.json" 'all(r["status"] == "ok" for r in j["results"])'
# A trainer with tls_ca reaches only TLS workers ("it speaks plaintext HTTP/2" otherwise): ok results
# through a config trusting the job's certificate are results over TLS.
check "  the trainer's config trusted the job's certificate" json_check "$work/code/.seed000.seed000-ci-c5-9xlarge-tls.json" '
j["configurations"][1]["execution"]["data"]["tls_ca"] == "'"$work/tls/cert.pem"'"
j["configurations"][1]["execution"]["data"]["endpoints"] == ["127.0.0.3:50051", "127.0.0.4:50051"]'
check "--tls without its files refused" one_line_error "^--tls: .*/code/cert.pem is missing" \
  "$pperf" launch skypilot --config p4d_vs_hetero --output s3://pperf-test/p --tls "$work/code" --out "$work/w"

# --- bad input: exit 2, one line, nothing written ----------------------------------------------------
check "an --output SkyPilot cannot mount refused" one_line_error "^--output: 'ftp://x' is not a bucket SkyPilot mounts" \
  "$pperf" launch skypilot --config p4d_vs_hetero --output ftp://x --out "$work/w"
check "  nothing written" [ ! -e "$work/w" ]
check "node-entry without SkyPilot's variables: exit 2 naming the variable" one_line_error "^pperf node-entry: SKYPILOT_NODE_RANK: not set" \
  "$pperf" node-entry --platform skypilot --job j --group trainer --instance-type c5.9xlarge --config smoke --config-sha256 x \
  --configurations a --out "$work/w" --max-runtime-s 60
check "node-entry: a trainer task of two nodes refused" one_line_error "^pperf node-entry: SKYPILOT_NUM_NODES: 2: the trainer task pperf writes has one node" \
  env SKYPILOT_NODE_RANK=0 SKYPILOT_NUM_NODES=2 SKYPILOT_NODE_IPS=$'10.0.0.1\n10.0.0.2' "$pperf" node-entry --platform skypilot --job j \
  --group trainer --instance-type c5.9xlarge --config smoke --config-sha256 x --configurations a --out "$work/w" --max-runtime-s 60
finish
