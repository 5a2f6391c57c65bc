#!/usr/bin/env bash
# `pperf launch sagemaker` held against SageMaker's own code (PyPI, in the venv
# scripts/setup-launch-venv.sh makes): every request written for the shipped configs that can
# run on SageMaker instances passes botocore's CreateTrainingJob model and moto's SageMaker
# (tests/e2e/sagemaker_requests.py); the PyTorch image URIs are the SageMaker SDK's
# image_uris.retrieve's; what SageMaker would refuse is exit 2, one line, nothing written.
# usage: tests/e2e/launch_sagemaker_test.sh PATH/TO/pperf
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
launch_venv_or_skip
role=arn:aws:iam::123456789012:role/pperf-test
launch() { "$pperf" launch sagemaker --role "$role" --output s3://pperf-test/results --job-suffix t1 "$@"; }

# A GPU bundle's folder as scripts/gpu-bundle.sh lays it out (scripts/bundle-files.sh), this binary
# in it and its REQUIRES read from its ELF files (scripts/bundle-abi.sh), said to be built against torch 2.8.0.
bundle="$work/bundle"
scripts/bundle-files.sh --out "$bundle" --torch-version 2.8.0+cu128 --pperf "$pperf" || exit 1
fw=(--framework pytorch:2.8.0 --source s3://pperf-test/src/sourcedir.tar.gz --bundle "$bundle")

# --- every shipped config: launched, or refused with its reason -----------------------------------
mkdir -p "$work/all"
declare -A outcome
for f in configs/*.json; do
  name="$(basename "$f" .json)"
  launch --config "$name" "${fw[@]}" --out "$work/all/$name" >"$work/all/$name.log" 2>&1
  outcome[$name]=$?
done
# What SageMaker can launch (ml. types, a measured config) is written; the rest is refused, exit 2.
check "launchable shipped configs are written" bash -c "$(declare -p outcome); for n in p4d_vs_hetero p3_vs_hetero_mnist seed003_thread_sweep p4d_gpu; do [ \${outcome[\$n]} -eq 0 ] || { echo \"  \$n: exit \${outcome[\$n]}\"; cat $work/all/\$n.log; exit 1; }; done"
check "EC2 types refused naming the configuration" bash -c "[ ${outcome[g5_spot_vs_ondemand_vit]} -eq 2 ] && grep -q \"configuration 'g5.12xlarge-on-demand': SageMaker launches only ml. instance types, not 'g5.12xlarge'\" $work/all/g5_spot_vs_ondemand_vit.log && [ ! -e $work/all/g5_spot_vs_ondemand_vit ]"
check "priced-only configs refused" bash -c "[ ${outcome[seed000_ex1_resnet50_cost]} -eq 2 ] && grep -q 'priced only' $work/all/seed000_ex1_resnet50_cost.log"
# What `pperf run --native` would refuse on the instance is refused before a job bills for it.
check "a GPU instance trained on its CPU refused (smoke)" bash -c "[ ${outcome[smoke]} -eq 2 ] && grep -qF \"smoke.json: /configurations/0/execution/device: configuration 'one-loader-thread': \" $work/all/smoke.log && grep -qF 'would refuse it on ml.p3.2xlarge (8 vCPUs, 1 GPU(s)): --native: the priced trainer instances have 1 GPU(s)' $work/all/smoke.log"
check "Trainium refused for what it is (not a CUDA GPU), never told to use CUDA" bash -c "[ ${outcome[trn1_vs_p4d_bert]} -eq 2 ] && grep -q \"configuration 'trn1': ml.trn1.32xlarge carries 16 AWS Trainium accelerator(s)\" $work/all/trn1_vs_p4d_bert.log && ! grep -qi cuda $work/all/trn1_vs_p4d_bert.log"
check "  its p4d configuration alone is written" expect_exit 0 "$work/o" launch --config trn1_vs_p4d_bert --only p4d --image x --out "$work/p4d-only"
# The Fashion-MNIST config's local loader, trained on its p3's GPU: what it reads from
# /usr/share/datasets is on no bundle or AWS image, refused.
/usr/bin/python3 - configs/p3_vs_hetero_mnist_python.json "$work/mnist.json" "$root/python/examples" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
for conf in c["configurations"]:
    conf["execution"]["device"] = "cuda"
    conf["execution"]["data"]["python_path"] = [sys.argv[3]]
json.dump(c, open(sys.argv[2], "w"), indent=1)
PY
check "a dataset on the launching host's disk refused naming it (no bundle or image carries it)" one_line_error \
  "mnist\.json: /configurations/0/execution/data/dataset_kwargs/root: '/usr/share/datasets/fashion-mnist' is read from the host's disk" \
  launch --config "$work/mnist.json" --only homogeneous "${fw[@]}" --out "$work/mnist"
check "  nothing written" [ ! -e "$work/mnist" ]
check "  with --image (the image may hold it) it is written" expect_exit 0 "$work/o" launch --config "$work/mnist.json" --only homogeneous --image x --out "$work/mnist-image"
check "every written request passes botocore's model and moto" "$venv_python" tests/e2e/sagemaker_requests.py $(ls "$work"/all/*/*.json)

# --- seed 000's heterogeneous job: baseline and candidate in one job, instance groups ------------
req="$(ls "$work"/all/p4d_vs_hetero/*.json)"
check "p4d_vs_hetero is one job" [ "$(ls "$work"/all/p4d_vs_hetero/*.json | wc -l)" -eq 1 ]
check "the job: trainer and data groups, both configurations in turns, the native size" json_check "$req" '
j["TrainingJobName"] == "p4d-vs-hetero-ml-p4d-24xlarge-t1"
j["ResourceConfig"]["InstanceGroups"] == [{"InstanceGroupName": "trainer", "InstanceType": "ml.p4d.24xlarge", "InstanceCount": 1}, {"InstanceGroupName": "data-ml.c5.18xlarge", "InstanceType": "ml.c5.18xlarge", "InstanceCount": 2}]
"InstanceType" not in j["ResourceConfig"]
j["HyperParameters"]["pperf_configurations"] == "homogeneous,heterogeneous"
json.loads(j["HyperParameters"]["pperf_data_groups"]) == {"heterogeneous": ["data-ml.c5.18xlarge", 2]}
json.loads(j["HyperParameters"]["pperf_data_workers"]) == {"data-ml.c5.18xlarge": 72}
j["HyperParameters"]["pperf_config"] == "p4d_vs_hetero"
j["HyperParameters"]["sagemaker_program"] == "sagemaker-entry.sh" and j["HyperParameters"]["sagemaker_submit_directory"] == "s3://pperf-test/src/sourcedir.tar.gz"
j["StoppingCondition"] == {"MaxRuntimeInSeconds": 900 + 2 * (90 + 300)}
"EnableManagedSpotTraining" not in j
"Environment" not in j
j["InputDataConfig"] == [{"ChannelName": "pperf-token", "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://pperf-test/results/p4d-vs-hetero-ml-p4d-24xlarge-t1/pperf-token/token", "S3DataDistributionType": "FullyReplicated"}}, "InputMode": "File"}]
j["HyperParameters"]["pperf_token_channel"] == "pperf-token"'
check "the token beside it (64 hex digits), readable by its owner only, and in no field of the request" bash -c "
  grep -qxE '[0-9a-f]{64}' '${req%.json}.token' && [ \"\$(stat -c %a '${req%.json}.token')\" = 600 ] && ! grep -qf '${req%.json}.token' '$req'"
check "the request file is readable by its owner only (as every job file)" [ "$(stat -c %a "$req")" = 600 ]
check "a homogeneous job names its one instance type, no groups" json_check "$(ls "$work"/all/seed003_thread_sweep/*.json)" '
j["ResourceConfig"] == {"InstanceType": "ml.c5.9xlarge", "InstanceCount": 1, "VolumeSizeInGB": 50}
"Environment" not in j'

# --- managed Spot: MaxWait >= MaxRuntime, checkpoints synced ---------------------------------------
check "--spot: managed Spot with checkpoints" expect_exit 0 "$work/o" launch --config p4d_vs_hetero --image 123456789012.dkr.ecr.us-east-1.amazonaws.com/pperf:1 --spot --out "$work/spot"
check "the Spot request" json_check "$(ls "$work"/spot/*.json)" '
j["TrainingJobName"] == "p4d-vs-hetero-ml-p4d-24xlarge-spot-t1"
j["EnableManagedSpotTraining"] is True
j["StoppingCondition"]["MaxWaitTimeInSeconds"] == 2 * j["StoppingCondition"]["MaxRuntimeInSeconds"]
j["CheckpointConfig"] == {"S3Uri": "s3://pperf-test/results/p4d-vs-hetero-ml-p4d-24xlarge-spot-t1/checkpoints", "LocalPath": "/opt/ml/checkpoints"}
{k: v for k, v in j["AlgorithmSpecification"].items() if k != "MetricDefinitions"} == {"TrainingInputMode": "File", "TrainingImage": "123456789012.dkr.ecr.us-east-1.amazonaws.com/pperf:1", "ContainerEntrypoint": ["pperf", "sagemaker-entry"]}
[m["Name"] for m in j["AlgorithmSpecification"]["MetricDefinitions"]] == ["pperf:step_ms:homogeneous", "pperf:step_ms:heterogeneous"]
"sagemaker_program" not in j["HyperParameters"]'
check "the Spot request passes botocore's model and moto" "$venv_python" tests/e2e/sagemaker_requests.py "$work"/spot/*.json

# --- the request options users expect: VpcConfig, KMS keys, inter-container encryption, retries -----
check "the options written" expect_exit 0 "$work/o" launch --config p4d_vs_hetero --image x --out "$work/opts" \
  --subnets subnet-0a1b2c3d,subnet-4e5f6a7b --security-groups sg-0123abcd --volume-kms-key arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab \
  --output-kms-key alias/pperf-out --encrypt-inter-container --max-retries 2
check "  in the request" json_check "$(ls "$work"/opts/*.json)" '
j["VpcConfig"] == {"Subnets": ["subnet-0a1b2c3d", "subnet-4e5f6a7b"], "SecurityGroupIds": ["sg-0123abcd"]}
j["ResourceConfig"]["VolumeKmsKeyId"] == "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
j["OutputDataConfig"] == {"S3OutputPath": "s3://pperf-test/results", "KmsKeyId": "alias/pperf-out"}
j["EnableInterContainerTrafficEncryption"] is True
j["RetryStrategy"] == {"MaximumRetryAttempts": 2}'
check "  botocore's model and moto accept them" "$venv_python" tests/e2e/sagemaker_requests.py "$work"/opts/*.json
check "subnets without security groups refused" one_line_error "^--security-groups: a VpcConfig needs both --subnets and --security-groups" \
  launch --config p4d_vs_hetero --image x --subnets subnet-1 --out "$work/w"
check "a subnet that is no id refused" one_line_error "^--subnets: 'subnet 1' is not an id" \
  launch --config p4d_vs_hetero --image x --subnets "subnet 1" --security-groups sg-1 --out "$work/w"
check "31 retries refused" one_line_error "^--max-retries: must be in \[1, 30\]" \
  launch --config p4d_vs_hetero --image x --max-retries 31 --out "$work/w"

# --- the image: AWS's PyTorch training images as the SageMaker SDK names them -----------------------
one_line_error "^--framework: no AWS PyTorch training image of torch 0.1 known to pperf; known: 2\.0\.0, " \
  launch --config seed003_thread_sweep --framework pytorch:0.1 --source s3://pperf-test/s.tar.gz --out "$work/none"
versions="$(sed -n 's/.*known: \(.*\) (or give --image)$/\1/p' "$work/err" | tr -d ',')"
check "pperf knows image versions" [ -n "$versions" ]
uris_ok=1 accepted=""
for v in $versions; do
  # A bundle built against each image's torch: what the image table lets through is written.
  echo "$v" > "$bundle/TORCH_VERSION"
  launch --config seed003_thread_sweep --framework "pytorch:$v" --source s3://pperf-test/s.tar.gz --bundle "$bundle" --out "$work/img-$v" >"$work/img-$v.log" 2>&1
  code=$?
  [ "$code" -eq 2 ] && grep -q "^--framework: pytorch:$v's " "$work/img-$v.log" && continue
  [ "$code" -eq 0 ] || { echo "  torch $v: exit $code: $(cat "$work/img-$v.log")"; uris_ok=0; continue; }
  accepted+=" $v"
  pperf_uri="$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["AlgorithmSpecification"]["TrainingImage"])' "$(ls "$work/img-$v"/*.json)")"
  sdk_uri="$("$venv_python" -c 'import sys, sagemaker.image_uris as u; print(u.retrieve("pytorch", region="us-east-1", version=sys.argv[1], instance_type="ml.p3.2xlarge", image_scope="training"))' "$v" 2>/dev/null | tail -1)"
  [ "$pperf_uri" = "$sdk_uri" ] || { echo "  torch $v: pperf $pperf_uri, SDK $sdk_uri"; uris_ok=0; }
done
check "every image URI pperf writes is image_uris.retrieve's (accepted:$accepted)" [ "$uris_ok" -eq 1 ]
check "  the images the bundle runs on: Ubuntu 22.04 with PyPI's torch" [ "$accepted" = " 2.7.1 2.8.0" ]
check "pytorch:2.6.0 (PyPI's pre-C++11-ABI wheel) refused" one_line_error "^--framework: pytorch:2\.6\.0's torch is PyPI's pre-C\\+\\+11-ABI wheel" \
  launch --config seed003_thread_sweep --framework pytorch:2.6.0 --source s3://pperf-test/s.tar.gz --bundle "$bundle" --out "$work/w"
echo 2.8.0+cu128 > "$bundle/TORCH_VERSION"

# --- --framework: the bundle checked against the image (docs/launch.md's table) ----------------------
glibc_needed="$(sed -n 's/^GLIBC //p' "$bundle/REQUIRES")"
check "the bundle's REQUIRES: the highest GLIBC_ and GLIBCXX_ its ELF files import" bash -c "
  [ \"\$(objdump -T '$bundle/bin/pperf' | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -1)\" = '$glibc_needed' ] &&
  [ \"\$(objdump -T '$bundle/bin/pperf' | grep -o 'GLIBCXX_[0-9.]*' | sed 's/GLIBCXX_//' | sort -V | tail -1)\" = \"\$(sed -n 's/^GLIBCXX //p' '$bundle/REQUIRES')\" ]"
check "pytorch:2.3.0 (Ubuntu 20.04, glibc 2.31) refused naming the flag and the version" one_line_error \
  "^--framework: pytorch:2\.3\.0's image is Ubuntu 20\.04 with glibc 2\.31; the bundle needs GLIBC_${glibc_needed//./\\.} \\(.*/REQUIRES\\): use --framework pytorch:2\.7\.1 or 2\.8\.0" \
  launch --config seed003_thread_sweep --framework pytorch:2.3.0 --source s3://pperf-test/s.tar.gz --bundle "$bundle" --out "$work/w"
