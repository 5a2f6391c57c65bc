#!/usr/bin/env bash
# Seed 000's heterogeneous SageMaker job on one host: `pperf launch sagemaker` writes the job for
# configs/p4d_vs_hetero.json (its native size made the tiny preset and its budget seconds, so it
# runs here), tests/e2e/sagemaker_harness.py plays SageMaker for its three hosts (algo-N, each a
# container of its own: its network namespace on one bridge, its /opt/ml with the real
# resourceconfig.json's shape, PID 1 the container's process; no pperf variable), and each host
# runs `pperf sagemaker-entry`: the data hosts serve batches, the trainer waits for them, measures
# both configurations in turns with --native, writes results and report, and stops them. The
# SageMaker toolkit (sagemaker_training.environment.Environment, PyPI) reads the same files and
# must agree with pperf on every host's group, role and peers. Then: a Spot restart resumes from
# /opt/ml/checkpoints, a data host that never comes up fails the job naming it, a missing contract
# file is exit 2 naming it. Then the --framework job: AWS's PyTorch image played (its entry script
# runs the SageMaker toolkit's own `train`, PyPI's, which fetches the bundle and runs
# sagemaker-entry.sh with its process runner), run to its end, and stopped mid-measurement as
# StopTrainingJob does (SIGTERM to every container's PID 1): pperf gets it and exits 143.
# usage: tests/e2e/sagemaker_job_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
launch_venv_or_skip
# Each played host is a container: network, mount and PID namespaces of its own (root, iproute2's bridge).
if ! unshare --net --mount --pid --fork sh -c 'ip link add br0 type bridge' 2>"$work/ns.err"; then
  echo "SKIP: the harness cannot make a played host's namespaces here: $(tail -1 "$work/ns.err")"
  exit 77
fi
mkdir -p "$work/code"
ci_seed000_config "$work/code/seed000.json"
cd "$work/code"
check "launch writes the job" expect_exit 0 "$work/launch.log" "$pperf" launch sagemaker --config seed000.json \
  --role arn:aws:iam::123456789012:role/pperf-ci --output s3://pperf-ci/out --image pperf:ci --job-suffix ci --out "$work/req"
cd "$root"
req="$work/req/seed000-ci-ml-c5-9xlarge-ci.json"
check "one job, baseline and candidate in turns" json_check "$req" 'j["HyperParameters"]["pperf_configurations"] == "homogeneous,heterogeneous"'
token="$(cat "${req%.json}.token")"
# The played S3 holds what the user uploads first: the token, at the channel's S3 URI launch printed.
token_s3() { echo "--s3=$(grep -o "s3://[^ ]*/pperf-token/token" "$1")=${2%.json}.token"; }
s3_ci="$(token_s3 "$work/launch.log" "$req")"
check "the token in no field DescribeTrainingJob returns: an input channel, uploaded first" bash -c "
  ! grep -q '$token' '$req' && [ \"\$(stat -c %a '${req%.json}.token')\" = 600 ] &&
  grep -qx '  aws s3 cp $work/req/seed000-ci-ml-c5-9xlarge-ci.token s3://pperf-ci/out/seed000-ci-ml-c5-9xlarge-ci/pperf-token/token' '$work/launch.log'"
check "  its channel in the request" json_check "$req" '
{"ChannelName": "pperf-token", "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://pperf-ci/out/seed000-ci-ml-c5-9xlarge-ci/pperf-token/token", "S3DataDistributionType": "FullyReplicated"}}, "InputMode": "File"} in j["InputDataConfig"]
"Environment" not in j
j["HyperParameters"]["pperf_token_channel"] == "pperf-token"'

