#!/usr/bin/env bash
# Import time and peak memory of `pperf prices import --format skypilot` on a large catalog: the
# real GCP rows of $PPERF_REAL_DATA/prices/excerpts/gcp-vms.csv (tests/e2e/real_data.sh) repeated (each copy's instance types renamed
# `TYPE-cK`) up to --mb megabytes, imported whole and filtered to one region, by two pperf binaries
# side by side (e.g. main's and this tree's), alternated --repeat times.
# Only rows every importer accepts are repeated (priced machine rows; no GCP accelerator rows), so an
# older binary can be measured on the same file.
# usage: bench/price_import_scale.sh [--old BIN] [--new BIN] [--mb 164] [--repeat 3] [--region us-central1]
# Prints per binary and case the median wall seconds and peak RSS (MiB), and new/old ratios.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
old="" new="$root/build/pperf" mb=164 repeat=3 region=us-central1
while [ $# -gt 0 ]; do
  case "$1" in
    --old) old="$2"; shift 2 ;;
    --new) new="$2"; shift 2 ;;
    --mb) mb="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --region) region="$2"; shift 2 ;;
    *) echo "usage: $0 [--old BIN] [--new BIN] [--mb N] [--repeat K] [--region R]" >&2; exit 2 ;;
  esac
done
source "$root/tests/e2e/real_data.sh"
need_real_data
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 - "$real_data/prices/excerpts/gcp-vms.csv" "$work/big.csv" "$mb" <<'PY'
import csv, sys
src, out, mb = sys.argv[1], sys.argv[2], float(sys.argv[3])
lines = open(src, newline="").read().splitlines()
header, rows = lines[0], []
for line in lines[1:]:
    f = next(csv.reader([line]))
    if f[0] and float(f[header.split(",").index("Price")] or 0) > 0:
        rows.append(f)
lines_out = [header + "\n"]
size, k = len(lines_out[0]), 0
while size < mb * 1e6:
    for f in rows:
        line = ",".join([f[0] + f"-c{k}"] + [f'"{x}"' if "," in x else x for x in f[1:]]) + "\n"
        lines_out.append(line)
        size += len(line)
    k += 1
open(out, "w").write("".join(lines_out))
print(f"{out}: {k} copies of {len(rows)} real rows", file=sys.stderr)
PY
ls -l "$work/big.csv" | awk '{printf "catalog: %.1f MB\n", $5 / 1e6}'

measure() {  # measure BIN CASE ARGS...: appends "CASE seconds kib" to $work/BIN-label
  local bin="$1" label="$2"; shift 2
  /usr/bin/time -f "%e %M" -o "$work/time" "$bin" prices import --format skypilot "$work/big.csv" --published 2026-01-01 \
    --imported 2026-11-26 --out "$work/out.json" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; return 1; }
  echo "$label $(cat "$work/time")" >>"$work/results"
}
: >"$work/results"
for i in $(seq "$repeat"); do
  for side in old new; do
    bin=${!side}
    [ -n "$bin" ] || continue
    measure "$bin" "$side whole" || echo "$side whole: failed" >&2
    measure "$bin" "$side $region" --region "$region" || echo "$side $region: failed" >&2
  done
done
/usr/bin/python3 - "$work/results" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    side, case, s, kib = line.split()
    runs.setdefault((side, case), []).append((float(s), int(kib) / 1024))
med = {k: (statistics.median(s for s, _ in v), statistics.median(m for _, m in v)) for k, v in runs.items()}
for (side, case), (s, mib) in sorted(med.items()):
    print(f"{side:4} {case:14} {s:8.2f} s  {mib:8.0f} MiB peak RSS  ({len(runs[(side, case)])} runs)")
for case in sorted({c for _, c in med}):
    if ("old", case) in med and ("new", case) in med:
        (so, mo), (sn, mn) = med[("old", case)], med[("new", case)]
        print(f"new/old {case:14} time {sn / so:.2f}x  peak memory {mn / mo:.2f}x")
PY
