#!/usr/bin/env bash
# The history's figures on both backends (SQLite file; PostgreSQL on a server this script starts
# itself, as the tests do: tests/e2e/pg_server.sh, so it needs root and Debian's postgresql):
#   - recording throughput (runs/s) with 1 writer (one `pperf history record` of R runs) and with 8
#     writers at once (8 processes x R/8 runs), each run one transaction;
#   - on a history of N runs (default 10,000) of one config on one host, with a 10 % step change
#     half-way: `history list --json` (every run read back), and the wall time of `pperf compare
#     --against-history 30 CANDIDATE` and of `pperf history changes` (median of K runs each), also
#     on the last 250, 500 and 1,000 runs (--sizes).
# usage: bench/history_throughput.sh [--pperf BIN] [--runs R] [--history N] [--repeat K] [--limit S] [--sizes "S..."]
# (--limit: seconds one timed command may take, default 900; past it the figure is "> S s";
# --sizes: shorter histories, the last S runs of the N, to time compare and changes on too).
# A benchmark, not a test: it prints figures; results files of the golden tiny run, step times
# scaled per run (1 % noise). The server's fsync is off, as in the tests: figures are the
# client's and the server's work, not the disk's.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pperf="$root/build/pperf" runs=1600 history=10000 repeat=1 limit=900 sizes="250 500 1000"
while [ $# -gt 0 ]; do
  case "$1" in
    --pperf) pperf="$(readlink -f "$2")"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --history) history="$2"; shift 2 ;;
    --repeat) repeat="$2"; shift 2 ;;
    --limit) limit="$2"; shift 2 ;;
    --sizes) sizes="$2"; shift 2 ;;
    *) echo "usage: $0 [--pperf BIN] [--runs R] [--history N] [--repeat K]" >&2; exit 2 ;;
  esac
done
work="$(mktemp -d)"
source "$root/tests/e2e/pg_server.sh"  # its trap removes $work too
cd "$root"
pg_available || { echo "history_throughput: needs root and Debian's postgresql (scripts/setup-test-tools.sh)" >&2; exit 2; }
pg_start || exit 1