check "pytorch:2.5.1 (conda's torch) refused" one_line_error "^--framework: pytorch:2\.5\.1's image has conda's torch and libstdc\\+\\+, not PyPI's wheel" \
  launch --config seed003_thread_sweep --framework pytorch:2.5.1 --source s3://pperf-test/s.tar.gz --bundle "$bundle" --out "$work/w"
check "a bundle of another torch refused naming --bundle" one_line_error "^--bundle: $bundle is built against torch 2\.8\.0\\+cu128, the image of pytorch:2\.7\.1 has torch 2\.7\.1: rebuild it" \
  launch --config seed003_thread_sweep --framework pytorch:2.7.1 --source s3://pperf-test/s.tar.gz --bundle "$bundle" --out "$work/w"
check "--framework without --bundle refused" one_line_error "^--bundle: --framework needs the bundle's folder" \
  launch --config seed003_thread_sweep --framework pytorch:2.8.0 --source s3://pperf-test/s.tar.gz --out "$work/w"
check "--bundle that is no bundle refused" one_line_error "^--bundle: '/nonexistent' is not a GPU bundle \\(no TORCH_VERSION there" \
  launch --config seed003_thread_sweep --framework pytorch:2.8.0 --source s3://pperf-test/s.tar.gz --bundle /nonexistent --out "$work/w"
