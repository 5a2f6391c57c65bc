#!/usr/bin/env bash
# The BERT example as a python_step (python/examples/bert_step.py, eager PyTorch) against pperf's
# C++ bert_classification at equal shapes (tiny preset, batch 16, 128 tokens) and threads (2),
# on this host's CPU (benchmark, not a test). Prints both median step times and their ratio.
# Usage: bench/python_step_vs_cpp_bert.sh [build/pperf] [python with torch]
set -euo pipefail
pperf="${1:-build/pperf}"
python="${2:-/var/cache/pperf/torch-2.15.0/bin/python}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat > "$work/bert.json" <<JSON
{"name": "python-step-vs-cpp-bert", "seed": 0, "pricing": {"table": "aws-sagemaker-us-east-1"},
 "workloads": [
   {"name": "bert_classification", "preset": "tiny", "batch_size": 16, "params": {"seq_len": 128}},
   {"name": "python_step", "batch_size": 16,
    "params": {"step": "bert_step:make", "python": "$python",
               "kwargs": {"preset": "tiny", "batch_size": 16, "seq_len": 128, "threads": 2}}}],
 "measure": {"warmup_steps": 3, "min_steps": 30, "max_steps": 30, "max_seconds": 120},
 "configurations": [{"name": "cpu", "baseline": true, "instances": [{"type": "ml.c5.9xlarge"}],
   "execution": {"threads": 2, "interop_threads": 1}}]}
JSON
PYTHONPATH="$root/python/examples" "$pperf" run --config "$work/bert.json" --out "$work/out.json" > "$work/log" 2>&1 ||
  { cat "$work/log"; exit 1; }
/usr/bin/python3 - "$work/out.json" "$python" <<'PY'
import json, subprocess, sys
rs = json.load(open(sys.argv[1]))["results"]
med = {r["workload"]: r["step_time_ms"]["median"] for r in rs}
cpp, py = med["bert_classification"], med["python_step"]
torch = subprocess.run([sys.argv[2], "-c", "import torch; print(torch.__version__)"], capture_output=True, text=True).stdout.strip()
print(f"bert tiny, batch 16, 128 tokens, 2 threads: C++ bert_classification (pperf's libtorch) {cpp:.1f} ms/step, "
      f"python_step bert_step:make (torch {torch}) {py:.1f} ms/step, ratio python/C++ {py / cpp:.2f}")
PY
