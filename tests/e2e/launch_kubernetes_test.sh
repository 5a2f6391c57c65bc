#!/usr/bin/env bash
# `pperf launch kubernetes` held against the PyTorchJob CRD (../shared/real-data/launchers/kubeflow,
# its v1 openAPIV3Schema with unknown fields refused) and the kubernetes client's models (PyPI, the
# Job, Service and Secret): every manifest written for the shipped configs that can run on real
# instances passes (tests/e2e/launch_platforms.py); seed 000's job runs on loopback
# (tests/e2e/platform_harness.py plays the training operator's and the Indexed Job's pods, with
# their variables and the downward API) to a decision whose results say where they ran, under
# operator v1's variables and Trainer v2's; bad input is exit 2, one line, nothing written.
# usage: tests/e2e/launch_kubernetes_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
crd="$real_data/launchers/kubeflow/kubeflow.org_pytorchjobs.v1.9.0.yaml"
[ -f "$crd" ] || { echo "SKIP: $crd is absent (the PyTorchJob CRD, ../shared/real-data)"; exit 77; }
launch_venv_or_skip
launch() { "$pperf" launch kubernetes --image registry.example/pperf:1 --results-claim pperf-results --job-suffix t1 "$@"; }
docs() { "$venv_python" -c 'import json, sys, yaml; print(json.dumps([d for d in yaml.safe_load_all(open(sys.argv[1])) if d]))' "$1" >"$2"; }

check "the CRD's own examples pass the closed schema (the check refuses only what is wrong)" \
  "$venv_python" tests/e2e/launch_platforms.py kubernetes "$crd" "$real_data"/launchers/kubeflow/example-*.yaml

# --- every shipped config: written, or refused with its reason ----------------------------------
declare -A outcome
for f in configs/*.json; do
  name="$(basename "$f" .json)"
  launch --config "$name" --out "$work/all/$name" >"$work/all-$name.log" 2>&1
  outcome[$name]=$?
done
check "the measurable shipped configs are written" bash -c "$(declare -p outcome); for n in p4d_vs_hetero p3_vs_hetero_mnist seed003_thread_sweep p4d_gpu python_step_bert; do [ \${outcome[\$n]} -eq 0 ] || { echo \"  \$n: exit \${outcome[\$n]}\"; cat $work/all-\$n.log; exit 1; }; done"
check "Trainium refused for what it is (not a CUDA GPU), never told to use CUDA, nothing written" bash -c "$(declare -p outcome); for n in trn1_vs_p4d_bert trn1_vs_p4d_bert_python; do [ \${outcome[\$n]} -eq 2 ] && grep -q \"configuration 'trn1': ml.trn1.32xlarge carries 16 AWS Trainium accelerator(s)\" $work/all-\$n.log && ! grep -qi cuda $work/all-\$n.log && [ ! -e $work/all/\$n ] || exit 1; done"
check "a sweep sharing an emulated data group refused, nothing written" bash -c "[ ${outcome[hetero_data_sweep]} -eq 2 ] && grep -q '/sweep: a sweep' $work/all-hetero_data_sweep.log && [ ! -e $work/all/hetero_data_sweep ]"
check "every manifest passes the CRD and the client's models" "$venv_python" tests/e2e/launch_platforms.py kubernetes "$crd" $(ls "$work"/all/*/*.yaml)

