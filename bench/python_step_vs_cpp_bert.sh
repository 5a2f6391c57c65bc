#!/usr/bin/env bash
# The BERT example as a python_step (python/examples/bert_step.py, eager PyTorch) against pperf's
# C++ bert_classification at equal shapes (tiny preset, batch 16, 128 tokens) and threads (2),
# on this host's CPU (benchmark, not a test). ROUNDS rounds (default 5) of one pperf run each,
# the C++ workload first in even rounds and the Python step first in odd ones; prints every
# round's median steps, their ratio Python / C++ and the host's load (bench/rounds.py), then the
# median ratio with min..max and the busy rounds.
# Usage: bench/python_step_vs_cpp_bert.sh [build/pperf] [python with torch]   (ROUNDS=N)
set -euo pipefail
pperf="${1:-build/pperf}"
python="${2:-/var/cache/pperf/torch-2.15.0/bin/python}"
rounds="${ROUNDS:-5}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cpp='{"name": "bert_classification", "preset": "tiny", "batch_size": 16, "params": {"seq_len": 128}}'
py='{"name": "python_step", "batch_size": 16,
    "params": {"step": "bert_step:make", "python": "'"$python"'",
               "kwargs": {"preset": "tiny", "batch_size": 16, "seq_len": 128, "threads": 2}}}'
: > "$work/rows.jsonl"
for ((round = 0; round < rounds; round++)); do
  if ((round % 2 == 0)); then workloads="$cpp, $py"; else workloads="$py, $cpp"; fi
  cat > "$work/bert.json" <<JSON
{"name": "python-step-vs-cpp-bert", "seed": 0, "pricing": {"table": "aws-sagemaker-us-east-1"},
 "workloads": [$workloads],
 "measure": {"warmup_steps": 3, "min_steps": 30, "max_steps": 30, "max_seconds": 120},
 "configurations": [{"name": "cpu", "baseline": true, "instances": [{"type": "ml.c5.9xlarge"}],
   "execution": {"threads": 2, "interop_threads": 1}}]}
JSON
  PYTHONPATH="$root/python/examples" "$root/bench/rounds.py" run "$work/load.json" -- \
    "$pperf" run --config "$work/bert.json" --out "$work/out.json" > "$work/log" 2>&1 || { cat "$work/log"; exit 1; }
  /usr/bin/python3 - "$work/out.json" "$work/load.json" >> "$work/rows.jsonl" <<'PY'
import json, sys
med = {r["workload"]: r["step_time_ms"]["median"] for r in json.load(open(sys.argv[1]))["results"]}
print(json.dumps({"a": med["python_step"], "b": med["bert_classification"], "loads": [json.load(open(sys.argv[2]))]}))
PY
done
torch="$("$python" -c 'import torch; print(torch.__version__)')"
"$root/bench/rounds.py" report --a "python_step (torch $torch)" --b "C++ (pperf's libtorch)" --unit ms/step \
  --title "bert tiny, batch 16, 128 tokens, 2 threads: python_step bert_step:make against C++ bert_classification" \
  "$work/rows.jsonl"
