#!/usr/bin/env bash
# The GPU path end to end, on a GPU host: one PASS/FAIL line per check, the figures behind it,
# and a summary file; exit 1 if any check failed. Sized for one H100 in under 10 minutes.
#   - a ViT-B/16 in bf16 and a ResNet50 on cuda:0, each against the eager PyTorch peer on the same
#     GPU (pperf's compute, its step less the wait for data, over the peer's step: FAIL above 1.05;
#     bench/compare_pytorch.sh --bundle gives the ratio over rounds), MFU against the measured and the datasheet
#     peak, the device's memory figures, utilization of the GPU trained on;
#   - both traced (pperf run --trace, the peers' --trace) and compared kernel by kernel
#     (bench/compare_traces.py: names, counts, time per kernel class, CPU gaps between launches;
#     the whole comparison in DIR/NAME.kernels.txt), pperf's trace lining up with its step times;
#   - the ViT with execution.cuda_graphs (captured once, replayed) against the eager peer and
#     against the peer's model under torch.compile(mode="reduce-overhead") run as a python_step
#     (bench/peers/vit_step.py), and the same python_step eager;
#   - NCCL with one rank on the GPU (all-reduce time > 0, engine named), two NCCL ranks on the one
#     GPU refused before they start (NCCL takes a GPU per rank), two Gloo ranks on a CUDA device;
#   - python_step driving the GPU itself (pperf opens no CUDA context for it), and --native with
#     pperf's device cpu on a GPU instance for such a step;
#   - configs/p4d_gpu.json's local configuration (its measure shortened), which says it trains
#     1 of the 8 GPUs it prices.
# Without a GPU it validates its configs, says "no GPU" and exits 0 (CI runs that part).
# usage: scripts/gpu-check.sh [PPERF] [--out DIR]   (default: the binary scripts/setup.sh builds;
#        results, peers' output and summary.txt under DIR, default a temporary folder)
# PPERF_PEER_PYTHON: the python3 with torch for the peers and the python_step (default python3).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pperf="" out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    *) pperf="$1"; shift ;;
  esac
done
[ -n "$pperf" ] || pperf="$("$root/scripts/setup.sh")/pperf"
py="${PPERF_PEER_PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
[ -n "$out" ] || out="$work/out"
mkdir -p "$out"
summary="$out/summary.txt"
: > "$summary"
failed=0
say() { echo "$*" | tee -a "$summary"; }
check() {  # check NAME COMMAND...: PASS, or FAIL with the command's last output line
  local name="$1"; shift
  local output
  if output="$("$@" 2>&1)"; then say "PASS  $name${output:+: $(tail -n 1 <<<"$output")}"
  else say "FAIL  $name: $(tail -n 1 <<<"$output")"; failed=1; fi
}
# query RESULTS.json EXPRESSION: evaluates a Python expression over r (the results document's
# first result) and prints it; exit 1 when it is falsy. `d` is the document.
query() {
  "$py" - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"][0]
value = eval(sys.argv[2])
print(value)
sys.exit(0 if value else 1)
PY
}
run() {  # run NAME PPERF-ARGS...: a run whose results go to $out/NAME.json, its output to NAME.log
  local name="$1"; shift
  timeout "${RUN_TIMEOUT:-240}" "$pperf" run --quiet --out "$out/$name.json" "$@" > "$out/$name.log" 2>&1 || { tail -n 3 "$out/$name.log"; return 1; }
}
run_long() { RUN_TIMEOUT=480 run "$@"; }  # a step compiled on its first call

version="$("$pperf" --version)"
say "pperf: $version"
gpus=0
command -v nvidia-smi >/dev/null && gpus="$(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null | wc -l)"