start=$(date +%s)
check "the job runs to its end on every host" "$venv_python" tests/e2e/sagemaker_harness.py "$pperf" "$req" "$work/job" "$work/code" "$s3_ci" --data-workers 1 --timeout-s 150
echo "  (the job took $(( $(date +%s) - start )) s)"
check "every host exits 0 (the data hosts stopped by the trainer)" json_check "$work/job/summary.json" '
sorted(j["hosts"]) == ["algo-1", "algo-2", "algo-3"]
all(h["exit"] == 0 for h in j["hosts"].values())
j["hosts"]["algo-3"]["group"] == "trainer" and j["hosts"]["algo-1"]["group"] == "data-ml.c5.18xlarge"'
trainer_root="$work/job/algo-3"
check "the results: both configurations measured natively, at the native size, a verdict with its interval, where they ran" json_check "$trainer_root/model/results.json" '
[r["configuration"] for r in j["results"]] == ["homogeneous", "heterogeneous"]
all(r["status"] == "ok" for r in j["results"])
all(r["execution"]["emulated"] is False for r in j["results"])
all(r["preset"] == "tiny" and r["batch_size"] == 8 for r in j["results"])
j["results"][0]["baseline"] is True
j["results"][1]["decision"]["verdict"] in ("cheaper", "dearer", "equivalent", "undecided")
len(j["results"][1]["decision"]["improvement_pct_bounds"]) == 2
j["results"][1]["execution"]["data"]["mode"] == "service"
j["placement"]["platform"] == "sagemaker" and j["placement"]["job_name"] == "seed000-ci-ml-c5-9xlarge-ci"
j["placement"]["job_id"] == "arn:aws:sagemaker:us-east-1:123456789012:training-job/seed000-ci-ml-c5-9xlarge-ci"
j["placement"]["instance_type"] == "ml.c5.9xlarge" and j["placement"]["group"] == "trainer" and j["placement"]["host_id"] == "algo-3"
j["placement"]["instance_id"] is None'
# MetricDefinitions: CloudWatch reads each configuration's step time from the trainer's own lines.
check "each MetricDefinition's regex finds its configuration's mean step time in the trainer's log" "$venv_python" - "$req" "$work/job/algo-3.log" "$trainer_root/model/results.json" <<'PY'
import json, re, sys
req, log, results = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), json.load(open(sys.argv[3]))
means = {r["configuration"]: r["step_time_ms"]["mean"] for r in results["results"]}
defs = req["AlgorithmSpecification"]["MetricDefinitions"]
assert [d["Name"] for d in defs] == [f"pperf:step_ms:{c}" for c in means], defs
for d in defs:
    found = [float(v) for v in re.findall(d["Regex"], log)]
    conf = d["Name"].split(":", 2)[2]
    print(f"  {d['Name']}: {found} ms (results: {means[conf]:.4g} ms)")
    assert len(found) == 1 and abs(found[0] - means[conf]) <= 5e-4 * means[conf], (d, found)
PY
check "the report in /opt/ml/output/data" bash -c "[ -s '$trainer_root/output/data/report.md' ] && [ -s '$trainer_root/output/data/report.html' ]"
check "no failure file on any host" bash -c "! ls $work/job/algo-*/output/failure 2>/dev/null"
check "the token is in no host's log" bash -c "! grep -l '$token' $work/job/*.log"
check "no host process left" no_process "sagemaker-entry"

# --- pperf's reading of the contract against the SageMaker toolkit's, host by host ----------------
agree() {
  local host="$1" root="$work/job/$1"
  local view toolkit
  view="$(sed -n 's/^pperf sagemaker-entry: view //p' "$work/job/$host.log")"
  toolkit="$(SAGEMAKER_BASE_DIR="$root" "$venv_python" -c '
import json, logging
logging.disable(logging.CRITICAL)
from sagemaker_training import environment
e = environment.Environment()
print(json.dumps({"host": e.current_host, "group": e.current_instance_group, "hosts": e.hosts,
                  "group_hosts": {g: d["hosts"] for g, d in e.instance_groups_dict.items()},
                  "trainer_group": e.hyperparameters.get("pperf_trainer_group")}))' 2>"$work/toolkit.err")" || { cat "$work/toolkit.err"; return 1; }
  /usr/bin/python3 - "$view" "$toolkit" <<'PY'
import json, sys
pperf, sm = json.loads(sys.argv[1]), json.loads(sys.argv[2])
ok = (pperf["host"] == sm["host"] and pperf["group"] == sm["group"] and pperf["hosts"] == sm["hosts"]
      and pperf["group_hosts"] == sm["group_hosts"]
      and (pperf["role"] == "trainer") == (sm["group"] == sm["trainer_group"]))
if not ok:
    print("  pperf:  ", pperf); print("  toolkit:", sm)
sys.exit(0 if ok else 1)
PY
}
for h in algo-1 algo-2 algo-3; do check "$h: pperf and sagemaker_training agree on its group, role and peers" agree "$h"; done
check "the trainer measured with the data hosts of its group, in the group's order" bash -c \
  "grep -q '\"data_hosts\":{\"heterogeneous\":\[\"algo-2\",\"algo-1\"\]}' '$work/job/algo-3.log'"
