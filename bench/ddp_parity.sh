#!/usr/bin/env bash
# Step time of pperf's data-parallel ranks over PyTorch's own DistributedDataParallel on the same
# model: the parity model (bench/peers/ddp_parity.py make-model, or MODEL=file.pt with
# INPUT_SHAPE), 2 Gloo ranks on this host, 1 thread and 1 CPU each, batch 32 per rank, SGD.
# pperf's ranks are spawn_local ones; DDP's are torch.multiprocessing ones pinned the same way.
# ROUNDS rounds (default 5), pperf first in even rounds and DDP first in odd ones; prints every
# round's median steps, their ratio pperf / DDP (below 1: pperf's step is faster) and the host's
# load (bench/rounds.py), then the median ratio with min..max and the busy rounds.
# usage: bench/ddp_parity.sh [PPERF [PYTHON]]
#   PPERF: a pperf built against PYTHON's torch (default: the newest build-torch*/pperf)
#   PYTHON: the torch 2.x venv's python (default /var/cache/pperf/torch-2.15.0/bin/python)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pperf="${1:-$(ls -d "$root"/build-torch*/pperf 2>/dev/null | tail -1)}"
python="${2:-/var/cache/pperf/torch-2.15.0/bin/python}"
[ -x "$pperf" ] || { echo "ddp_parity: no pperf built against torch 2.x (scripts/build-with-torch.sh $python)" >&2; exit 2; }
rounds="${ROUNDS:-5}" batch="${BATCH:-32}" steps="${STEPS:-60}" warmup="${WARMUP:-10}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
model="${MODEL:-$work/model.pt}"
shape="${INPUT_SHAPE:-64}"
[ -n "${MODEL:-}" ] || "$python" "$root/bench/peers/ddp_parity.py" make-model "$model"
cat > "$work/config.json" <<JSON
{"name": "ddp-parity-timing", "seed": 0, "pricing": {"table": "aws-ec2-us-east-1"},
 "workloads": [{"name": "torchscript", "batch_size": $batch,
   "params": {"path": "$model", "input_shape": [${shape// /, }], "classes": 10, "optimizer": "sgd", "lr": 0.01}}],
 "measure": {"warmup_steps": $warmup, "min_steps": $steps, "max_steps": $steps},
 "configurations": [{"name": "two-ranks", "baseline": true, "instances": [{"type": "c5.9xlarge", "count": 2}],
   "execution": {"threads": 1, "data": {"mode": "local", "workers": 1},
                 "distributed": {"world_size": 2, "timeout_s": 120, "spawn_local": {"cpus_per_rank": 1}}}}]}
JSON
rounds_py="$root/bench/rounds.py"
run_pperf() {
  "$rounds_py" run "$work/load-pperf.json" -- "$pperf" run --config "$work/config.json" --out "$work/res.json" \
    > "$work/pperf.log" 2>&1 || { cat "$work/pperf.log" >&2; exit 1; }
  pperf_ms="$(/usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; print(r["step_time_ms"]["median"])' "$work/res.json")"
}
run_ddp() {
  # shellcheck disable=SC2086
  ddp_ms="$("$rounds_py" run "$work/load-ddp.json" -- "$python" "$root/bench/peers/ddp_parity.py" time --model "$model" \
    --input-shape $shape --batch-size "$batch" --steps "$steps" --warmup "$warmup" 2>/dev/null |
    /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["step_ms_median"])')"
}
: > "$work/rows.jsonl"
for ((round = 0; round < rounds; round++)); do
  if ((round % 2 == 0)); then run_pperf; run_ddp; else run_ddp; run_pperf; fi
  printf '{"a": %s, "b": %s, "loads": [%s, %s]}\n' "$pperf_ms" "$ddp_ms" \
    "$(cat "$work/load-pperf.json")" "$(cat "$work/load-ddp.json")" >> "$work/rows.jsonl"
done
"$rounds_py" report --title "$("$pperf" --version); 2 Gloo ranks x 1 CPU, batch $batch per rank; median step per round" \
  --a pperf --b DDP --unit ms "$work/rows.jsonl"
