#!/usr/bin/env bash
# The python_step protocol's own cost (benchmark, not a test): pperf times a null Python step
# (train_step returns at once, no synchronize work) over the worker's pipe, so the runner's
# median step time IS the round trip request -> done (target < 50 us).
# Usage: bench/python_step_overhead.sh [build/pperf] [python]   (STEPS=N, default 5000)
set -euo pipefail
pperf="${1:-build/pperf}"
python="${2:-/usr/bin/python3}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$root/tests/data/python_step/test_steps.py" "$work/"
steps="${STEPS:-5000}"
cat > "$work/null.json" <<JSON
{"name": "python-step-overhead", "seed": 0, "pricing": {"table": "aws-sagemaker-us-east-1"},
 "workloads": [{"name": "python_step", "params": {"step": "test_steps:null", "kwargs": {}, "python": "$python"}}],
 "measure": {"warmup_steps": 200, "min_steps": $steps, "max_steps": $steps, "max_seconds": 120},
 "configurations": [{"name": "null", "baseline": true, "instances": [{"type": "ml.c5.9xlarge"}],
   "execution": {"threads": 1, "cpus": [0]}}]}
JSON
"$pperf" run --config "$work/null.json" --out "$work/out.json" > "$work/log" 2>&1 || { cat "$work/log"; exit 1; }
/usr/bin/python3 - "$work/out.json" "$python" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["results"][0]["step_time_ms"]
s = sorted(t.get("samples") or [])
p95 = f", p95 {s[int(0.95 * len(s))] * 1000:.1f} us/step" if s else ""
print(f"python_step protocol round trip, null step ({sys.argv[2]}): median {t['median'] * 1000:.1f} us/step, "
      f"mean {t['mean'] * 1000:.1f} us/step{p95} over {t['n']} steps")
PY
