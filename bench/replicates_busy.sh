#!/usr/bin/env bash
# Issue 68 item 1: N back-to-back runs of the README job (configs/p4d_vs_hetero.json, its own
# budget: 90 s a configuration) in turns, as `pperf run --replicates N`, with a bounded CPU hog
# beside them (one busy loop, not pinned, ended by `timeout` or when the runs end). Prints every
# run's own interval against the pooled one as the Markdown table of docs/statistics.md
# "Replicates". The host is whatever it is besides the hog: say what else ran on it.
#
# usage: bench/replicates_busy.sh [--replicates N] [--no-hog] [--pperf BIN] [--out FILE]   (about N x 3.5 min)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n=4 hog=1 pperf="$root/build/pperf" out="$(mktemp -d)/replicates.json"
while [ $# -gt 0 ]; do
  case "$1" in
    --replicates) n="$2"; shift 2 ;;
    --no-hog) hog=0; shift ;;
    --pperf) pperf="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "usage: $0 [--replicates N] [--no-hog] [--pperf BIN] [--out FILE]" >&2; exit 2 ;;
  esac
done
cd "$root"
if [ "$hog" = 1 ]; then
  timeout $((n * 300)) sh -c 'while :; do :; done' &
  hog_pid=$!
  trap 'kill "$hog_pid" 2>/dev/null || true' EXIT
fi
"$pperf" run --config configs/p4d_vs_hetero.json --replicates "$n" --out "$out" --quiet
echo "results: $out (hog: $([ "$hog" = 1 ] && echo 'one busy loop' || echo none); load average now $(cut -d' ' -f1-3 /proc/loadavg))"
python3 - "$out" <<'PY'
import contextlib, io, json, math, os, sys

sys.path.insert(0, os.path.join(os.getcwd(), "tests", "unit"))
with contextlib.redirect_stdout(io.StringIO()):
    from decision_reference import t_quantile  # Student t, standard library only

doc = json.load(open(sys.argv[1]))
rep = doc["replicates"]


for pooled in rep["pooled"]:
    price = None
    print(f"\n{pooled['configuration']} against {pooled['baseline']} ({pooled['workload']}), {rep['count']} replicates:\n")
    print("| run | started | others' CPU | rounds | this run's paired estimate (95 % t) | this run's verdict as printed | covers the pooled estimate |")
    print("|---|---|---|---|---|---|---|")
    pooled_imp = None
    for run, est in zip(rep["runs"], pooled["estimates"]):
        res = {r["configuration"]: r for r in run["results"]}
        c, b = res[pooled["configuration"]], res[pooled["baseline"]]
        price = c["cost"]["usd_per_hour"] / b["cost"]["usd_per_hour"]
        others = max(c.get("bottleneck", {}).get("others_cpu_pct", 0), b.get("bottleneck", {}).get("others_cpu_pct", 0))
        half = t_quantile(0.975, est["dof"]) * est["se"]
        lo, hi = (1 - price * math.exp(est["log_ratio"] + half)) * 100, (1 - price * math.exp(est["log_ratio"] - half)) * 100
        point = (1 - price * math.exp(pooled.get("log_ratio", est["log_ratio"]))) * 100
        d = c.get("decision") or {}
        bounds = d.get("improvement_pct_bounds") or [float("nan")] * 2
        rounds = int(est["dof"]) + 1
        covers = "yes" if lo <= point <= hi else "no"
        print(f"| {est['replicate']} | {run['started_at'][11:19]} | {others:.0f} % | {rounds} | {lo:+.1f} to {hi:+.1f} % | "
              f"{d.get('verdict', '?')}, {bounds[0]:+.1f} to {bounds[1]:+.1f} % | {covers} |")
    if "improvement_pct_ci95" in pooled:
        ci = pooled["improvement_pct_ci95"]
        point = (1 - price * math.exp(pooled["log_ratio"])) * 100
        print(f"| pooled | | | | {ci[0]:+.1f} to {ci[1]:+.1f} % (point {point:+.1f} %, t on {pooled['dof']:g} dof, "
              f"between-run sd {pooled['between_run_sd'] * 100:.1f} %) | {pooled['verdict']} | |")
    else:
        print(f"| pooled | not pooled: {pooled['not_pooled']} |")
PY