check "the placement passed to pperf run (the platform's own names)" bash -c "grep 'view ' '$work/job/algo-3.log' | grep -q '\"placement\":{\"PPERF_HOST_GROUP\":\"trainer\",\"PPERF_HOST_ID\":\"algo-3\",\"PPERF_INSTANCE_TYPE\":\"ml.c5.9xlarge\",\"PPERF_JOB_ID\":\"arn:aws:sagemaker:us-east-1:123456789012:training-job/seed000-ci-ml-c5-9xlarge-ci\",\"PPERF_JOB_NAME\":\"seed000-ci-ml-c5-9xlarge-ci\",\"PPERF_PLATFORM\":\"sagemaker\"}'"

# --- a Spot restart: /opt/ml/checkpoints restored, the finished run is not measured again ----------
cp "$trainer_root/model/results.json" "$work/first.json"
rm "$trainer_root/model/results.json"
check "the restarted job ends on every host" "$venv_python" tests/e2e/sagemaker_harness.py "$pperf" "$req" "$work/job" "$work/code" "$s3_ci" --data-workers 1 --reuse --timeout-s 60
check "  every host exits 0" json_check "$work/job/summary.json" 'all(h["exit"] == 0 for h in j["hosts"].values())'
check "  not measured again" grep -q "are complete (restored checkpoint); not measured again" "$work/job/algo-3.log"
check "  the same results in /opt/ml/model" cmp "$work/first.json" "$trainer_root/model/results.json"

# --- a data host that never comes up fails the job within the stated time, naming it ---------------
start=$(date +%s)
check "no data host: the trainer gives up" "$venv_python" tests/e2e/sagemaker_harness.py "$pperf" "$req" "$work/nodata" "$work/code" "$s3_ci" \
  --hosts-only trainer --data-wait-s 3 --timeout-s 30
took=$(( $(date +%s) - start ))
check "  within the timeout (3 s, took $took s), exit 3" json_check "$work/nodata/summary.json" 'j["hosts"]["algo-3"]["exit"] == 3'
check "  /opt/ml/output/failure names the host" grep -qE "^data host algo-[12] did not accept connections on port 50051 within 3 s$" "$work/nodata/algo-3/output/failure"

# --- TLS on request: the files as an input channel, the data hosts serving with them ----------------
tls_dir_for_harness "$work/tls" algo-1 algo-2 algo-3  # the names the trainer dials
(cd "$work/code" && "$pperf" launch sagemaker --config seed000.json --role arn:aws:iam::123456789012:role/pperf-ci \
  --output s3://pperf-ci/out --image pperf:ci --job-suffix tls --tls s3://pperf-ci/tls/ --out "$work/reqtls") >"$work/tls.log" 2>&1
s3_tls="$(token_s3 "$work/tls.log" "$work/reqtls/seed000-ci-ml-c5-9xlarge-tls.json")"
reqtls="$work/reqtls/seed000-ci-ml-c5-9xlarge-tls.json"
check "--tls: the channel pperf-tls from the S3 prefix" json_check "$reqtls" '
j["InputDataConfig"][:1] == [{"ChannelName": "pperf-tls", "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://pperf-ci/tls/", "S3DataDistributionType": "FullyReplicated"}}, "InputMode": "File"}]
j["HyperParameters"]["pperf_tls_channel"] == "pperf-tls"'
check "  botocore's model and moto accept it" "$venv_python" tests/e2e/sagemaker_requests.py "$reqtls"
check "  the job runs on every host over TLS" "$venv_python" tests/e2e/sagemaker_harness.py "$pperf" "$reqtls" "$work/jobtls" "$work/code" "$s3_tls" \
  --data-workers 1 --timeout-s 150 --channel "pperf-tls=$work/tls"