check "  nothing written" [ ! -e "$work/w" ]

# --- what SageMaker would refuse: exit 2, one line, nothing written ------------------------------------
check "MaxWait below MaxRuntime refused" one_line_error "^--max-wait-s: 100 s is below the job's MaxRuntimeInSeconds 200 s" \
  launch --config p4d_vs_hetero --image x --spot --max-runtime-s 200 --max-wait-s 100 --out "$work/w"
check "  nothing written" [ ! -e "$work/w" ]
check "a role that is no IAM role ARN refused" one_line_error "^--role: " \
  "$pperf" launch sagemaker --config smoke --role nobody --output s3://pperf-test/p --image x --out "$work/w"
check "--framework without the bundle's S3 source refused" one_line_error "^--source: " \
  launch --config smoke --framework pytorch:2.3.0 --out "$work/w"
# Six instance groups (the trainer's and five data types) in one job.
/usr/bin/python3 - "$work/six.json" <<'PY'
import json, sys
types = ["ml.c5.9xlarge", "ml.c5.18xlarge", "ml.g5.xlarge", "ml.g5.2xlarge", "ml.g5.4xlarge"]
conf = [{"name": "alone", "baseline": True, "instances": [{"type": "ml.p3.2xlarge", "count": 1, "role": "dnn"}],
         "execution": {"device": "cuda:0", "data": {"mode": "local"}}}]