config() {  # config NAME WORKLOAD PRESET BATCH PARAMS EXECUTION [INSTANCE]
  cat > "$work/$1.json" <<JSON
{"name": "gpu-check-$1", "pricing": {"table": "aws-ec2-us-east-1"},
 "workloads": [{"name": "$2", "preset": "$3", "batch_size": $4, "params": $5}],
 "measure": {"warmup_steps": 5, "min_steps": 20, "max_steps": 40, "max_seconds": 30},
 "configurations": [{"name": "$1", "baseline": true, "instances": [{"type": "${7:-g5.xlarge}"}], "execution": $6}]}
JSON
}
# Enough loader threads that the steps do not wait for data: the peers time a step on a batch
# made beforehand, and a GPU left idle between steps clocks down.
config vit-b16-bf16 vit_synthetic base 64 '{"precision": "bf16"}' '{"device": "cuda:0", "data": {"workers": 8}}'
config vit-b16-bf16-graphs vit_synthetic base 64 '{"precision": "bf16"}' '{"device": "cuda:0", "cuda_graphs": true, "data": {"workers": 8}}'
config resnet50 resnet50_augment full 64 '{}' '{"device": "cuda:0", "data": {"workers": 12}}'
config nccl-1 vit_synthetic small 32 '{}' '{"device": "cuda:0", "distributed": {"world_size": 1, "backend": "nccl", "spawn_local": {}, "timeout_s": 60}}'
config nccl-2 vit_synthetic small 32 '{}' '{"device": "cuda:0", "distributed": {"world_size": 2, "backend": "nccl", "spawn_local": {}, "timeout_s": 60}}'
config gloo-cuda vit_synthetic small 32 '{}' '{"device": "cuda:0", "distributed": {"world_size": 2, "backend": "gloo", "spawn_local": {}, "timeout_s": 60}}'
step_params="{\"step\": \"bert_step:make\", \"python\": \"$py\", \"kwargs\": {\"preset\": \"base\", \"batch_size\": 32, \"device\": \"cuda\"}, \"start_timeout_s\": 120, \"step_timeout_s\": 60}"
config python-step python_step default 32 "$step_params" '{"device": "cuda:0"}'
config python-step-native python_step default 32 "$step_params" '{"device": "cpu"}'
# The peer's ViT as a python_step (pperf's clock around a Python step), eager and under
# torch.compile(mode="reduce-overhead"); compiling takes a while, so the steps may too.
vit_step() {  # vit_step FACTORY
  echo "{\"step\": \"vit_step:$1\", \"python\": \"$py\", \"kwargs\": {\"preset\": \"base\", \"batch_size\": 64, \"device\": \"cuda\", \"precision\": \"bf16\"}, \"start_timeout_s\": 120, \"step_timeout_s\": 600}"
}
config vit-step-eager python_step default 64 "$(vit_step make)" '{"device": "cuda:0"}'
config vit-step-reduce-overhead python_step default 64 "$(vit_step make_reduce_overhead)" '{"device": "cuda:0"}'
shipped() {  # shipped PATH: PATH in the checkout, or in a bundle's share/pperf (scripts/gpu-bundle.sh)
  if [ -e "$root/$1" ]; then echo "$root/$1"; else echo "$root/share/pperf/$1"; fi
}
cp "$(shipped python/examples/bert_step.py)" "$root/bench/peers/vit_step.py" "$root/bench/peers/vit_synthetic.py" "$work/"
# p4d_gpu.json's local configuration, as shipped but for a shorter measurement.
"$py" - "$(shipped configs/p4d_gpu.json)" "$work/p4d-local.json" <<'PY' ||
import json, sys
c = json.load(open(sys.argv[1]))
c.pop("$schema", None)
c["measure"].update({"min_steps": 20, "max_steps": 40, "max_seconds": 45})
c["configurations"] = [x for x in c["configurations"] if x["name"] == "homogeneous"]
json.dump(c, open(sys.argv[2], "w"))
PY
  say "FAIL  p4d_gpu.json's local configuration could not be written"
# (python_step's configs are validated on the GPU host: validating imports the step, and its torch.)
for c in vit-b16-bf16 vit-b16-bf16-graphs resnet50 nccl-1 gloo-cuda p4d-local; do
  check "validate $c" "$pperf" validate --config "$work/$c.json"
done

# NCCL refuses two ranks on one GPU ("Duplicate GPU detected"): pperf must say so before it starts.
check "NCCL, 2 ranks on one GPU, refused by validate with one line" bash -c \
  '! out="$("$0" validate --config "$1" 2>&1)" && grep -q "nccl takes one GPU per rank" <<<"$out" && tail -n 1 <<<"$out"' "$pperf" "$work/nccl-2.json"

if [ "$gpus" -eq 0 ]; then
  say "no GPU: the checks that train on one are skipped (nvidia-smi lists none)"
  exit $failed
fi
check "built with CUDA" grep -o "CUDA [0-9.]*" <<<"$version"
check "GPU" nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader -i 0

peer() {  # peer NAME SCRIPT ARGS...: the eager PyTorch step on cuda:0, its JSON line in NAME.peer.json
  local name="$1" script="$2"; shift 2
  "$py" "$root/bench/peers/$script" --device cuda "$@" > "$out/$name.peer.json" 2> "$out/$name.peer.log" ||
    { tail -n 3 "$out/$name.peer.log"; return 1; }
  tail -n 1 "$out/$name.peer.json"
}
ratio() {  # ratio NAME [LIMIT [PEER-NAME]]: pperf's median compute (step less its wait for the
  # batch: the peer times a step on a batch made beforehand) over the peer's median step (PEER-NAME's
  # peer, default NAME's), FAIL above LIMIT (default 1.05; 0: no limit, the ratio printed)
  "$py" - "$out/$1.json" "$out/${3:-$1}.peer.json" "${2:-1.05}" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1]))["results"][0]
