#!/usr/bin/env bash
# False-positive rate (and power) of `pperf compare` on this machine.
#
# usage: bench/compare_noise.sh [--runs R] [--resampled K] [--config FILE] [--pperf BIN] [--keep DIR]
#
# 1. Runs FILE (default tests/data/noise_run.json) R times (default 5).
# 2. Real pairs: every ordered pair of distinct runs (R(R-1) files, 20 for R = 5) is compared
#    with the default options. A pair of files is a false positive when any of its (workload x
#    configuration) pairs is called `regressed`. This includes run-to-run drift of the machine.
# 3. Resampled pairs: K (default 40) pairs built from the real runs by drawing, with
#    replacement, a baseline and a candidate from the samples of one run (no drift between the
#    two sides by construction): the false-positive rate of the statistics alone.
# 4. Against 3 earlier runs (what `--against-history 3` does): each run as the candidate against
#    every set of 3 other runs, each a cluster (R x C(R-1, 3) comparisons, 20 for R = 5): their
#    spread is the machine's run-to-run drift.
# 5. Power: the same comparisons with a 10 % slowdown injected into every candidate sample.
# Prints one line per figure. Takes about R x 15 s.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
runs=5 resampled=40 config="$root/tests/data/noise_run.json" pperf="$root/build/pperf" keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --resampled) resampled="$2"; shift 2 ;;
    --config) config="$2"; shift 2 ;;
    --pperf) pperf="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    *) echo "usage: $0 [--runs R] [--resampled K] [--config FILE] [--pperf BIN] [--keep DIR]" >&2; exit 2 ;;
  esac
done
work="${keep:-$(mktemp -d)}"
mkdir -p "$work"
[ -n "$keep" ] || trap 'rm -rf "$work"' EXIT

for i in $(seq "$runs"); do
  [ -f "$work/run$i.json" ] && continue  # --keep DIR: runs made before are reused
  echo "run $i/$runs ..." >&2
  "$pperf" run --config "$config" --out "$work/run$i.json" >/dev/null 2>"$work/run$i.log"
done

# compare_many BASE... CAND -> prints "<pairs> <regressed>"
compare_many() {
  local code=0
  "$pperf" compare "$@" --out "$work/cmp.json" >/dev/null 2>&1 || code=$?
  [ "$code" -le 1 ] || { echo "pperf compare failed ($code) on $*" >&2; exit 1; }
  /usr/bin/python3 -c "import json; s = json.load(open('$work/cmp.json'))['summary']; print(s['pairs'], s['regressed'])"
}
compare() { compare_many "$1" "$2"; }

# Makes the resampled and slowed-down files: python does the resampling.
/usr/bin/python3 - "$work" "$runs" "$resampled" <<'PY'
import json, random, statistics, sys
work, runs, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def with_samples(r, samples):
    st = r["step_time_ms"]
    old = st["mean"]
    st["samples"] = samples
    st["n"] = len(samples)
    # The intervals move with their estimates (the reader refuses one that misses its estimate).
    for key, ci, value in (("median", "ci95", statistics.median(samples)), ("mean", "mean_ci95", statistics.mean(samples))):
        if st.get(ci) is not None:
            st[ci] = [v + value - st[key] for v in st[ci]]
        st[key] = value
    f = st["mean"] / old  # cost is priced on the mean
    if r.get("cost"):
        c = r["cost"]
        c["usd_per_step"] *= f
        if c.get("usd_per_step_ci95"):
            c["usd_per_step_ci95"] = [v * f for v in c["usd_per_step_ci95"]]

def save(doc, path):
    with open(path, "w") as out:
        json.dump(doc, out, indent=2)

rng = random.Random(20261122)
for i in range(1, runs + 1):
    doc = json.load(open(f"{work}/run{i}.json"))
    for r in doc["results"]:
        if r["status"] == "ok":
            with_samples(r, [s * 1.10 for s in r["step_time_ms"]["samples"]])
    save(doc, f"{work}/run{i}_slow.json")