echo "history_throughput: writing $((runs + history + 1)) results files" >&2
/usr/bin/python3 - tests/data/results/run_tiny.json "$work" "$runs" "$history" <<'PY'
import datetime, json, os, random, sys
src, work, runs, history = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
base = json.load(open(src))
t0 = datetime.datetime(2020, 1, 1, tzinfo=datetime.timezone.utc)
def scaled(i, factor):
    j = json.loads(json.dumps(base))
    j["started_at"] = (t0 + datetime.timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
    for r in j["results"]:
        st = r["step_time_ms"]
        for k in ("median", "mean", "p5", "p95", "stdev"):
            if isinstance(st.get(k), (int, float)): st[k] *= factor
        for k in ("ci95", "mean_ci95"):
            if st.get(k): st[k] = [v * factor for v in st[k]]
        st["samples"] = [v * factor for v in st["samples"]]
        c = r.get("cost")
        if c:
            c["usd_per_step"] *= factor
            if c.get("usd_per_step_ci95"): c["usd_per_step_ci95"] = [v * factor for v in c["usd_per_step_ci95"]]
    return j
rng = random.Random(42)
os.makedirs(f"{work}/rec"); os.makedirs(f"{work}/hist")
for i in range(runs):  # recording: distinct files (another started_at each)
    json.dump(scaled(100000 + i, 1 + 0.01 * rng.gauss(0, 1)), open(f"{work}/rec/{i}.json", "w"), indent=2)
for i in range(history + 1):  # the long history: +10 % from half-way; the last file is the candidate
    level = 1.0 if i < history // 2 else 1.1
    json.dump(scaled(i, level * (1 + 0.01 * rng.gauss(0, 1))), open(f"{work}/hist/{i}.json", "w"), indent=2)
PY

now() { date +%s.%N; }
rate() { /usr/bin/python3 -c "import sys; n, a, b = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]); print(f'{n / (b - a):.1f} runs/s ({n} runs in {b - a:.2f} s)')" "$@"; }

record_1() {  # record_1 DB: one writer, every file
  local a b
  a=$(now); "$pperf" history record --db "$1" $(seq -f "$work/rec/%g.json" 0 $((runs - 1))) >/dev/null || echo "  failed" >&2; b=$(now)
  rate "$runs" "$a" "$b"
}
record_8() {  # record_8 DB: 8 writers at once, runs/8 files each
  local a b per=$((runs / 8)) pids=()
  a=$(now)
  for w in $(seq 0 7); do
    "$pperf" history record --db "$1" $(seq -f "$work/rec/%g.json" $((w * per)) $((w * per + per - 1))) >/dev/null & pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || echo "  a writer failed" >&2; done
  b=$(now)
  rate $((per * 8)) "$a" "$b"
}
median_time() {  # median_time COMMAND...: median wall seconds of $repeat runs
  local times=() a b
  for _ in $(seq "$repeat"); do
    a=$(now); timeout "$limit" "$@" >/dev/null 2>&1
    [ $? -eq 124 ] && { echo "> $limit s (stopped)"; return; }
    b=$(now)
    times+=("$(/usr/bin/python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$a" "$b")")
  done
  /usr/bin/python3 -c "import statistics, sys; print(f'{statistics.median(map(float, sys.argv[1:])):.2f} s')" "${times[@]}"
}

echo "host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}'), SQLite $(sqlite3 --version 2>/dev/null | cut -d' ' -f1)"
echo "pperf's own start (history list of an empty file, the floor of every figure below): $(median_time "$pperf" history list --db "$work/empty.sqlite")"
echo "recording $runs runs, one transaction each:"
echo "  sqlite     1 writer:  $(record_1 "$work/one.sqlite")"
echo "  sqlite     8 writers: $(record_8 "$work/eight.sqlite")"
echo "  postgresql 1 writer:  $(record_1 "$(pg_newdb one)")"
echo "  postgresql 8 writers: $(record_8 "$(pg_newdb eight)")"

echo "history_throughput: recording the $history-run history" >&2
lite="$work/long.sqlite"; pg="$(pg_newdb long)"
a=$(now); "$pperf" history record --db "$lite" $(seq -f "$work/hist/%g.json" 0 $((history - 1))) >/dev/null; b=$(now)
echo "  sqlite: recorded $history runs in one process: $(rate "$history" "$a" "$b")"
a=$(now); "$pperf" history copy "$lite" "$pg" >/dev/null; b=$(now)
echo "  history copy sqlite -> postgresql: $(rate "$history" "$a" "$b")"
echo "reading $history runs back (median of $repeat):"
for backend in sqlite postgresql; do
  db="$lite"; [ "$backend" = postgresql ] && db="$pg"
  echo "  $backend history list --json: $(median_time "$pperf" history list --json --db "$db")"
done
# compare --against-history and history changes look for change points over the whole series of
# each pair (src/stats/change_points.cpp: an n x n cost matrix filled in O(n^2 log n) and more);
# they are timed on the last S runs for each S in --sizes, and on all N within --limit.
cand="$work/hist/$history.json"
for size in $sizes $history; do
  [ "$size" -le "$history" ] || continue
  if [ "$size" -eq "$history" ]; then slite="$lite" spg="$pg"; else
    slite="$work/last$size.sqlite" spg="$(pg_newdb "last$size")"
    "$pperf" history record --db "$slite" $(seq -f "$work/hist/%g.json" $((history - size)) $((history - 1))) >/dev/null
    "$pperf" history copy "$slite" "$spg" >/dev/null
  fi
  echo "on $size runs (median of $repeat; limit $limit s):"
  for backend in sqlite postgresql; do
    db="$slite"; [ "$backend" = postgresql ] && db="$spg"
    echo "  $backend compare --against-history 30: $(median_time "$pperf" compare --against-history 30 --db "$db" "$cand")"
    echo "  $backend history changes:             $(median_time "$pperf" history changes --db "$db")"
  done
done