ours = statistics.median(s - w for s, w in zip(r["step_time_ms"]["samples"], r["measurement"]["data_wait_ms"]))
peer = json.loads(open(sys.argv[2]).read().strip().splitlines()[-1])["step_ms_median"]
limit = float(sys.argv[3])
print(f"pperf compute {ours:.2f} ms (data wait {100 * r['data_wait_fraction']:.0f} %) / PyTorch eager {peer:.2f} ms = {ours / peer:.3f}"
      + (f" (limit {limit})" if limit else ""))
sys.exit(0 if not limit or ours / peer <= limit else 1)
PY
}
steps_ratio() {  # steps_ratio A B: A's median compute over B's median step, both pperf results (no limit)
  "$py" - "$out/$1.json" "$out/$2.json" <<'PY'
import json, statistics, sys
a, b = (json.load(open(p))["results"][0] for p in sys.argv[1:3])
ours = statistics.median(s - w for s, w in zip(a["step_time_ms"]["samples"], a["measurement"]["data_wait_ms"]))
theirs = b["step_time_ms"]["median"]
print(f"{a['configuration']} compute {ours:.2f} ms / {b['configuration']} step {theirs:.2f} ms = {ours / theirs:.3f}")
PY
}
kernels() {  # kernels NAME: pperf's trace lines up with its steps; then kernel by kernel against the peer's
  "$py" - "$out/$1.json" <<'PY' || return 1
import json, re, sys
t = json.load(open(sys.argv[1]))["results"][0]["trace"]
doc = json.load(open(t["path"]))
steps = sorted((e for e in doc["traceEvents"] if e.get("ph") == "X" and e.get("cat") != "gpu_user_annotation"
                and re.fullmatch(r"ProfilerStep#\d+", e.get("name", ""))),
               key=lambda e: float(e["ts"]))
assert t["activities"] == ["cpu", "cuda"], t["activities"]
assert len(steps) == t["steps"] == 5, (len(steps), t["steps"])
for s, ms in zip(steps, t["step_ms"]):
    assert 0.9 <= float(s["dur"]) / 1000 / ms <= 1.1, (float(s["dur"]) / 1000, ms)
assert any(e.get("cat") == "kernel" for e in doc["traceEvents"]), "no GPU kernel in the trace"
PY
  "$py" "$root/bench/compare_traces.py" "$(trace_of "$1")" "$out/$1.peer.trace.json" --names pperf eager > "$out/$1.kernels.txt" ||
    { tail -n 3 "$out/$1.kernels.txt"; return 1; }
  tail -n 1 "$out/$1.kernels.txt"
}
trace_of() { "$py" -c 'import json, sys; print(json.load(open(sys.argv[1]))["results"][0]["trace"]["path"])' "$out/$1.json"; }
single_gpu_checks() {  # single_gpu_checks NAME
  local n="$1"
  check "$n: MFU against the measured peak (<= 100 %)" query "$out/$n.json" \
    'r["mfu"] is not None and 0 < r["mfu"] <= 1 and "%.1f %% of the measured peak, %s" % (100 * r["mfu"], r["execution"]["device_peak_gflops"])'
  check "$n: MFU against the datasheet" query "$out/$n.json" \
    'r.get("mfu_datasheet") is not None and "%.1f %% of the datasheet peak" % (100 * r["mfu_datasheet"])'
  check "$n: device memory figures" query "$out/$n.json" \
    'r["memory"]["devices"] and r["memory"]["devices"][0]["peak_allocated_bytes"] > 0 and "peak allocated %.2f GiB, reserved %.2f GiB" % (r["memory"]["devices"][0]["peak_allocated_bytes"] / 2**30, r["memory"]["devices"][0]["peak_reserved_bytes"] / 2**30)'
  check "$n: utilization of its own GPU" query "$out/$n.json" \
    'r["execution"]["gpu_utilization"]["gpu"] != "all" and r["execution"]["gpu_utilization"]["samples"] > 0 and r["execution"]["gpu_utilization"]["mean_pct"] > 0 and "GPU %s: mean %.0f %% over %d samples" % (r["execution"]["gpu_utilization"]["gpu"], r["execution"]["gpu_utilization"]["mean_pct"], r["execution"]["gpu_utilization"]["samples"])'
}