for p in range(k):
    src = json.load(open(f"{work}/run{p % runs + 1}.json"))
    for side in ("base", "cand", "cand_slow"):
        doc = json.loads(json.dumps(src))
        for r in doc["results"]:
            if r["status"] != "ok":
                continue
            s = next(x for x in src["results"] if x["configuration"] == r["configuration"]
                                   and x["batch_size"] == r["batch_size"])["step_time_ms"]["samples"]
            draw = [rng.choice(s) for _ in s]
            if side == "cand_slow":
                draw = [v * 1.10 for v in draw]
            with_samples(r, draw)
        save(doc, f"{work}/resampled{p}_{side}.json")
PY

real_files=0 real_fp_files=0 real_cmp=0 real_fp=0 real_detected=0
for i in $(seq "$runs"); do
  for j in $(seq "$runs"); do
    [ "$i" -ne "$j" ] || continue
    read -r pairs regressed < <(compare "$work/run$i.json" "$work/run$j.json")
    real_files=$((real_files + 1)); real_cmp=$((real_cmp + pairs)); real_fp=$((real_fp + regressed))
    [ "$regressed" -eq 0 ] || real_fp_files=$((real_fp_files + 1))
    read -r pairs regressed < <(compare "$work/run$i.json" "$work/run${j}_slow.json")
    real_detected=$((real_detected + regressed))
  done
done
res_files=0 res_fp_files=0 res_cmp=0 res_fp=0 res_detected=0
for p in $(seq 0 $((resampled - 1))); do
  read -r pairs regressed < <(compare "$work/resampled${p}_base.json" "$work/resampled${p}_cand.json")
  res_files=$((res_files + 1)); res_cmp=$((res_cmp + pairs)); res_fp=$((res_fp + regressed))
  [ "$regressed" -eq 0 ] || res_fp_files=$((res_fp_files + 1))
  read -r pairs regressed < <(compare "$work/resampled${p}_base.json" "$work/resampled${p}_cand_slow.json")
  res_detected=$((res_detected + regressed))
done

pool_files=0 pool_fp_files=0 pool_cmp=0 pool_fp=0 pool_detected=0
while read -r cand bases; do
  read -r pairs regressed < <(compare_many $bases "$work/run$cand.json")
  pool_files=$((pool_files + 1)); pool_cmp=$((pool_cmp + pairs)); pool_fp=$((pool_fp + regressed))
  [ "$regressed" -eq 0 ] || pool_fp_files=$((pool_fp_files + 1))
  read -r pairs regressed < <(compare_many $bases "$work/run${cand}_slow.json")
  pool_detected=$((pool_detected + regressed))
done < <(/usr/bin/python3 -c "
import itertools
r = $runs
for c in range(1, r + 1):
    for combo in itertools.combinations([i for i in range(1, r + 1) if i != c], 3):
        print(c, ' '.join('$work/run%d.json' % i for i in combo))")

pct() { /usr/bin/python3 -c "print(f'{100 * $1 / $2:.1f} %')"; }
echo "config: $config, $runs runs, $(uname -n), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "real run pairs:      $real_fp_files of $real_files file pairs had a false regression ($(pct $real_fp_files $real_files)); $real_fp of $real_cmp pair comparisons ($(pct $real_fp $real_cmp))"
echo "real run pairs +10%: $real_detected of $real_cmp pair comparisons called regressed ($(pct $real_detected $real_cmp))"
echo "resampled pairs:     $res_fp_files of $res_files file pairs had a false regression ($(pct $res_fp_files $res_files)); $res_fp of $res_cmp pair comparisons ($(pct $res_fp $res_cmp))"
echo "vs 3 earlier runs:   $pool_fp_files of $pool_files comparisons had a false regression ($(pct $pool_fp_files $pool_files)); $pool_fp of $pool_cmp pair comparisons ($(pct $pool_fp $pool_cmp))"
echo "vs 3 earlier runs +10%: $pool_detected of $pool_cmp pair comparisons called regressed ($(pct $pool_detected $pool_cmp))"
echo "resampled pairs +10%: $res_detected of $res_cmp pair comparisons called regressed ($(pct $res_detected $res_cmp))"
