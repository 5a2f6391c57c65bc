#!/usr/bin/env bash
# Benchmark (not a test): pperf's step time against the PyTorch eager peer in bench/peers/, at
# equal model, shapes, batch, threads and loader workers, alternated round by round in one
# session (pperf first in even rounds, the peer first in odd ones) so both see the same machine.
# Prints, per case, every round's ratio pperf / PyTorch (lower = faster) with how busy the host
# was (bench/rounds.py: other processes' share of the CPUs; rounds at 25 % or more are
# flagged `busy`), then the median ratio with its min..max over the rounds, and a summary table.
#
# usage: bench/compare_pytorch.sh [--torch2 | --bundle] [--keep DIR] [ROUNDS] [CASE...]
#   ROUNDS: default 5, at least 5 for a figure to quote (single rounds range widely on a shared host)
#   CASE = workload:preset:batch:threads:workers[:precision]   (default: every case below)
#   --keep DIR: each round's pperf results kept as DIR/CASE-rN.json (per-step samples and waits)
#   PEER_BESIDE=COMMAND: run COMMAND beside every peer run (an interference test)
# Default: pperf built against Debian's libtorch 1.13 beside the peers on Debian's python3-torch
# 1.13 (installed on first use). --torch2: pperf built against PyPI's torch 2.15 beside the peers
# on that same torch (scripts/setup-torch2.sh's venv, plus torchvision), with one more column:
# the peer's step under torch.compile (what a user who compiles their model sees). --bundle: run
# from a GPU bundle (scripts/gpu-bundle.sh packs this script) on a GPU host: its pperf, the peers
# on the python3 holding the host's torch (PPERF_PYTHON), every case on cuda:0 (pperf --native).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
device=cpu keep=""
if [ "${1:-}" = --torch2 ]; then
  shift
  py="$("$root/scripts/setup-torch2.sh")"
  "$py" -c 'import torchvision' 2>/dev/null || "$(dirname "$py")/pip" install --quiet torchvision pillow >&2
  pperf=("$(env -u PPERF_BUILD_DIR "$root/scripts/build-with-torch.sh" "$py" pperf)/pperf")
  compiled=1
elif [ "${1:-}" = --bundle ]; then
  shift
  py="${PPERF_PYTHON:-python3}"
  pperf=("$root/run.sh" pperf)
  device=cuda:0 compiled=0
else
  pperf=("$(PPERF_TORCH=debian "$root/scripts/setup.sh")/pperf")
  dpkg-query -W python3-torch python3-torchvision >/dev/null 2>&1 ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-torch python3-torchvision >&2
  py=/usr/bin/python3
  compiled=0