for i, t in enumerate(types):
    conf.append({"name": f"with-{i}", "instances": [{"type": "ml.p3.2xlarge", "count": 1, "role": "dnn"}, {"type": t, "count": 1, "role": "data"}],
                 "execution": {"device": "cuda:0", "data": {"mode": "service", "spawn_local": {"processes": 1}}}})
json.dump({"name": "six-groups", "pricing": {"table": "aws-sagemaker-us-east-1"},
           "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 16}], "configurations": conf}, open(sys.argv[1], "w"))
PY
check "more than 5 instance groups refused naming the configurations" one_line_error \
  "six.json: /configurations/0: configurations alone, with-0, with-1, with-2, with-3, with-4 on ml.p3.2xlarge: 6 instance groups .* at most 5" \
  launch --config "$work/six.json" --image x --out "$work/w"
check "  nothing written" [ ! -e "$work/w" ]
check "--only keeps it to 5 groups: written" expect_exit 0 "$work/o" launch --config "$work/six.json" --image x \
  --only alone,with-0,with-1,with-2,with-3 --out "$work/five"
check "  five groups pass botocore's model and moto" "$venv_python" tests/e2e/sagemaker_requests.py "$work"/five/*.json

# --- the new user's path ------------------------------------------------------------------------------
check "an S3 bucket S3 would refuse (capitals) refused" one_line_error "^--output: 'Pperf-Results' is not an S3 bucket name: 'P' is not allowed" \
  "$pperf" launch sagemaker --config smoke --role "$role" --output s3://Pperf-Results/p --image x --out "$work/w"
check "  nothing written" [ ! -e "$work/w" ]
check "a job file already there is never replaced" bash -c "'$pperf' launch sagemaker --config p4d_vs_hetero --role '$role' --output s3://pperf-test/r --image x --job-suffix same --out '$work/twice' >/dev/null && cp '$work'/twice/*.json '$work/first-write.json' && ! '$pperf' launch sagemaker --config p4d_vs_hetero --role '$role' --output s3://pperf-test/other --image x --job-suffix same --out '$work/twice' 2>'$work/twice.err' && grep -q 'exists; pperf launch never replaces a job file' '$work/twice.err' && cmp '$work'/twice/*.json '$work/first-write.json'"
check "two launches with the default suffix (the same second) get different names" bash -c "a=\$('$pperf' launch sagemaker --config p4d_vs_hetero --role '$role' --output s3://pperf-test/r --image x --out '$work/d1' | head -1 | cut -d: -f1); b=\$('$pperf' launch sagemaker --config p4d_vs_hetero --role '$role' --output s3://pperf-test/r --image x --out '$work/d2' | head -1 | cut -d: -f1); [ -n \"\$a\" ] && [ \"\$a\" != \"\$b\" ] && [[ \"\$a\" =~ ^p4d-vs-hetero-ml-p4d-24xlarge-[0-9]{8}T[0-9]{6}-[0-9a-f]{4}$ ]]"
/usr/bin/python3 - configs/p4d_vs_hetero.json "$work/shell.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["configurations"][1]["name"] = "het$(touch pwned)"
json.dump(c, open(sys.argv[2], "w"))
PY
check "a configuration name a shell would read (\$( ) refused, naming it" one_line_error "shell.json: /configurations/1/name: configuration name 'het\\\$\\(touch pwned\\)' holds a character a shell" \
  launch --config "$work/shell.json" --image x --out "$work/w"
# Two trainer types: two jobs, decided together.
/usr/bin/python3 - "$work/two.json" <<'PY'
import json, sys
conf = [{"name": n, "baseline": n == "c5-9", "instances": [{"type": t, "count": 1, "role": "dnn"}], "execution": {"device": "cpu", "data": {"mode": "local"}}}
        for n, t in (("c5-9", "ml.c5.9xlarge"), ("c5-18", "ml.c5.18xlarge"))]
json.dump({"name": "two-trainers", "pricing": {"table": "aws-sagemaker-us-east-1"},
           "workloads": [{"name": "mnist_heavy", "preset": "tiny", "batch_size": 16}], "configurations": conf}, open(sys.argv[1], "w"))
PY
check "after writing: where each job's results land, how to fetch them, and the decision of two jobs" bash -c "'$pperf' launch sagemaker --role '$role' --output s3://pperf-test/results --job-suffix t1 --config '$work/two.json' --image x --out '$work/two' >'$work/two.out' 2>&1; grep -q '^two-trainers-ml-c5-9xlarge-t1: results land in s3://pperf-test/results/two-trainers-ml-c5-9xlarge-t1/output/model.tar.gz (results.json inside)' '$work/two.out' && grep -q 'aws s3 cp s3://pperf-test/results/two-trainers-ml-c5-18xlarge-t1/output/model.tar.gz two-trainers-ml-c5-18xlarge-t1.tar.gz' '$work/two.out' && grep -q '^  pperf decide two-trainers-ml-c5-9xlarge-t1.json two-trainers-ml-c5-18xlarge-t1.json --out decided.json' '$work/two.out'"
finish