check "ViT-B/16 bf16 on cuda:0 completes, traced" run vit-b16-bf16 --config "$work/vit-b16-bf16.json" --native --trace "$out/traces"
check "ViT-B/16 bf16: bf16 autocast recorded" query "$out/vit-b16-bf16.json" 'r["model"]["precision"].startswith("bf16") and r["model"]["precision"]'
check "ViT-B/16 bf16: PyTorch eager peer, traced" peer vit-b16-bf16 vit_synthetic.py --preset base --batch-size 64 --precision bf16 --steps 30 --warmup 5 --trace "$out/vit-b16-bf16.peer.trace.json"
check "ViT-B/16 bf16: pperf compute / PyTorch step time <= 1.05" ratio vit-b16-bf16
check "ViT-B/16 bf16: trace lines up; kernel by kernel against eager (vit-b16-bf16.kernels.txt)" kernels vit-b16-bf16
single_gpu_checks vit-b16-bf16

check "ViT-B/16 bf16 with cuda_graphs completes" run vit-b16-bf16-graphs --config "$work/vit-b16-bf16-graphs.json" --native
check "ViT-B/16 bf16 cuda_graphs: captured, says so" query "$out/vit-b16-bf16-graphs.json" 'next((e for e in r["events"] if e.startswith("CUDA graphs:")), None)'
check "ViT-B/16 bf16 cuda_graphs: pperf compute / PyTorch eager step" ratio vit-b16-bf16-graphs 0 vit-b16-bf16
check "ViT-B/16 bf16 as a python_step, eager, completes" run vit-step-eager --config "$work/vit-step-eager.json"
check "ViT-B/16 bf16 as a python_step, torch.compile reduce-overhead, completes" run_long vit-step-reduce-overhead --config "$work/vit-step-reduce-overhead.json"
check "ViT-B/16 bf16: pperf cuda_graphs / python_step reduce-overhead" steps_ratio vit-b16-bf16-graphs vit-step-reduce-overhead
check "ViT-B/16 bf16: pperf eager / python_step eager" steps_ratio vit-b16-bf16 vit-step-eager

check "ResNet50 on cuda:0 completes, traced" run resnet50 --config "$work/resnet50.json" --native --trace "$out/traces"
check "ResNet50: PyTorch eager peer, traced" peer resnet50 resnet50_augment.py --preset full --batch-size 64 --steps 30 --warmup 5 --trace "$out/resnet50.peer.trace.json"
check "ResNet50: pperf compute / PyTorch step time <= 1.05" ratio resnet50
check "ResNet50: trace lines up; kernel by kernel against eager (resnet50.kernels.txt)" kernels resnet50
single_gpu_checks resnet50

check "NCCL, 1 rank on cuda:0, completes" run nccl-1 --config "$work/nccl-1.json"
check "NCCL, 1 rank: all-reduce time > 0, engine named" query "$out/nccl-1.json" \
  'r["distributed"]["backend"] == "nccl" and r["distributed"]["allreduce_ms"]["median"] > 0 and r["distributed"].get("engine") and "all-reduce %.3f ms per step, engine %s" % (r["distributed"]["allreduce_ms"]["median"], r["distributed"]["engine"])'
check "Gloo ranks on cuda:0 complete" run gloo-cuda --config "$work/gloo-cuda.json"
check "Gloo on CUDA: all-reduce time > 0" query "$out/gloo-cuda.json" \
  'r["distributed"]["backend"] == "gloo" and r["distributed"]["allreduce_ms"]["median"] > 0 and "all-reduce %.3f ms per step" % r["distributed"]["allreduce_ms"]["median"]'

check "validate python-step" "$pperf" validate --config "$work/python-step.json"
check "python_step on the GPU completes" run python-step --config "$work/python-step.json"
check "python_step: pperf opened no CUDA context, sampled the step's GPU" query "$out/python-step.json" \
  'any("opened no CUDA context" in e for e in r["events"]) and r["execution"]["gpu_utilization"]["samples"] > 0 and "GPU mean %.0f %%, step %.2f ms" % (r["execution"]["gpu_utilization"]["mean_pct"], r["step_time_ms"]["median"])'
check "python_step, device cpu, --native on a GPU instance completes" run python-step-native --config "$work/python-step-native.json" --native

check "p4d_gpu.json local configuration completes" run p4d-local --config "$work/p4d-local.json"
check "p4d_gpu.json: says it trains 1 of 8 priced GPUs" query "$out/p4d-local.json" \
  'next((e for e in r["events"] if "trains 1 of 8 priced GPUs" in e), None)'
check "p4d_gpu.json: throughput" query "$out/p4d-local.json" \
  '"%.0f samples/s, step %.1f ms, data wait %.0f %%" % (r["throughput"]["samples_per_s"], r["step_time_ms"]["median"], 100 * r["data_wait_fraction"])'
say "summary: $summary ($(grep -c '^PASS' "$summary") passed, $(grep -c '^FAIL' "$summary") failed)"
exit $failed
