#!/usr/bin/env bash
# How long `pperf compare` and `pperf report --html` take on results files with 10,000 samples
# per result (the tiny golden run's three results, step times drawn around their medians).
# usage: bench/report_speed.sh [--pperf BIN] [--samples N] [--repeat K]
# Prints the median wall time of K runs of each command.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pperf="$root/build/pperf" samples=10000 repeat=5
while [ $# -gt 0 ]; do
  case "$1" in
    --pperf) pperf="$2"; shift 2 ;;
    --samples) samples="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    *) echo "usage: $0 [--pperf BIN] [--samples N] [--repeat K]" >&2; exit 2 ;;
  esac
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 - "$root/tests/data/results/run_tiny.json" "$work" "$samples" <<'PY'
import json, random, statistics, sys
src, work, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for name, factor, seed in (("base", 1.0, 1), ("cand", 1.03, 2)):
    j = json.load(open(src))
    rng = random.Random(seed)
    for r in j["results"]:
        st = r["step_time_ms"]
        s = [st["median"] * factor * rng.lognormvariate(0, 0.05) for _ in range(n)]
        f = statistics.median(s) / st["median"]
        st.update(samples=s, n=n, median=statistics.median(s), ci95=[v * f for v in st["ci95"]])
        r["measurement"]["data_wait_ms"] = [0.0] * n
        c = r["cost"]
        c["usd_per_step"] *= f
        c["usd_per_step_ci95"] = [v * f for v in c["usd_per_step_ci95"]]
    json.dump(j, open(f"{work}/{name}.json", "w"), indent=2)
PY
time_of() {  # median seconds of $repeat runs of the command
  local times=()
  for _ in $(seq "$repeat"); do
    local t0 t1
    t0=$(date +%s.%N); "$@" >/dev/null 2>&1 || [ $? -le 1 ]; t1=$(date +%s.%N)
    times+=("$(echo "$t1 - $t0" | bc)")
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (repeat + 1) / 2 ))p"
}
echo "results files: 3 results x $samples samples ($(du -h "$work/base.json" | cut -f1) each); median of $repeat runs"
echo "pperf --version (start-up alone: shared libraries):  $(time_of "$pperf" --version) s"
echo "pperf compare base cand --out --markdown --junit --html: $(time_of "$pperf" compare "$work/base.json" "$work/cand.json" --out "$work/c.json" --markdown "$work/c.md" --junit "$work/c.xml" --html "$work/c.html") s"
echo "pperf report --html --markdown:                       $(time_of "$pperf" report "$work/cand.json" --html "$work/r.html" --markdown "$work/r.md") s ($(du -h "$work/r.html" | cut -f1) HTML)"
echo "pperf export --format gbench:                         $(time_of "$pperf" export "$work/cand.json" --format gbench --out "$work/g.json") s"