docs "$(ls "$work"/all/p4d_vs_hetero/*.yaml)" "$work/seed.json"
check "seed 000: token Secret, headless Service, Indexed Job of 2 c5.18xlarge, PyTorchJob on p4d" json_check "$work/seed.json" '
[d["kind"] for d in j] == ["Secret", "Service", "Job", "PyTorchJob"]
j[1]["spec"]["clusterIP"] == "None" and j[1]["metadata"]["name"] == j[2]["spec"]["template"]["spec"]["subdomain"]
j[2]["spec"]["completionMode"] == "Indexed" and j[2]["spec"]["completions"] == 2 and j[2]["spec"]["parallelism"] == 2
j[2]["spec"]["template"]["spec"]["nodeSelector"] == {"node.kubernetes.io/instance-type": "c5.18xlarge", "eks.amazonaws.com/capacityType": "ON_DEMAND"}
j[2]["spec"]["activeDeadlineSeconds"] == j[3]["spec"]["runPolicy"]["activeDeadlineSeconds"] == 1680
list(j[3]["spec"]["pytorchReplicaSpecs"]) == ["Master"] and j[3]["spec"]["pytorchReplicaSpecs"]["Master"]["replicas"] == 1 and j[3]["spec"]["pytorchReplicaSpecs"]["Master"]["restartPolicy"] == "ExitCode"
j[3]["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["name"] == "pytorch" and j[3]["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["nodeSelector"] == {"node.kubernetes.io/instance-type": "p4d.24xlarge", "eks.amazonaws.com/capacityType": "ON_DEMAND"}
"homogeneous,heterogeneous" in j[3]["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["command"] and "heterogeneous=p4d-vs-hetero-p4d-24xlarge-t1-data:2" in j[3]["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["command"]
j[3]["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["volumes"] == [{"name": "results", "persistentVolumeClaim": {"claimName": "pperf-results"}}]
{"name": "PPERF_DATA_TOKEN", "valueFrom": {"secretKeyRef": {"name": "p4d-vs-hetero-p4d-24xlarge-t1-token", "key": "token"}}} in j[3]["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["env"]
j[0]["stringData"]["token"] not in json.dumps(j[1:])
" ".join(j[3]["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["command"]).count("--price-table aws-ec2-us-east-1") == 1 and "--market" not in j[3]["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["command"]'
check "a drained node's pod comes back: the trainer under ExitCode (pperf exits 128 + the signal), a data pod by the Job's podFailurePolicy" json_check "$work/seed.json" '
j[3]["spec"]["runPolicy"]["backoffLimit"] == 3 and j[2]["spec"]["backoffLimit"] == 3
j[2]["spec"]["podFailurePolicy"]["rules"] == [{"action": "FailJob", "onExitCodes": {"containerName": "data", "operator": "In", "values": [2]}}, {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}]'
check "placed as priced: the table's 8 GPUs as nvidia.com/gpu with the GPU taint tolerated; cpu and memory near the instance's allocatable" json_check "$work/seed.json" '
j[3]["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "95", "memory": "1060659Mi"}, "limits": {"nvidia.com/gpu": 8}}
j[3]["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
j[2]["spec"]["template"]["spec"]["containers"][0]["resources"] == {"requests": {"cpu": "71", "memory": "131686Mi"}} and "tolerations" not in j[2]["spec"]["template"]["spec"]'
check "  one pod of the job per node (hostname anti-affinity), all of them in one zone, removed a day after finishing" json_check "$work/seed.json" '
all(s["affinity"] == {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchLabels": {"pperf/job": "p4d-vs-hetero-p4d-24xlarge-t1"}}, "topologyKey": "kubernetes.io/hostname"}]}, "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {"matchLabels": {"pperf/job": "p4d-vs-hetero-p4d-24xlarge-t1"}}, "topologyKey": "topology.kubernetes.io/zone"}]}} for s in (j[2]["spec"]["template"]["spec"], j[3]["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]))
j[2]["spec"]["template"]["metadata"]["labels"]["pperf/job"] == j[3]["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["metadata"]["labels"]["pperf/job"] == "p4d-vs-hetero-p4d-24xlarge-t1"
j[2]["spec"]["ttlSecondsAfterFinished"] == j[3]["spec"]["runPolicy"]["ttlSecondsAfterFinished"] == 86400'
check "the file is readable by its owner only (it holds the token)" [ "$(stat -c %a "$(ls "$work"/all/p4d_vs_hetero/*.yaml)")" = 600 ]
docs "$(ls "$work"/all/seed003_thread_sweep/*.yaml)" "$work/one.json"
check "a homogeneous config: the PyTorchJob alone" json_check "$work/one.json" '[d["kind"] for d in j] == ["PyTorchJob"]'
check "--spot: Spot nodes, a reclaimed pod restarted (ExitCode)" expect_exit 0 "$work/o" launch --config p4d_vs_hetero --spot --namespace bench --out "$work/spot"
docs "$(ls "$work"/spot/*.yaml)" "$work/spot.json"
check "  the Spot manifests" json_check "$work/spot.json" '
all(d["metadata"]["namespace"] == "bench" for d in j)
j[2]["spec"]["template"]["spec"]["nodeSelector"]["eks.amazonaws.com/capacityType"] == "SPOT"
j[3]["spec"]["pytorchReplicaSpecs"]["Master"]["restartPolicy"] == "ExitCode" and j[3]["spec"]["runPolicy"]["backoffLimit"] == 3'
check "  pass the CRD and the client's models" "$venv_python" tests/e2e/launch_platforms.py kubernetes "$crd" "$work"/spot/*.yaml
check "--capacity-labels karpenter: Karpenter's label and values" expect_exit 0 "$work/o" launch --config p4d_vs_hetero --spot --capacity-labels karpenter --out "$work/karpenter"
docs "$(ls "$work"/karpenter/*.yaml)" "$work/karpenter.json"
check "  karpenter.sh/capacity-type: spot on every pod, the trainer told its job is on Spot (priced as Spot)" json_check "$work/karpenter.json" '
"--market spot" in " ".join(j[3]["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["command"])
j[2]["spec"]["template"]["spec"]["nodeSelector"] == {"node.kubernetes.io/instance-type": "c5.18xlarge", "karpenter.sh/capacity-type": "spot"}
j[3]["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["nodeSelector"] == {"node.kubernetes.io/instance-type": "p4d.24xlarge", "karpenter.sh/capacity-type": "spot"}'
check "  passes the CRD and the client's models" "$venv_python" tests/e2e/launch_platforms.py kubernetes "$crd" "$work"/karpenter/*.yaml
check "--sagemaker-rates: the config's own table kept" bash -c "'$pperf' launch kubernetes --image x --results-claim r --job-suffix t1 --config p4d_vs_hetero --sagemaker-rates --out '$work/smrates' >/dev/null && ! grep -q -- '--price-table' '$work'/smrates/*.yaml"
check "an unknown --capacity-labels refused" one_line_error "^--capacity-labels: 'gke': expected eks or karpenter" launch --config p4d_vs_hetero --capacity-labels gke --out "$work/w"

# --- seed 000's job on loopback, to a decision (operator v1, then Trainer v2) -------------------
mkdir -p "$work/code"
ci_seed000_config "$work/code/seed000.json"
(cd "$work/code" && "$pperf" launch kubernetes --config seed000.json --image pperf:ci --results-claim r --job-suffix ci --out "$work/ci") >"$work/ci.log" 2>&1
file="$work/ci/seed000-ci-c5-9xlarge-ci.yaml"
check "launch writes the CI manifests" [ -f "$file" ]
for operator in v1 v2; do
  flag=""; [ "$operator" = v2 ] && flag=--trainer-v2
  check "$operator: the job runs to its end in every pod" "$venv_python" tests/e2e/platform_harness.py kubernetes "$pperf" "$file" "$work/job-$operator" "$work/code" --timeout-s 150 $flag
  check "$operator: every pod exits 0 (the data pods stopped by the trainer)" json_check "$work/job-$operator/summary.json" '
sorted(j["hosts"]) == ["seed000-ci-c5-9xlarge-ci-data-0", "seed000-ci-c5-9xlarge-ci-data-1", "seed000-ci-c5-9xlarge-ci-master-0"]
all(h["exit"] == 0 for h in j["hosts"].values())'
  check "$operator: the results: both configurations measured natively, a verdict with its interval, where they ran" json_check "$work/job-$operator/mount/seed000-ci-c5-9xlarge-ci/results.json" '
[r["configuration"] for r in j["results"]] == ["homogeneous", "heterogeneous"]
all(r["status"] == "ok" and r["execution"]["emulated"] is False for r in j["results"])
j["results"][1]["decision"]["verdict"] in ("cheaper", "dearer", "equivalent", "undecided")
len(j["results"][1]["decision"]["improvement_pct_bounds"]) == 2
j["placement"]["platform"] == "kubernetes" and j["placement"]["job_name"] == "seed000-ci-c5-9xlarge-ci"
len(j["placement"]["job_id"]) == 36 and j["placement"]["instance_type"] == "c5.9xlarge"
j["placement"]["group"] == "trainer" and j["placement"]["host_id"] == "seed000-ci-c5-9xlarge-ci-master-0"
j["placement"]["instance_id"] == "ip-127-0-0-4.ec2.internal"
j["pricing"]["table"] == "aws-ec2-us-east-1" and all(g["type"] in ("c5.9xlarge", "c5.18xlarge") for r in j["results"] for g in r["instances"])'
done
check "v1: the rank read from RANK, v2: from PET_NODE_RANK" bash -c "grep -q '\"rank_variable\":\"RANK\"' '$work/job-v1/seed000-ci-c5-9xlarge-ci-master-0.log' && grep -q '\"rank_variable\":\"PET_NODE_RANK\"' '$work/job-v2/seed000-ci-c5-9xlarge-ci-master-0.log'"
check "no pperf-only variable reached a pod (names resolve through the hosts file, as cluster DNS)" bash -c "! grep -q PPERF_HOSTS '$work/job-v1/summary.json'"

# --- drained nodes mid-run: a data pod's, then the trainer's; the restarted trainer finishes -----
master=seed000-ci-c5-9xlarge-ci-master-0
check "drain: a data pod's node while the trainer measures, then the trainer's; the job still ends" "$venv_python" tests/e2e/platform_harness.py kubernetes "$pperf" "$file" "$work/drain" "$work/code" --timeout-s 300 \
  --drain "seed000-ci-c5-9xlarge-ci-data-1@on homogeneous: started" --drain "$master@on heterogeneous: started"
check "  the trainer exited 143 (128 + SIGTERM), was re-created (ExitCode) and ended 0; the drained data pod replaced (DisruptionTarget: Ignore)" json_check "$work/drain/summary.json" '
j["hosts"]["'$master'"]["exits"] == [143, 0] and len(j["hosts"]["'$master'"]["restarts"]) == 1
j["hosts"]["seed000-ci-c5-9xlarge-ci-data-1"]["exits"] == [143, 0] and j["hosts"]["seed000-ci-c5-9xlarge-ci-data-1"]["restarts"] == ["podFailurePolicy Ignore (DisruptionTarget)"]
j["hosts"]["seed000-ci-c5-9xlarge-ci-data-0"]["exits"] == [0]
all("at" in d for d in j["drains"])'
check "  the restarted trainer measured both configurations to a verdict" json_check "$work/drain/mount/seed000-ci-c5-9xlarge-ci/results.json" '
j["status"] == "complete" and [r["configuration"] for r in j["results"]] == ["homogeneous", "heterogeneous"]
all(r["status"] == "ok" for r in j["results"])'
check "  the drained trainer left the data workers serving (stopped once, at the end)" bash -c "[ \$(grep -c 'data worker .*: stopped\$' '$work/drain/$master.log') -eq 2 ] && grep -q 'stopped by signal 15' '$work/drain/$master.log'"
check "the trainer streamed from the Indexed Job's DNS names" grep -q '"data_hosts":{"heterogeneous":\["seed000-ci-c5-9xlarge-ci-data-0.seed000-ci-c5-9xlarge-ci-data","seed000-ci-c5-9xlarge-ci-data-1.seed000-ci-c5-9xlarge-ci-data"\]}' "$work/job-v1/seed000-ci-c5-9xlarge-ci-master-0.log"
token="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["stringData"]["token"])' <("$venv_python" -c 'import json, sys, yaml; print(json.dumps([d for d in yaml.safe_load_all(open(sys.argv[1])) if d]))' "$file"))"
check "the token is in no pod's log" bash -c "! grep -l '$token' $work/job-v1/*.log $work/job-v2/*.log"
check "no pod process left" no_process "node-entry --platform kubernetes"

# --- TLS on request: a Secret of the job's certificate mounted in every pod ------------------------
tls_dir_for_harness "$work/tls" seed000-ci-c5-9xlarge-tls-data-{0,1}.seed000-ci-c5-9xlarge-tls-data  # the Indexed Job's DNS names
(cd "$work/code" && "$pperf" launch kubernetes --config seed000.json --image pperf:ci --results-claim r --job-suffix tls --tls "$work/tls" --out "$work/citls") >"$work/citls.log" 2>&1
tls_file="$work/citls/seed000-ci-c5-9xlarge-tls.yaml"
docs "$tls_file" "$work/tls.json"
check "--tls: a Secret of cert.pem and key.pem, mounted read-only at /pperf-tls in the data pods and the Master" json_check "$work/tls.json" '
[d["kind"] for d in j] == ["Secret", "Secret", "Service", "Job", "PyTorchJob"]
sorted(j[1]["stringData"]) == ["cert.pem", "key.pem"] and j[1]["metadata"]["name"] == "seed000-ci-c5-9xlarge-tls-tls"
{"name": "tls", "mountPath": "/pperf-tls", "readOnly": True} in j[3]["spec"]["template"]["spec"]["containers"][0]["volumeMounts"]
{"name": "tls", "secret": {"secretName": "seed000-ci-c5-9xlarge-tls-tls"}} in j[4]["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["volumes"]
"/pperf-tls" in j[4]["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0]["command"]'
check "  passes the CRD and the client's models" "$venv_python" tests/e2e/launch_platforms.py kubernetes "$crd" "$tls_file"
check "  the job runs to a decision over TLS" "$venv_python" tests/e2e/platform_harness.py kubernetes "$pperf" "$tls_file" "$work/jobtls" "$work/code" --timeout-s 150
check "  every pod exits 0" json_check "$work/jobtls/summary.json" 'all(h["exit"] == 0 for h in j["hosts"].values())'
check "  both configurations ok, the trainer trusting the mounted certificate" json_check "$work/jobtls/mount/seed000-ci-c5-9xlarge-tls/results.json" 'all(r["status"] == "ok" for r in j["results"])'
check "  (its config's tls_ca)" grep -q '"tls_ca": "'"$work/jobtls/secret-seed000-ci-c5-9xlarge-tls-tls/cert.pem"'"' "$work/code/.seed000.seed000-ci-c5-9xlarge-tls.json"

# --- bad input: exit 2, one line, nothing written ----------------------------------------------------
check "a namespace Kubernetes does not allow refused" one_line_error "^--namespace: 'Bench_1' is not a Kubernetes namespace name" \
  launch --config p4d_vs_hetero --namespace Bench_1 --out "$work/w"
check "  nothing written" [ ! -e "$work/w" ]
check "a trainer pod that is not rank 0 refused, naming the variable" one_line_error "^pperf node-entry: RANK: 1: the PyTorchJob pperf writes has one Master" \
  env RANK=1 WORLD_SIZE=2 "$pperf" node-entry --platform kubernetes --job j --group trainer --instance-type c5.9xlarge --config smoke \
  --config-sha256 x --configurations a --out "$work/w" --max-runtime-s 60
check "a data pod outside an Indexed Job refused" one_line_error "^pperf node-entry: JOB_COMPLETION_INDEX: not set" \
  env "$pperf" node-entry --platform kubernetes --job j --group d --instance-type c5.9xlarge --config smoke --config-sha256 x --max-runtime-s 60
finish
