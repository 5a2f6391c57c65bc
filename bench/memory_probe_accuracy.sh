#!/usr/bin/env bash
# Benchmark (not a test): the memory probe's prediction against the measured peak, for every
# built-in workload at the presets and batches the configs and seeds use. Per case: `pperf
# validate` probes it (two fresh processes at an eighth and a quarter of the batch), then
# `pperf run` trains it (1 warm-up step, 2 measured) under the bound and records the trainer's
# peak resident memory. Prints a Markdown table: predicted, measured, predicted / measured.
# A case over the bound shows how it ended instead (refused before running, or failed under it).
#
# usage: bench/memory_probe_accuracy.sh [--max-memory GIB] [CASE...]
#   CASE = workload:preset:batch   (default: every case below)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pperf="${PPERF:-$root/build/pperf}"
max_memory=()
if [ "${1:-}" = --max-memory ]; then max_memory=(--max-memory "$2"); shift 2; fi
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(
  mnist_heavy:full:8192
  resnet50_augment:cifar:64 resnet50_augment:cifar:256 resnet50_augment:cifar:1024
  bert_classification:base:16 bert_classification:base:32
  vit_synthetic:small:32 vit_synthetic:small:64 vit_synthetic:small:128
  vit_synthetic:base:32 vit_synthetic:base:64 vit_synthetic:base:128)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export PPERF_CACHE_DIR="$work/cache"  # probes measured here, not read from an earlier cache
echo "pperf $("$pperf" --version); $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
echo
echo "| workload | preset | batch | predicted GiB | measured peak GiB | predicted / measured | probes |"
echo "|---|---|---|---|---|---|---|"
for c in "${cases[@]}"; do
  IFS=: read -r workload preset batch <<<"$c"
  params='{}'
  [ "$workload" = mnist_heavy ] && params='{"data": "synthetic"}'
  cat >"$work/c.json" <<JSON
{"name": "memory", "pricing": {"table": "aws-ec2-us-east-1"},
 "workloads": [{"name": "$workload", "preset": "$preset", "batch_size": $batch, "params": $params}],
 "measure": {"warmup_steps": 1, "min_steps": 2, "max_steps": 2, "max_seconds": 3600},
 "configurations": [{"name": "a", "baseline": true, "instances": [{"type": "c5.9xlarge"}],
                     "execution": {"threads": $(nproc)}}]}
JSON
  "$pperf" validate --config "$work/c.json" "${max_memory[@]}" >"$work/v" 2>&1
  predicted=$(sed -n 's/.*needs about \([0-9.]*\) GiB.*/\1/p' "$work/v" | head -1)
  probes=$(sed -n 's/.*GiB at batch [0-9]* (\(.*\), each in a fresh process.*/\1/p' "$work/v" | head -1)
  if [ -z "$predicted" ]; then
    echo "| $workload | $preset | $batch | $(tail -1 "$work/v" | sed 's/.*: //' | cut -c1-90) | | | |"
    continue
  fi
  rm -f "$work/r.json"
  if ! "$pperf" run --config "$work/c.json" --out "$work/r.json" --quiet "${max_memory[@]}" >"$work/run" 2>&1 &&
     [ ! -s "$work/r.json" ]; then  # refused before anything ran (exit 2): its one line says why
    echo "| $workload | $preset | $batch | $predicted | refused: $(tail -1 "$work/run" | sed 's/^[^ ]*: //' | cut -c1-120) | | $probes |"
    continue
  fi
  measured=$(/usr/bin/python3 -c "
import json; r = json.load(open('$work/r.json'))['results'][0]
print(f\"{r['memory']['processes'][0]['peak_rss_bytes'] / 2**30:.2f}\" if r['status'] == 'ok' else r['reason'])" 2>/dev/null || tail -1 "$work/run")
  ratio=$(/usr/bin/python3 -c "print(f'{$predicted / $measured:.2f}')" 2>/dev/null || echo "")
  echo "| $workload | $preset | $batch | $predicted | $measured | $ratio | $probes |"
done
