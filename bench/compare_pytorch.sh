#!/usr/bin/env bash
# Benchmark (not a test): pperf's step time against the PyTorch eager peer in bench/peers/, at
# equal model, shapes, batch, threads and loader workers, run alternately in one session so both
# see the same machine. Prints one line per case and the ratio pperf / PyTorch (lower = faster).
#
# usage: bench/compare_pytorch.sh [--torch2] [ROUNDS] [CASE...]
#   CASE = workload:preset:batch:threads:workers   (default: every case below)
# Default: pperf built against Debian's libtorch 1.13 beside the peers on Debian's python3-torch
# 1.13 (installed on first use). --torch2: pperf built against PyPI's torch 2.15 beside the peers
# on that same torch (scripts/setup-torch2.sh's venv, plus torchvision), with one more column:
# the peer's step under torch.compile (what a user who compiles their model sees).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ "${1:-}" = --torch2 ]; then
  shift
  py="$("$root/scripts/setup-torch2.sh")"
  "$py" -c 'import torchvision' 2>/dev/null || "$(dirname "$py")/pip" install --quiet torchvision pillow >&2
  pperf="$(env -u PPERF_BUILD_DIR "$root/scripts/build-with-torch.sh" "$py" pperf)/pperf"
  compiled=1
else
  pperf="$(PPERF_TORCH=debian "$root/scripts/setup.sh")/pperf"
  dpkg-query -W python3-torch python3-torchvision >/dev/null 2>&1 ||
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-torch python3-torchvision >&2
  py=/usr/bin/python3
  compiled=0
fi
echo "pperf: $("$pperf" --version); peers: torch $("$py" -c 'import torch; print(torch.__version__)')"
rounds="${1:-2}"; shift || true
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

printf '%-40s %14s %14s %14s %12s %14s %16s\n' "case (workload:preset:batch:threads:workers)" "pperf ms/step" "pperf compute" \
  "PyTorch ms" "step ratio" "compute ratio" "torch.compile ms"
for c in "${cases[@]}"; do
  IFS=: read -r workload preset batch threads workers <<<"$c"
  $py - "$work/cfg.json" "$workload" "$preset" "$batch" "$threads" "$workers" "$steps" "$warmup" <<'PY'
import json, sys
out, w, preset, batch, threads, workers, steps, warmup = sys.argv[1:]
json.dump({"name": "compare-pytorch", "pricing": {"table": "aws-ec2-us-east-1"},
           "workloads": [{"name": w, "preset": preset, "batch_size": int(batch)}],
           "measure": {"warmup_steps": int(warmup), "min_steps": int(steps), "max_steps": int(steps), "max_seconds": 600},
           "configurations": [{"name": "here", "baseline": True, "instances": [{"type": "c5.9xlarge"}],
                               "execution": {"threads": int(threads), "data": {"workers": int(workers)}}}]},
          open(out, "w"))
PY
  extra=()  # only the mnist_heavy peer has a loader of its own; the others time a fixed batch
  [ "$workload" = mnist_heavy ] && extra=(--workers "$workers")
  pp=() pc=() pt=() tc=()
  for ((r = 0; r < rounds; r++)); do
    "$pperf" run --config "$work/cfg.json" --out "$work/res.json" >/dev/null 2>&1
    read -r step compute < <($py -c "
import json, statistics; r = json.load(open('$work/res.json'))['results'][0]
s = r['step_time_ms']['samples']; w = r['measurement']['data_wait_ms']
print(statistics.median(s), statistics.median([a - b for a, b in zip(s, w)]))")
    pp+=("$step"); pc+=("$compute")
    pt+=("$($py "$root/bench/peers/$workload.py" --preset "$preset" --batch-size "$batch" --threads "$threads" \
             "${extra[@]}" --steps "$steps" --warmup "$warmup" 2>/dev/null | tail -1 |
            $py -c 'import json, sys; print(json.load(sys.stdin)["step_ms_median"])')")
    # torch.compile's first steps compile (tens of seconds): they are its warmup, as in a real job.
    [ "$compiled" = 1 ] && tc+=("$($py "$root/bench/peers/$workload.py" --preset "$preset" --batch-size "$batch" \
             --threads "$threads" "${extra[@]}" --steps "$steps" --warmup "$warmup" --compile 2>/dev/null | tail -1 |
            $py -c 'import json, sys; print(json.load(sys.stdin)["step_ms_median"])')")
  done
  $py - "$c" "${pp[*]}" "${pc[*]}" "${pt[*]}" "${tc[*]:-}" <<'PY'
import statistics, sys
c, pp, pc, pt, tc = sys.argv[1], *[[float(x) for x in a.split()] for a in sys.argv[2:]]
p, q, t = statistics.median(pp), statistics.median(pc), statistics.median(pt)
compiled = f"{statistics.median(tc):16.1f}" if tc else f"{'-':>16}"
print(f"{c:<40} {p:14.1f} {q:14.1f} {t:14.1f} {p / t:11.2f}x {q / t:13.2f}x {compiled}")
PY
done
echo "pperf ms/step = wait for batch + training step; pperf compute = training step alone. The mnist_heavy peer"
echo "times wait + step like pperf (compare 'step ratio'); the other peers time a step on a fixed batch ('compute ratio')."