fi
if [ "${1:-}" = --keep ]; then keep="$2"; mkdir -p "$keep"; shift 2; fi
echo "pperf: $("${pperf[@]}" --version); peers: torch $("$py" -c 'import torch; print(torch.__version__)')"
rounds="${1:-5}"; shift || true
[ "$rounds" -ge 5 ] 2>/dev/null || echo "compare_pytorch: $rounds rounds: fewer than 5, not a figure to quote" >&2
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  cases=(mnist_heavy:full:256:2:2 mnist_heavy:tiny:256:1:1)
  for peer in "$root"/bench/peers/*.py; do
    case "$(basename "$peer" .py)" in
      resnet50_augment) cases+=(resnet50_augment:tiny:32:2:1 resnet50_augment:cifar:16:2:1) ;;
      vit_synthetic) cases+=(vit_synthetic:tiny:32:2:1) ;;
      bert_classification) cases+=(bert_classification:tiny:16:2:1) ;;
    esac
  done
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
steps=20 warmup=3
load="$root/bench/rounds.py"
summary="$work/summary.jsonl"

peer_ms() {  # peer_ms LOAD_JSON ARGS...: the peer's median step (ms), its round's load in LOAD_JSON
  local out="$1"; shift
  local more=()
  [ -n "$precision" ] && more+=(--precision "$precision")
  [ "$device" = cpu ] || more+=(--device "${device%%:*}")
  # PEER_BESIDE: a command run beside every peer (e.g. pperf's GPU sampler, `nvidia-smi -lms 200
  # --query-gpu=utilization.gpu --format=csv`), to see whether it slows the peer's step.
  local beside=""
  if [ -n "${PEER_BESIDE:-}" ]; then bash -c "exec $PEER_BESIDE" >/dev/null 2>&1 & beside=$!; fi
  "$load" run "$out" -- $py "$root/bench/peers/$workload.py" --preset "$preset" --batch-size "$batch" --threads "$threads" \
    --steps "$steps" --warmup "$warmup" "${more[@]}" "$@" 2>/dev/null | tail -1 |
    $py -c 'import json, sys; print(json.load(sys.stdin)["step_ms_median"])'
  [ -z "$beside" ] || { kill "$beside" 2>/dev/null; wait "$beside" 2>/dev/null || true; }
}

for c in "${cases[@]}"; do
  IFS=: read -r workload preset batch threads workers precision <<<"$c"
  $py - "$work/cfg.json" "$workload" "$preset" "$batch" "$threads" "$workers" "$steps" "$warmup" "$device" "$precision" <<'PY'
import json, sys
out, w, preset, batch, threads, workers, steps, warmup, device, precision = sys.argv[1:]
workload = {"name": w, "preset": preset, "batch_size": int(batch)}
if precision:
    workload["params"] = {"precision": precision}
execution = {"threads": int(threads), "data": {"workers": int(workers)}}
if device != "cpu":
    execution["device"] = device
json.dump({"name": "compare-pytorch", "pricing": {"table": "aws-ec2-us-east-1"}, "workloads": [workload],
           "measure": {"warmup_steps": int(warmup), "min_steps": int(steps), "max_steps": int(steps), "max_seconds": 600},
           "configurations": [{"name": "here", "baseline": True,
                               "instances": [{"type": "c5.9xlarge" if device == "cpu" else "g5.xlarge"}],
                               "execution": execution}]},
          open(out, "w"))
PY
  # Only the mnist_heavy peer has a loader of its own by default; resnet50_augment's and
  # vit_synthetic's have one with --fresh-batches (a second peer column); the others time a fixed batch.
  extra=() fresh=0
  [ "$workload" = mnist_heavy ] && extra=(--workers "$workers")
  case "$workload" in resnet50_augment | vit_synthetic) fresh=1 ;; esac
  rm -f "$work"/round-*.json
  for ((r = 0; r < rounds; r++)); do
    run_pperf() {
      local native=()
      [ "$device" = cpu ] || native=(--native)  # the GPU host as it is, not emulating the priced instance
      "$load" run "$work/load-pperf.json" -- "${pperf[@]}" run --config "$work/cfg.json" --out "$work/res.json" "${native[@]}" >"$work/pperf.log" 2>&1 ||
        { echo "compare_pytorch: $c: pperf run failed:" >&2; tail -n 3 "$work/pperf.log" >&2; return 1; }
      [ -z "$keep" ] || cp "$work/res.json" "$keep/${c//:/_}-r$((r + 1)).json"
    }
    run_peers() {
      peer="$(peer_ms "$work/load-peer.json" "${extra[@]}")"
      fresh_ms=null compiled_ms=null
      [ "$fresh" = 1 ] && fresh_ms="$(peer_ms "$work/load-fresh.json" --fresh-batches --workers "$workers")"
      # torch.compile's first steps compile (tens of seconds): they are its warmup, as in a real job.
      [ "$compiled" = 1 ] && compiled_ms="$(peer_ms "$work/load-compiled.json" "${extra[@]}" --compile)"
      true
    }
    rm -f "$work"/load-*.json
    if ((r % 2 == 0)); then run_pperf; run_peers; else run_peers; run_pperf; fi
    $py - "$work/res.json" "$work" "$peer" "$fresh_ms" "$compiled_ms" >"$work/round-$r.json" <<'PY'
import glob, json, os, statistics, sys
res, work, peer, fresh, compiled = sys.argv[1:]
r = json.load(open(res))["results"][0]
s, w = r["step_time_ms"]["samples"], r["measurement"]["data_wait_ms"]
loads = [json.load(open(f)) for f in sorted(glob.glob(os.path.join(work, "load-*.json")))]
print(json.dumps({"pperf_ms": statistics.median(s), "pperf_compute_ms": statistics.median([a - b for a, b in zip(s, w)]),
                  "peer_ms": float(peer), "fresh_ms": json.loads(fresh), "compiled_ms": json.loads(compiled),
                  "others_cpu_pct": max(l["others_cpu_pct"] for l in loads),
                  "load_average_1m": max(l["load_average_1m"] for l in loads), "busy": any(l["busy"] for l in loads)}))
PY
    [ -z "$keep" ] || cp "$work/round-$r.json" "$keep/${c//:/_}-r$((r + 1)).round.json"
  done
  $py - "$c" "$work" "$rounds" "$summary" <<'PY'
import json, os, statistics, sys
c, work, rounds, summary = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rows = [json.load(open(os.path.join(work, f"round-{r}.json"))) for r in range(rounds)]
# mnist_heavy's peer times its DataLoader's wait too: compare the whole step; the others time a
# step on a fixed batch: compare pperf's compute (step less its wait for the batch).
whole = c.startswith("mnist_heavy")
ratio = [(x["pperf_ms"] if whole else x["pperf_compute_ms"]) / x["peer_ms"] for x in rows]
fresh = [x["pperf_ms"] / x["fresh_ms"] for x in rows if x["fresh_ms"]]
print(f"{c}: {'step' if whole else 'compute'} ratio pperf / PyTorch eager{', and step ratio against a fresh batch per step' if fresh else ''}")
print(f"  {'round':>5} {'pperf ms':>9} {'compute ms':>10} {'eager ms':>9} {'fresh ms':>9} {'compile ms':>10} {'ratio':>7} {'fresh':>7}"
      f" {'others CPU %':>12} {'load 1m':>8}")
for i, x in enumerate(rows):
    f = lambda v: f"{v:.1f}" if v else "-"
    print(f"  {i + 1:>5} {x['pperf_ms']:9.1f} {x['pperf_compute_ms']:10.1f} {x['peer_ms']:9.1f} {f(x['fresh_ms']):>9}"
          f" {f(x['compiled_ms']):>10} {ratio[i]:6.2f}x {(f'{fresh[i]:6.2f}x' if fresh else '-'):>7} {x['others_cpu_pct']:12.0f}"
          f" {x['load_average_1m']:8.2f}{'  busy' if x['busy'] else ''}")
def spread(v):
    return f"{statistics.median(v):.2f}x ({min(v):.2f}..{max(v):.2f})" if v else "-"
busy = sum(x["busy"] for x in rows)
print(f"  median {spread(ratio)} over {rounds} rounds{f', fresh batches {spread(fresh)}' if fresh else ''};"
      f" {busy} busy round{'s' if busy != 1 else ''}")
compiled = [x["compiled_ms"] for x in rows if x["compiled_ms"]]
with open(summary, "a") as out:
    out.write(json.dumps({"case": c, "kind": "step" if whole else "compute", "ratio": spread(ratio), "fresh": spread(fresh),
                          "pperf_ms": statistics.median(x["pperf_ms"] for x in rows),
                          "pperf_compute_ms": statistics.median(x["pperf_compute_ms"] for x in rows),
                          "peer_ms": statistics.median(x["peer_ms"] for x in rows),
                          "fresh_ms": statistics.median([x["fresh_ms"] for x in rows if x["fresh_ms"]]) if fresh else None,
                          "compiled_ms": statistics.median(compiled) if compiled else None,
                          "rounds": rounds, "busy": busy}) + "\n")
PY
done
$py - "$summary" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
f = lambda v: f"{v:.1f}" if v else "-"
print("\n| case | pperf ms/step | pperf compute ms | eager ms | ratio pperf / eager, median (min..max) | fresh-batch peer ms | step ratio against it | torch.compile ms | rounds (busy) |")
print("|---|---|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r['case']} | {r['pperf_ms']:.1f} | {r['pperf_compute_ms']:.1f} | {r['peer_ms']:.1f} | {r['ratio']} ({r['kind']}) |"
          f" {f(r['fresh_ms'])} | {r['fresh']} | {f(r['compiled_ms'])} | {r['rounds']} ({r['busy']}) |")
PY
echo "pperf ms/step = wait for batch + training step; pperf compute = training step alone. The mnist_heavy peer"
echo "times wait + step like pperf (its ratio is the step's); the other peers time a step on a fixed batch (the ratio"
echo "is pperf's compute against it); the fresh-batch peers (resnet50_augment, vit_synthetic) make a new batch per step"
echo "in DataLoader workers, as pperf's loader does beside the step (its ratio is the whole step's). busy: others used >= 25 % of the CPUs."