check "  every host exits 0, both configurations ok" json_check "$work/jobtls/summary.json" 'all(h["exit"] == 0 for h in j["hosts"].values())'
check "  the results" json_check "$work/jobtls/algo-3/model/results.json" 'all(r["status"] == "ok" for r in j["results"])'
check "  the trainer trusted the channel's certificate (its /opt/ml)" grep -q '"tls_ca": "/opt/ml/input/data/pperf-tls/cert.pem"' "$work/code/.seed000.seed000-ci-ml-c5-9xlarge-tls.json"
rm -r "$work/jobtls/algo-1/input/data/pperf-tls"
check "  a data host whose channel files are missing: exit 2 naming the file" bash -c "PPERF_SAGEMAKER_ROOT='$work/jobtls/algo-1' TRAINING_JOB_NAME=x PPERF_DATA_TOKEN=t '$pperf' sagemaker-entry >'$work/o' 2>&1; [ \$? -eq 2 ] && grep -q 'input/data/pperf-tls/cert.pem: missing (the job.s input channel pperf-tls brings the TLS files)' '$work/jobtls/algo-1/output/failure'"

# --- --framework: AWS's PyTorch image, the SageMaker toolkit running the bundle's entry point -------
# The played image's python3 must import the torch the binary was built against (run.sh checks).
built="$("$pperf" --version | sed -n 's/.*built against libtorch \([0-9.]*\).*/\1/p')"
image_python=""
for py in /usr/bin/python3 /var/cache/pperf/torch-*/bin/python; do
  v="$("$py" -c 'import torch; print(torch.__version__)' 2>/dev/null)" || continue
  [ "${v%%[a+]*}" = "$built" ] && { image_python="$py"; torch_version="$v"; break; }
done
if [ -z "$image_python" ]; then
  echo "SKIP (framework mode): no python3 here imports torch $built, which the bundle's run.sh needs"
else
  # The bundle as scripts/gpu-bundle.sh lays it out (scripts/bundle-files.sh), this binary in it,
  # the config the job names in its configs; launched as built against 2.8.0 (the image's torch).
  scripts/bundle-files.sh --out "$work/bundle" --torch-version 2.8.0 --pperf "$pperf" && cp "$work/code/seed000.json" "$work/bundle/share/pperf/configs/"
  (cd "$work/code" && "$pperf" launch sagemaker --config seed000.json --role arn:aws:iam::123456789012:role/pperf-ci \
    --output s3://pperf-ci/out --framework pytorch:2.8.0 --source s3://pperf-ci/src/sourcedir.tar.gz --bundle "$work/bundle" \
    --job-suffix fw --out "$work/reqfw") >"$work/fw.log" 2>&1
  reqfw="$work/reqfw/seed000-ci-ml-c5-9xlarge-fw.json"
  check "--framework: the image's entry script under a PID 1 that passes SageMaker's stop" json_check "$reqfw" '
