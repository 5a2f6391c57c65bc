#!/usr/bin/env bash
# The nightly job: run each config, record it in the history, compare it against the history,
# and leave what a CI job uploads in the output directory:
#   <config name>.json   the results (one per config)
#   report.html          the HTML report with trend charts (report-<name>.html per config and an
#                        index when there are several configs)
#   summary.md           compare's Markdown (regressions first; fit for $GITHUB_STEP_SUMMARY)
#   junit.xml            one testcase per pair, regressions as failures
#   compare-<name>.json  compare's JSON
# Exit code: pperf compare's (0 nothing regressed, 1 a regression or a missing/failed pair, 2 bad
# input), the worst over the configs; 3 if a run could not finish or could not be recorded in the
# history (pperf run's exit 5: its results file stands; `pperf history record` records it later).
#
# usage: scripts/nightly.sh [--db DB] [--out-dir DIR] [--history-runs N] [--pperf BIN] CONFIG... [-- COMPARE-OPTIONS...]
#   --db DB            history database, a file or a postgresql:// URI (default $PPERF_HISTORY, else
#                      results/history.sqlite); keep a file between runs (CI cache or artifact)
#   --out-dir DIR      where the files go (default results/nightly)
#   --history-runs N   compare against the last N runs (default 5); with fewer than 3 runs of a pair
#                      it is undecided (exit 0: the first nights record, they do not alarm)
#   --pperf BIN        the pperf to use (default: pperf on PATH, else this checkout's build/pperf)
#   -- ...             passed to `pperf compare` (e.g. --max-slowdown-pct 10 --strict)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
db="${PPERF_HISTORY:-results/history.sqlite}" out="results/nightly" runs=5 pperf="" configs=() extra=()
usage() { sed -n '2,20{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2; exit "${1:-2}"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --db) db="$2"; shift 2 ;;
    --out-dir) out="$2"; shift 2 ;;
    --history-runs) runs="$2"; shift 2 ;;
    --pperf) pperf="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) usage 0 ;;
    -*) echo "nightly.sh: unknown option $1" >&2; usage ;;
    *) configs+=("$1"); shift ;;
  esac
done
[ ${#configs[@]} -gt 0 ] || { echo "nightly.sh: give at least one CONFIG" >&2; usage; }
if [ -z "$pperf" ]; then
  if command -v pperf >/dev/null; then pperf=pperf; else pperf="$root/build/pperf"; fi
fi
mkdir -p "$out"
worst=0
names=()
rm -f "$out/summary.md" "$out/junit.xml.parts"
for config in "${configs[@]}"; do
  name="$(/usr/bin/env python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["name"])' "$config" 2>/dev/null || basename "$config" .json)"
  names+=("$name")
  echo "nightly: $config -> $out/$name.json" >&2
  "$pperf" run --config "$config" --out "$out/$name.json" --history "$db"
  code=$?
  if [ "$code" -eq 2 ] || [ ! -s "$out/$name.json" ]; then
    echo "nightly: $config: pperf run failed (exit $code)" >&2
    [ "$code" -eq 2 ] && { [ "$worst" -lt 2 ] && worst=2; continue; }
    worst=3; continue
  fi
  [ "$code" -eq 3 ] && worst=3
  [ "$code" -eq 5 ] && worst=3  # the history did not take the run (pperf run said why on stderr)
  "$pperf" compare --against-history "$runs" --db "$db" "$out/$name.json" --out "$out/compare-$name.json" \
    --markdown "$out/summary-$name.md" --junit "$out/junit-$name.xml" --html "$out/compare-$name.html" "${extra[@]}"
  code=$?
  [ "$code" -gt "$worst" ] && [ "$worst" -ne 3 ] && worst=$code
  "$pperf" report "$out/$name.json" --history "$db" --html "$out/report-$name.html" --markdown "$out/report-$name.md" >/dev/null
  { cat "$out/summary-$name.md"; echo; } >>"$out/summary.md"
  # The testsuite elements of each config's JUnit file go into one junit.xml.
  awk '/<testsuite /,/<\/testsuite>/' "$out/junit-$name.xml" >>"$out/junit.xml.parts"
done

# junit.xml: every config's testsuite under one <testsuites>.
tests=$(grep -c '<testcase ' "$out/junit.xml.parts" 2>/dev/null); tests=${tests:-0}
failures=$(grep -c '<failure ' "$out/junit.xml.parts" 2>/dev/null); failures=${failures:-0}
{ echo '<?xml version="1.0" encoding="UTF-8"?>'
  echo "<testsuites name=\"pperf nightly\" tests=\"$tests\" failures=\"$failures\" errors=\"0\">"
  cat "$out/junit.xml.parts" 2>/dev/null
  echo '</testsuites>'; } >"$out/junit.xml"
rm -f "$out/junit.xml.parts"

# report.html: the config's report, or an index of them.
if [ ${#names[@]} -eq 1 ] && [ -f "$out/report-${names[0]}.html" ]; then
  cp "$out/report-${names[0]}.html" "$out/report.html"
else
  { echo '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>pperf nightly</title>'
    echo '<style>body{font:14px system-ui,sans-serif;margin:24px}li{margin:4px 0}</style></head><body><h1>pperf nightly</h1><ul>'
    for n in "${names[@]}"; do
      [ -f "$out/report-$n.html" ] && echo "<li><a href=\"report-$n.html\">$n</a> — <a href=\"compare-$n.html\">comparison</a></li>"
    done
    echo '</ul></body></html>'; } >"$out/report.html"
fi
echo "nightly: exit $worst; files in $out" >&2
exit "$worst"
