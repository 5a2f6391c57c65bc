#!/usr/bin/env bash
# The GPU path end to end, on a GPU host: one line per check, "pass" or "FAIL", exit 1 if any
# failed. Without a GPU it says "no GPU" and exits 0 after the checks that need none (the build
# and the check configs' validation), which CI runs.
# usage: scripts/gpu-check.sh [PPERF]   (default: the binary scripts/setup.sh builds)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pperf="${1:-$("$root/scripts/setup.sh")/pperf}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failed=0
check() {  # check NAME COMMAND...: runs it, prints pass/FAIL with its last output line on failure
  local name="$1"; shift
  if out="$("$@" 2>&1)"; then echo "pass  $name"; else echo "FAIL  $name: $(tail -n 1 <<<"$out")"; failed=1; fi
}
result_has() {  # result_has RESULTS.json PYTHON-EXPRESSION-over-r
  /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"; }

version="$("$pperf" --version)"
echo "pperf: $version"
gpus=0
command -v nvidia-smi >/dev/null && gpus="$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)"
gpu_type=g5.xlarge
case "$gpus" in 4) gpu_type=g5.12xlarge ;; 8) gpu_type=p4d.24xlarge ;; esac

# One config per check: a bf16 ViT and a ResNet50 on one GPU, then the ViT on every GPU as ranks.
config() {  # config NAME WORKLOAD PARAMS INSTANCE DEVICE
  cat > "$work/$1.json" <<JSON
{"name": "gpu-check-$1", "pricing": {"table": "aws-ec2-us-east-1"},
 "workloads": [{"name": "$2", "preset": "tiny", "batch_size": 32, "params": $3}],
 "measure": {"warmup_steps": 3, "min_steps": 10, "max_steps": 30, "max_seconds": 60},
 "configurations": [{"name": "$1", "baseline": true, "instances": [{"type": "$4"}], "execution": {"device": "$5"}}]}
JSON
}
config vit-bf16 vit_synthetic '{"precision": "bf16"}' g5.xlarge cuda:0
config resnet50 resnet50_augment '{}' g5.xlarge cuda:0
config all-gpus vit_synthetic '{}' "$gpu_type" cuda
for c in vit-bf16 resnet50 all-gpus; do check "validate $c" "$pperf" validate --config "$work/$c.json"; done

if [ "$gpus" -eq 0 ]; then
  echo "no GPU: the checks that train on one are skipped (nvidia-smi lists none)"
  exit $failed
fi
check "built with CUDA" grep -q CUDA <<<"$version"
for c in vit-bf16 resnet50; do
  check "$c on cuda:0 completes" "$pperf" run --config "$work/$c.json" --native --quiet --out "$work/$c.out.json"
  check "$c MFU <= 100 %" result_has "$work/$c.out.json" 'r["results"][0]["mfu"] is not None and r["results"][0]["mfu"] <= 1'
  check "$c utilization of its own GPU" result_has "$work/$c.out.json" \
    'r["results"][0]["execution"]["gpu_utilization"]["gpu"] != "all" and r["results"][0]["execution"]["gpu_utilization"]["samples"] > 0'
done
check "vit bf16 autocast reported" result_has "$work/vit-bf16.out.json" 'r["results"][0]["model"]["precision"].startswith("bf16")'
if [ "$gpus" -ge 2 ] && [ "$gpu_type" != g5.xlarge ]; then
  check "every GPU as NCCL ranks completes" "$pperf" run --config "$work/all-gpus.json" --native --quiet --out "$work/all.out.json"
  check "NCCL backend, one rank per GPU" result_has "$work/all.out.json" \
    "r['results'][0]['distributed']['backend'] == 'nccl' and r['results'][0]['distributed']['world_size'] == $gpus"
  check "all-reduce time > 0" result_has "$work/all.out.json" 'r["results"][0]["distributed"]["allreduce_ms"]["median"] > 0'
else
  echo "skip  every GPU as NCCL ranks: $gpus GPU(s), the check needs 4 or 8 (a g5.12xlarge or a p4d)"
fi
exit $failed