j["AlgorithmSpecification"]["ContainerEntrypoint"][:2] == ["/bin/bash", "-c"]
"bash start_with_right_hostname.sh train" in j["AlgorithmSpecification"]["ContainerEntrypoint"][2]
j["HyperParameters"]["sagemaker_program"] == "sagemaker-entry.sh"'
  check "  botocore's model and moto accept it" "$venv_python" tests/e2e/sagemaker_requests.py "$reqfw"
  # The played image's python3 has this host's torch (the binary's), not 2.8's: the bundle says so for run.sh.
  echo "$torch_version" > "$work/bundle/TORCH_VERSION"
  check "the bundle, packed as the docs say" bash -c "tar -C '$work/bundle' -czf '$work/sourcedir.tar.gz' \$(ls -A '$work/bundle')"
  s3_fw="$(token_s3 "$work/fw.log" "$reqfw")"
  fw() { "$venv_python" tests/e2e/sagemaker_harness.py "$pperf" "$reqfw" "$@" "$work/code" "$s3_fw" --data-workers 1 \
    --s3 "s3://pperf-ci/src/sourcedir.tar.gz=$work/sourcedir.tar.gz" --image-python "$image_python"; }
  check "the framework job runs to its end on every host" fw "$work/jobfw" --timeout-s 150
  check "  every host exits 0, both configurations ok" json_check "$work/jobfw/summary.json" 'all(h["exit"] == 0 for h in j["hosts"].values())'
  check "  the results" json_check "$work/jobfw/algo-3/model/results.json" 'all(r["status"] == "ok" for r in j["results"])'
  check "  the toolkit started the entry point with its process runner" grep -q '^/bin/sh -c ./sagemaker-entry.sh --pperf_config seed000.json' "$work/jobfw/algo-3.log"
  check "  the toolkit's archive check passed the bundle whole" bash -c "! grep -q 'would have been extracted outside' '$work/jobfw/algo-3.log'"
  # StopTrainingJob (or a Spot interruption) while the trainer measures: SIGTERM to every
  # container's PID 1, SIGKILL 20 s later (SageMaker: 120 s).
  check "StopTrainingJob mid-measurement: every host ends within the grace" fw "$work/stopfw" --timeout-s 150 \
    --stop 'on homogeneous: started' --stop-grace-s 20
  check "  no host needed the SIGKILL" json_check "$work/stopfw/summary.json" '"stopped_at" in j and "killed_after_stop" not in j'
  for h in algo-1 algo-2 algo-3; do
    check "  $h: pperf got the stop and exited 143 (the toolkit's report of its exit)" bash -c \
      "grep -q '^pperf sagemaker-entry: stopped by signal 15\$' '$work/stopfw/$h.log' && grep -q '^ExitCode 143\$' '$work/stopfw/$h.log'"
  done
  check "  the trainer's failure file says so (SageMaker's FailureReason)" grep -qx 'stopped by signal 15' "$work/stopfw/algo-3/output/failure"
  check "  its pperf run got the stop once and wrote what it measured, for the restarted job" json_check "$work/stopfw/algo-3/checkpoints/results.json" 'j["status"] == "interrupted"'
fi

# --- a contract file missing or malformed: exit 2 naming the file and key -------------------------
mkdir -p "$work/bad/input/config"
check "no resourceconfig.json: exit 2 naming it" bash -c "PPERF_SAGEMAKER_ROOT='$work/bad' TRAINING_JOB_NAME=x '$pperf' sagemaker-entry >'$work/o' 2>&1; [ \$? -eq 2 ] && grep -q 'resourceconfig.json: missing' '$work/bad/output/failure'"
echo '{"current_host": "algo-1", "hosts": ["algo-1"], "instance_groups": [{"instance_group_name": "g", "hosts": ["algo-1"]}], "current_group_name": "g"}' \
  >"$work/bad/input/config/resourceconfig.json"
echo '{"pperf_trainer_group": "", "pperf_data_groups": "{}", "pperf_data_workers": "{}"}' >"$work/bad/input/config/hyperparameters.json"
check "a hyperparameter missing: exit 2 naming file and key" bash -c "PPERF_SAGEMAKER_ROOT='$work/bad' TRAINING_JOB_NAME=x '$pperf' sagemaker-entry >'$work/o' 2>&1; [ \$? -eq 2 ] && grep -q 'hyperparameters.json: /pperf_data_port: missing' '$work/bad/output/failure'"
echo '{"current_host": "algo-9", "hosts": ["algo-1"]}' >"$work/bad/input/config/resourceconfig.json"
check "a host not in /hosts: exit 2 naming the key" bash -c "PPERF_SAGEMAKER_ROOT='$work/bad' TRAINING_JOB_NAME=x '$pperf' sagemaker-entry >'$work/o' 2>&1; [ \$? -eq 2 ] && grep -q 'resourceconfig.json: /current_host: ' '$work/bad/output/failure'"
finish
