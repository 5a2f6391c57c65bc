#!/usr/bin/env bash
# pperf's data-parallel ranks against PyTorch's own DistributedDataParallel: 2 spawn_local Gloo
# ranks of pperf train the parity model (bench/peers/ddp_parity.py make-model: BatchNorm
# buffers, two 1 MiB layers) and dump each step (PPERF_DDP_DUMP); DDP then replays the same
# batches from the same TorchScript file on 2 Gloo ranks. Every step must have the same bucket
# layout (one bucket at first, re-cut in gradient order from step 2), the same averaged
# gradients, buffers and loss to 1e-6; and the comparison must catch a gradient off by 1e-4.
# DDP runs in the Python whose torch is the libtorch pperf is built against (the same kernels):
# the torch 2.x venv (PPERF_TORCH2_PYTHON) for a scripts/build-with-torch.sh build, Debian's
# python3-torch for the Debian build. Skipped (77) when neither matches.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
built=$("$pperf" --version | sed -n 's/.*built against libtorch \([0-9.]*\).*/\1/p')
python=""
for candidate in "${PPERF_TORCH2_PYTHON:-/var/cache/pperf/torch-2.15.0/bin/python}" /usr/bin/python3; do
  theirs=$("$candidate" -c 'import torch; print(torch.__version__)' 2>/dev/null) || continue
  case "$theirs" in "$built"|"$built"[+a]*) python="$candidate"; break ;; esac
done
[ -n "$python" ] || { echo "skip: no Python with torch $built (pperf's libtorch) for DDP"; exit 77; }
echo "     pperf on libtorch $built; DDP in $python"

"$python" bench/peers/ddp_parity.py make-model "$work/model.pt"
cat > "$work/parity.json" <<JSON
{"name": "ddp-parity", "seed": 3, "pricing": {"table": "aws-ec2-us-east-1"},
 "workloads": [{"name": "torchscript", "batch_size": 8,
   "params": {"path": "$work/model.pt", "input_shape": [64], "classes": 10, "optimizer": "sgd", "lr": 0.01}}],
 "measure": {"warmup_steps": 1, "min_steps": 3, "max_steps": 3},
 "configurations": [{"name": "two-ranks", "baseline": true, "instances": [{"type": "c5.9xlarge", "count": 2}],
   "execution": {"threads": 1, "data": {"mode": "local", "workers": 1},
                 "distributed": {"world_size": 2, "timeout_s": 60, "spawn_local": {"cpus_per_rank": 1}}}}]}
JSON
mkdir "$work/dump"
check "pperf's 2 Gloo ranks train the parity model" expect_exit 0 "$work/run.out" \
  env PPERF_DDP_DUMP="$work/dump" "$pperf" run --config "$work/parity.json" --out "$work/res.json"
check "each rank dumped every step" bash -c "[ \$(wc -l < '$work/dump/rank0.jsonl') -ge 3 ] &&
  [ \$(wc -l < '$work/dump/rank0.jsonl') -eq \$(wc -l < '$work/dump/rank1.jsonl') ]"
buckets_recut() {  # pperf's own layout: one bucket at step 1, the same two from step 2 on
  /usr/bin/python3 - "$work/dump/rank0.jsonl" <<'PY'
import json, sys
layouts = [[len(b) for b in json.loads(l)["buckets"]] for l in open(sys.argv[1])]
print("  pperf's bucket sizes per step:", layouts)
sys.exit(not (layouts[0] == [10] and all(l == layouts[1] and len(l) == 2 for l in layouts[1:])))
PY
}
check "pperf's buckets: one at step 1, re-cut into two from step 2" buckets_recut
check "DDP on the same batches: same buckets, gradients, buffers and loss" expect_exit 0 "$work/check.out" \
  "$python" bench/peers/ddp_parity.py check --model "$work/model.pt" --dump "$work/dump"
sed 's/^/  /' "$work/check.out"
# The comparison itself: a gradient off by 1e-4 on rank 1's last step must be caught.
mkdir "$work/bad"
cp "$work/dump/rank0.jsonl" "$work/bad/"
/usr/bin/python3 - "$work/dump/rank1.jsonl" "$work/bad/rank1.jsonl" <<'PY'
import json, sys
steps = [json.loads(l) for l in open(sys.argv[1])]
steps[-1]["grads"][0][0] += 1e-4
open(sys.argv[2], "w").write("".join(json.dumps(s) + "\n" for s in steps))
PY
check "a gradient off by 1e-4 is a mismatch" expect_exit 3 "$work/bad.out" \
  "$python" bench/peers/ddp_parity.py check --model "$work/model.pt" --dump "$work/bad"
finish
