#!/usr/bin/env bash
# python_step's BERT examples in the torch 2.x venv: the compiled step (torch.compile, CPU
# inductor) measured ok, its warm-up (the compilation) recorded apart in measurement.warmup_s and
# far longer than a measured step; the DDP step as 2 ranks (Gloo, its group formed from the
# variables pperf gives each rank's worker) measured ok, each rank's median recorded.
# Skipped (77) without the venv (scripts/setup-torch2.sh).
set -uo pipefail
pperf="$1"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
python="${PPERF_TORCH2_PYTHON:-/var/cache/pperf/torch-2.15.0/bin/python}"
[ -x "$python" ] && "$python" -c "import torch; assert int(torch.__version__.split('.')[0]) >= 2" 2>/dev/null ||
  { echo "skip: no torch 2.x venv at $python"; exit 77; }
work="$(mktemp -d)"
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }
field() { /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['results'][0]; print(eval(sys.argv[2]))" "$@"; }
cat > "$work/compiled.json" <<JSON
{"name": "compiled", "seed": 0, "pricing": {"table": "aws-sagemaker-us-east-1"},
 "workloads": [{"name": "python_step", "batch_size": 4,
   "params": {"step": "bert_step:make_compiled", "python": "$python",
              "kwargs": {"preset": "tiny", "batch_size": 4, "seq_len": 32, "threads": 2}}}],
 "measure": {"warmup_steps": 2, "min_steps": 10, "max_steps": 10},
 "configurations": [{"name": "c", "baseline": true, "instances": [{"type": "ml.c5.9xlarge"}], "execution": {"threads": 2}}]}
JSON
# Inductor's cache in the work directory: a cold compilation every run, as a user's first run.
TORCHINDUCTOR_CACHE_DIR="$work/inductor" PYTHONPATH="$root/python/examples" \
  "$pperf" run --config "$work/compiled.json" --out "$work/out.json" > "$work/log" 2>&1
check "compiled step measured"     "[ \"\$(field '$work/out.json' 'r[\"status\"]')\" = ok ]" || cat "$work/log"
warmup=$(field "$work/out.json" 'r["measurement"].get("warmup_s", -1)')
median=$(field "$work/out.json" 'r["step_time_ms"]["median"]')
echo "     warmup_s $warmup s (2 steps, compilation included), median measured step $median ms"
check "warm-up recorded apart"     "/usr/bin/python3 -c 'import sys; sys.exit(not $warmup * 1000 > 20 * $median)'"
check "no step worker left"        "! pgrep -f 'pperf-step-worker.py.*make_compiled' > /dev/null"

cat > "$work/ddp.json" <<JSON
{"name": "ddp", "seed": 0, "pricing": {"table": "aws-sagemaker-us-east-1"},
 "workloads": [{"name": "python_step", "batch_size": 4,
   "params": {"step": "bert_step:make_ddp", "python": "$python",
              "kwargs": {"preset": "tiny", "batch_size": 4, "seq_len": 32, "threads": 1}}}],
 "measure": {"warmup_steps": 1, "min_steps": 5, "max_steps": 5},
 "configurations": [{"name": "ddp", "baseline": true, "instances": [{"type": "ml.c5.9xlarge", "count": 2}],
   "execution": {"threads": 1, "distributed": {"world_size": 2, "spawn_local": {"cpus_per_rank": 1}}}}]}
JSON
PYTHONPATH="$root/python/examples" "$pperf" run --config "$work/ddp.json" --out "$work/ddp.json.out" > "$work/ddp.log" 2>&1
check "DDP step as 2 ranks measured" "[ \"\$(field '$work/ddp.json.out' 'r[\"status\"], r[\"distributed\"][\"backend\"], len(r[\"distributed\"][\"ranks\"])')\" = \"('ok', 'step', 2)\" ]" || cat "$work/ddp.log"
echo "     DDP, 2 ranks of 1 CPU: median $(field "$work/ddp.json.out" 'r["step_time_ms"]["median"]') ms per step; per rank $(field "$work/ddp.json.out" '[x["median_ms"] for x in r["distributed"]["ranks"]]')"
check "no DDP step worker left"   "! pgrep -f 'pperf-step-worker.py.*make_ddp' > /dev/null"
exit $fail
